/*
 * backend_inproc.c - the in-process backend of comm.h: all N servers live in
 * this process.
 *
 * The all-reduce is the emulation of the algorithm's in-process
 * implementation, gathering per-server values is a copy, and there is no one
 * to agree with or to abort.  Keeping this side free of MPI calls means an
 * in-process run never initializes MPI.
 */
#include <string.h>
#include "optinc/comm.h"
#include "runtime/allreduce/backend.h"

static optinc_status inproc_open(optinc_comm *comm, int servers, int *argc, char ***argv,
                                 optinc_error *err)
{
    comm->ops = &optinc_comm_inproc_ops;
    comm->servers = servers;
    comm->rank = 0;
    comm->first = 0;
    comm->count = servers;
    comm->timeout_s = 0.0;
    comm->state = NULL;
    return OPTINC_OK;
}

static void inproc_close(optinc_comm *comm)
{
}

static int inproc_failed(const optinc_comm *comm)
{
    return 0;
}

static void inproc_abort(const optinc_comm *comm, int code)
{
}

static optinc_status inproc_allreduce(optinc_comm *comm, optinc_allreduce *ar, uint64_t step,
                                      float *const *grads, size_t n, optinc_ar_stats *stats,
                                      optinc_error *err)
{
    return optinc_allreduce_inproc(ar, step, grads, n, stats, err);
}

static optinc_status inproc_allgather(optinc_comm *comm, const double *local, double *all, int k,
                                      optinc_error *err)
{
    memcpy(all, local, (size_t)comm->servers * (size_t)k * sizeof *all);
    return OPTINC_OK;
}

static optinc_status inproc_allgather_bytes(optinc_comm *comm, const void *mine, void *all,
                                            size_t size, const char *what, optinc_error *err)
{
    memcpy(all, mine, size);
    return OPTINC_OK;
}

static optinc_status inproc_sum(optinc_comm *comm, int64_t v, int64_t *sum, optinc_error *err)
{
    *sum = v;
    return OPTINC_OK;
}

static optinc_status inproc_agree(optinc_comm *comm, optinc_status st, optinc_error *err)
{
    return st;
}

const optinc_comm_ops optinc_comm_inproc_ops = {
    .name = "inproc", .open = inproc_open, .close = inproc_close, .failed = inproc_failed,
    .abort = inproc_abort, .allreduce = inproc_allreduce, .allgather = inproc_allgather,
    .allgather_bytes = inproc_allgather_bytes, .sum = inproc_sum, .agree = inproc_agree,
};

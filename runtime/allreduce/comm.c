/*
 * comm.c - the in-process backend of comm.h and the dispatch between it and
 * the MPI backend (backend_mpi.c).
 *
 * In process, all N servers live here: the all-reduce is the emulation of
 * allreduce.c, and gathering per-server values is a copy.  Keeping this side
 * free of MPI calls means an in-process run never initializes MPI.
 */
#include <string.h>
#include <time.h>
#include "optinc/comm.h"

void optinc_comm_inproc(optinc_comm *comm, int servers)
{
    comm->backend = OPTINC_BACKEND_INPROC;
    comm->servers = servers;
    comm->rank = 0;
    comm->first = 0;
    comm->count = servers;
    comm->timeout_s = 0.0;
}

optinc_status optinc_comm_allreduce(const optinc_comm *comm, optinc_allreduce *ar, uint64_t step,
                                    float *const *grads, size_t n, optinc_ar_stats *stats,
                                    optinc_error *err)
{
    if (comm->backend == OPTINC_BACKEND_MPI)
        return optinc_comm_mpi_allreduce(comm, ar, step, grads[0], n, stats, err);
    return optinc_allreduce_inproc(ar, step, grads, n, stats, err);
}

double optinc_comm_time(const optinc_comm *comm)
{
    (void)comm;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

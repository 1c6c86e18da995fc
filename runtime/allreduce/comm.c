/*
 * comm.c - the table of backends and the dispatch of comm.h through it.
 *
 * A backend is an ops struct (backend.h), chosen once when a communicator is
 * opened; every later call goes through comm->ops.  This table is the one
 * place that knows which backends the build has: without MPI the "mpi" entry
 * keeps its name but has no operations, only what to install, so asking for
 * it says how to get it rather than that it does not exist.
 */
#include <string.h>
#include <time.h>
#include "optinc/comm.h"
#include "runtime/allreduce/backend.h"
#include "runtime/allreduce/plan.h"

static const struct backend {
    const char *name;
    const optinc_comm_ops *ops;   /* NULL: not in this build */
    const char *missing;          /* then why not, and how to fix it */
} backends[] = {
    {"inproc", &optinc_comm_inproc_ops, NULL},
#ifdef OPTINC_HAVE_MPI
    {"mpi", &optinc_comm_mpi_ops, NULL},
#else
    {"mpi", NULL, "this optinc was built without MPI; install libopenmpi-dev and rebuild"},
#endif
};

#define N_BACKENDS (sizeof backends / sizeof backends[0])

static const struct backend *find(const char *name)
{
    for (size_t i = 0; i < N_BACKENDS; i++)
        if (!strcmp(name, backends[i].name))
            return &backends[i];
    return NULL;
}

int optinc_comm_backend_known(const char *name)
{
    return find(name) != NULL;
}

const char *optinc_comm_backend_names(const char *sep, const char *last, char *buf, size_t size)
{
    const char *names[N_BACKENDS];
    for (size_t i = 0; i < N_BACKENDS; i++)
        names[i] = backends[i].name;
    return optinc_ar_join(names, N_BACKENDS, sep, last, buf, size);
}

optinc_status optinc_comm_backend_check(const char *name, optinc_error *err)
{
    const struct backend *b = find(name);
    char known[64];
    if (!b)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "no backend '%s': use %s", name,
                           optinc_comm_backend_names(", ", " or ", known, sizeof known));
    if (!b->ops)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "%s", b->missing);
    return OPTINC_OK;
}

optinc_status optinc_comm_open(optinc_comm *comm, const char *name, int servers, int *argc,
                               char ***argv, optinc_error *err)
{
    optinc_comm_inproc(comm, 1);    /* what comm is when the backend cannot start */
    optinc_status st = optinc_comm_backend_check(name, err);
    return st ? st : find(name)->ops->open(comm, servers, argc, argv, err);
}

void optinc_comm_inproc(optinc_comm *comm, int servers)
{
    optinc_comm_inproc_ops.open(comm, servers, NULL, NULL, NULL);
}

void optinc_comm_close(optinc_comm *comm)
{
    comm->ops->close(comm);
}

int optinc_comm_failed(const optinc_comm *comm)
{
    return comm->ops->failed(comm);
}

void optinc_comm_abort(const optinc_comm *comm, int code)
{
    comm->ops->abort(comm, code);
}

optinc_status optinc_comm_allreduce(optinc_comm *comm, optinc_allreduce *ar, uint64_t step,
                                    float *const *grads, size_t n, optinc_ar_stats *stats,
                                    optinc_error *err)
{
    return comm->ops->allreduce(comm, ar, step, grads, n, stats, err);
}

optinc_status optinc_comm_allgather(optinc_comm *comm, const double *local, double *all, int k,
                                    optinc_error *err)
{
    return comm->ops->allgather(comm, local, all, k, err);
}

optinc_status optinc_comm_allgather_bytes(optinc_comm *comm, const void *mine, void *all,
                                          size_t size, const char *what, optinc_error *err)
{
    return comm->ops->allgather_bytes(comm, mine, all, size, what, err);
}

optinc_status optinc_comm_sum(optinc_comm *comm, int64_t v, int64_t *sum, optinc_error *err)
{
    return comm->ops->sum(comm, v, sum, err);
}

optinc_status optinc_comm_agree(optinc_comm *comm, optinc_status st, optinc_error *err)
{
    return comm->ops->agree(comm, st, err);
}

optinc_status optinc_comm_native_sum(optinc_comm *comm, float *g, size_t n, optinc_error *err)
{
    if (!comm->ops->native_sum)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "the %s backend has no all-reduce of its own: use --backend mpi",
                           comm->ops->name);
    return comm->ops->native_sum(comm, g, n, err);
}

double optinc_comm_time(const optinc_comm *comm)
{
    (void)comm;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

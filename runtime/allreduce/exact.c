/*
 * exact.c - the exact float mean, a reference: the servers' gradients added
 * in the order 0..N-1, then divided by N, counted on a star through an
 * in-network aggregator (each server sends its floats once and receives the
 * mean once).
 *
 * In process one server stands for the aggregator; on MPI rank c aggregates
 * chunk c of every server, adding the N slices in server order, so both add
 * each element in the same order and give the same bits.
 */
#include <stdlib.h>
#include <string.h>
#include "optinc/allreduce.h"
#include "runtime/allreduce/plan.h"
#include "runtime/allreduce/workers.h"
#ifdef OPTINC_HAVE_MPI
#include "runtime/allreduce/backend.h"
#endif

/* Part `part` of the elements: every element is added in server order
 * whatever part it is in, so the thread count changes no value. */
static void exact_part(void *ctx, int part, int parts)
{
    ar_floats *c = ctx;
    size_t lo, hi;
    optinc_ar_chunk(c->n, parts, part, &lo, &hi);
    for (int i = 1; i < c->servers; i++)
        optinc_ar_add(c->g[0] + lo, c->g[i] + lo, hi - lo);
    optinc_ar_mean(c->g[0] + lo, hi - lo, c->servers);
    for (int i = 1; i < c->servers; i++)
        memcpy(c->g[i] + lo, c->g[0] + lo, (hi - lo) * sizeof(float));
}

#ifdef OPTINC_HAVE_MPI
/* An all-to-all of float slices (slice c to rank c), rank c adds the N
 * slices in server order and divides, an all-gather. */
static optinc_status exact_mpi(optinc_comm *comm, optinc_allreduce *ar, uint64_t step, float *g,
                               size_t n, uint64_t *errors, optinc_error *err)
{
    int N = comm->servers;
    size_t lo, hi;
    optinc_ar_chunk(n, N, comm->rank, &lo, &hi);
    size_t len = hi - lo;
    float *recv = malloc(((size_t)N * len + 1) * sizeof *recv);
    *errors = 0;
    if (!recv)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for the all-reduce");
    optinc_status st = optinc_mpi_scatter_chunks(comm, g, n, recv, OPTINC_MPI_F32, ar->what, err);
    if (!st) {
        for (int i = 1; i < N; i++)
            optinc_ar_add(recv, recv + (size_t)i * len, len);
        optinc_ar_mean(recv, len, N);
        st = optinc_mpi_gather_chunks(comm, recv, n, g, OPTINC_MPI_F32, ar->what, err);
    }
    free(recv);
    return st;
}
#endif

static optinc_status exact_inproc(optinc_allreduce *ar, uint64_t step, float *const *g, size_t n,
                                  uint64_t *errors, optinc_error *err)
{
    return ar_workers_run_floats(ar->workers, exact_part, ar->cfg.servers, g, n, errors);
}

const optinc_ar_algorithm optinc_ar_exact = {
    .name = "exact", .summary = "float mean, servers in order", .network = OPTINC_AR_NET_STAR,
    .inproc = exact_inproc, OPTINC_AR_MPI(exact_mpi)
};

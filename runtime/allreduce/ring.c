/*
 * ring.c - ring all-reduce, the electrical baseline: reduce-scatter then
 * all-gather around a ring of point-to-point links, N-1 + N-1 steps in which
 * every server sends one chunk of n/N floats to the next.
 *
 * Chunk c is summed around the ring starting at server c,
 * ((g_c + g_c+1) + g_c+2) + ..., its owner divides it by N, and the
 * all-gather hands every server the same bytes.  Both implementations below
 * run exactly these additions (optinc_ar_add) and divisions (optinc_ar_mean)
 * in this order, so in process and on MPI the bits agree.
 */
#include <stdlib.h>
#include <string.h>
#include "optinc/allreduce.h"
#include "runtime/allreduce/plan.h"
#include "runtime/allreduce/workers.h"
#ifdef OPTINC_HAVE_MPI
#include "runtime/allreduce/backend.h"
#endif

/* In step s of the reduce-scatter server i sends its chunk to server i+1,
 * which adds it into its own copy; the chunks sent in one step are distinct
 * from the ones received, so the emulation can run in place.  Server i then
 * owns chunk i+1, divides it by N, and the all-gather passes the finished
 * chunks on around the ring.  Every operation is element by element, so
 * part `part` of the elements runs the whole ring on its own elements alone
 * (each chunk cut down to them), in the same order, and the thread count
 * changes no value. */
/* Chunk c of n cut down to [plo, phi): [*lo, *hi), empty when they miss. */
static void chunk_in(size_t n, int N, int c, size_t plo, size_t phi, size_t *lo, size_t *hi)
{
    optinc_ar_chunk(n, N, c, lo, hi);
    *lo = *lo > plo ? *lo : plo;
    *hi = *hi < phi ? *hi : phi;
    *hi = *hi > *lo ? *hi : *lo;
}

static void ring_part(void *ctx, int part, int parts)
{
    ar_floats *c = ctx;
    int N = c->servers;
    float *const *g = c->g;
    size_t plo, phi, lo, hi;
    optinc_ar_chunk(c->n, parts, part, &plo, &phi);
    for (int s = 0; s < N - 1; s++)
        for (int i = 0; i < N; i++) {
            chunk_in(c->n, N, optinc_ar_ring_chunk(i, s, N), plo, phi, &lo, &hi);
            optinc_ar_add(g[(i + 1) % N] + lo, g[i] + lo, hi - lo);
        }
    for (int i = 0; i < N; i++) {
        chunk_in(c->n, N, (i + 1) % N, plo, phi, &lo, &hi);
        optinc_ar_mean(g[i] + lo, hi - lo, N);
    }
    for (int s = 0; s < N - 1; s++)
        for (int i = 0; i < N; i++) {
            chunk_in(c->n, N, optinc_ar_ring_chunk(i + 1, s, N), plo, phi, &lo, &hi);
            memcpy(g[(i + 1) % N] + lo, g[i] + lo, (hi - lo) * sizeof(float));
        }
}

static optinc_status ring_inproc(optinc_allreduce *ar, uint64_t step, float *const *g, size_t n,
                                 uint64_t *errors, optinc_error *err)
{
    return ar_workers_run_floats(ar->workers, ring_part, ar->cfg.servers, g, n, errors);
}

#ifdef OPTINC_HAVE_MPI
/* Rank r's part: in each step it sends to the next rank what server r sends
 * above and receives from the previous one what server r-1 sends, into a
 * buffer it then adds in (reduce-scatter) or in place (all-gather). */
static optinc_status ring_mpi(optinc_comm *comm, optinc_allreduce *ar, uint64_t step, float *g,
                              size_t n, uint64_t *errors, optinc_error *err)
{
    int N = comm->servers, r = comm->rank;
    size_t slo, shi, rlo, rhi, maxlen = (n + (size_t)N - 1) / (size_t)N;
    optinc_status st = OPTINC_OK;
    float *tmp = malloc((maxlen ? maxlen : 1) * sizeof *tmp);
    *errors = 0;
    if (!tmp)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for the all-reduce");
    for (int s = 0; !st && s < N - 1; s++) {
        optinc_ar_chunk(n, N, optinc_ar_ring_chunk(r, s, N), &slo, &shi);
        optinc_ar_chunk(n, N, optinc_ar_ring_chunk(r - 1, s, N), &rlo, &rhi);
        st = optinc_mpi_shift(comm, g + slo, shi - slo, tmp, rhi - rlo, OPTINC_MPI_F32, s,
                              ar->what, err);
        if (!st)
            optinc_ar_add(g + rlo, tmp, rhi - rlo);
    }
    if (!st) {
        optinc_ar_chunk(n, N, (r + 1) % N, &rlo, &rhi);
        optinc_ar_mean(g + rlo, rhi - rlo, N);
    }
    for (int s = 0; !st && s < N - 1; s++) {
        optinc_ar_chunk(n, N, optinc_ar_ring_chunk(r + 1, s, N), &slo, &shi);
        optinc_ar_chunk(n, N, optinc_ar_ring_chunk(r, s, N), &rlo, &rhi);
        st = optinc_mpi_shift(comm, g + slo, shi - slo, g + rlo, rhi - rlo, OPTINC_MPI_F32,
                              N + s, ar->what, err);
    }
    free(tmp);
    return st;
}
#endif

const optinc_ar_algorithm optinc_ar_ring = {
    .name = "ring", .summary = "float chunks around the ring", .network = OPTINC_AR_NET_RING,
    .inproc = ring_inproc, OPTINC_AR_MPI(ring_mpi)
};

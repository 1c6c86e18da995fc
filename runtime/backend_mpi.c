/*
 * backend_mpi.c - the MPI backend of comm.h: one OpenMPI rank per server.
 *
 * Each algorithm moves real messages in the pattern of its network model and
 * runs the kernels of allreduce.c in the order the in-process emulation runs
 * them, so the bits agree:
 *
 *   ring       MPI_Sendrecv to the next rank / from the previous one, step by
 *              step: the reduce-scatter adds what it receives into its own
 *              copy (optinc_ar_add), the owner of a chunk divides it by N, the
 *              all-gather receives finished chunks in place;
 *   exact      MPI_Alltoallv of float slices (slice c to rank c), rank c adds
 *              the N slices in server order and divides, MPI_Allgatherv;
 *   quantized, optinc
 *              the block maxima reduced with MPI_MAX on their bits, each rank
 *              quantizes its gradient, MPI_Alltoallv of code slices, rank c
 *              aggregates chunk c (table and injected errors of chunk c),
 *              MPI_Allgatherv of the output codes, every rank decodes.
 *
 * The all-to-all + all-gather is how a cluster without the optical unit can
 * run the unit's function; the statistics still count the modelled star
 * (allreduce.h).  After each call the ranks exchange their counts, so every
 * rank holds the statistics of all servers, as in process.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/comm.h"

int optinc_comm_under_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMIX_RANK") != NULL ||
           getenv("PMI_SIZE") != NULL;
}

optinc_status optinc_comm_mpi_init(optinc_comm *comm, int *argc, char ***argv,
                                   optinc_error *err)
{
    int inited, size, rank;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init(argc, argv) != MPI_SUCCESS)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0,
                           "MPI_Init failed: start the run with mpirun -np N (OpenMPI)");
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    comm->backend = OPTINC_BACKEND_MPI;
    comm->servers = size;
    comm->rank = rank;
    comm->first = rank;
    comm->count = 1;
    if (size > OPTINC_AR_MAX_SERVERS)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "%d MPI ranks: at most %d servers", size, OPTINC_AR_MAX_SERVERS);
    return OPTINC_OK;
}

void optinc_comm_finalize(optinc_comm *comm)
{
    int fin;
    if (comm->backend != OPTINC_BACKEND_MPI)
        return;
    MPI_Finalized(&fin);
    if (!fin)
        MPI_Finalize();
}

/* Counts and displacements of the N chunks of n elements. */
static void chunk_layout(size_t n, int N, int *counts, int *displs)
{
    for (int c = 0; c < N; c++) {
        size_t lo, hi;
        optinc_ar_chunk(n, N, c, &lo, &hi);
        counts[c] = (int)(hi - lo);
        displs[c] = (int)lo;
    }
}

static void ring(const optinc_comm *comm, float *g, size_t n, float *tmp, optinc_ar_stats *st)
{
    int N = comm->servers, r = comm->rank, next = (r + 1) % N, prev = (r + N - 1) % N;
    size_t slo, shi, rlo, rhi;
    for (int s = 0; s < N - 1; s++) {
        optinc_ar_chunk(n, N, ((r - s) % N + N) % N, &slo, &shi);
        optinc_ar_chunk(n, N, ((r - 1 - s) % N + N) % N, &rlo, &rhi);
        MPI_Sendrecv(g + slo, (int)(shi - slo), MPI_FLOAT, next, s, tmp, (int)(rhi - rlo),
                     MPI_FLOAT, prev, s, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        optinc_ar_add(g + rlo, tmp, rhi - rlo);
        optinc_ar_count(st, r, next, (shi - slo) * sizeof(float));
    }
    optinc_ar_chunk(n, N, (r + 1) % N, &rlo, &rhi);
    optinc_ar_mean(g + rlo, rhi - rlo, N);
    for (int s = 0; s < N - 1; s++) {
        optinc_ar_chunk(n, N, ((r + 1 - s) % N + N) % N, &slo, &shi);
        optinc_ar_chunk(n, N, ((r - s) % N + N) % N, &rlo, &rhi);
        MPI_Sendrecv(g + slo, (int)(shi - slo), MPI_FLOAT, next, N + s, g + rlo,
                     (int)(rhi - rlo), MPI_FLOAT, prev, N + s, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        optinc_ar_count(st, r, next, (shi - slo) * sizeof(float));
    }
}

static void exact(const optinc_comm *comm, float *g, size_t n, float *recv, int *counts,
                  int *displs, optinc_ar_stats *st)
{
    int N = comm->servers, r = comm->rank, rc[OPTINC_AR_MAX_SERVERS], rd[OPTINC_AR_MAX_SERVERS];
    int len = counts[r];
    for (int i = 0; i < N; i++) {
        rc[i] = len;
        rd[i] = i * len;
    }
    MPI_Alltoallv(g, counts, displs, MPI_FLOAT, recv, rc, rd, MPI_FLOAT, MPI_COMM_WORLD);
    for (int i = 1; i < N; i++)
        optinc_ar_add(recv, recv + (size_t)i * (size_t)len, (size_t)len);
    optinc_ar_mean(recv, (size_t)len, N);
    MPI_Allgatherv(recv, len, MPI_FLOAT, g, counts, displs, MPI_FLOAT, MPI_COMM_WORLD);
    optinc_ar_count(st, r, -1, n * sizeof(float));
    optinc_ar_count(st, -1, r, n * sizeof(float));
}

static uint64_t quantized(const optinc_comm *comm, optinc_allreduce *ar, uint64_t step, float *g,
                          size_t n, uint16_t *codes, uint16_t *recv, float *absmax, int *counts,
                          int *displs, optinc_ar_stats *st)
{
    int N = comm->servers, r = comm->rank, rc[OPTINC_AR_MAX_SERVERS], rd[OPTINC_AR_MAX_SERVERS];
    int len = counts[r];
    size_t nb = optinc_ar_blocks(ar, n);
    optinc_ar_block_absmax(ar, g, n, absmax);
    MPI_Allreduce(MPI_IN_PLACE, absmax, (int)nb, MPI_UINT32_T, MPI_MAX, MPI_COMM_WORLD);
    optinc_ar_quantize(ar, g, 0, n, absmax, codes);
    for (int i = 0; i < N; i++) {
        rc[i] = len;
        rd[i] = i * len;
    }
    MPI_Alltoallv(codes, counts, displs, MPI_UINT16_T, recv, rc, rd, MPI_UINT16_T,
                  MPI_COMM_WORLD);
    const uint16_t *src[OPTINC_AR_MAX_SERVERS];
    for (int i = 0; i < N; i++)
        src[i] = recv + (size_t)i * (size_t)len;
    size_t lo = (size_t)displs[r];
    uint16_t *out = recv + (size_t)N * (size_t)len;
    uint64_t errors = optinc_ar_aggregate(ar, step, r, src, lo, lo + (size_t)len, out);
    MPI_Allgatherv(out, len, MPI_UINT16_T, codes, counts, displs, MPI_UINT16_T, MPI_COMM_WORLD);
    optinc_ar_decode(ar, codes, 0, n, absmax, g);
    uint64_t scale_bytes = nb * sizeof(float), code_bytes = optinc_ar_code_bytes(ar, n);
    optinc_ar_count(st, r, -1, scale_bytes);
    optinc_ar_count(st, -1, r, scale_bytes);
    optinc_ar_count(st, r, -1, code_bytes);
    optinc_ar_count(st, -1, r, code_bytes);
    return errors;
}

optinc_status optinc_comm_mpi_allreduce(const optinc_comm *comm, optinc_allreduce *ar,
                                        uint64_t step, float *grad, size_t n,
                                        optinc_ar_stats *stats, optinc_error *err)
{
    int N = comm->servers, r = comm->rank;
    const optinc_ar_config *cfg = optinc_allreduce_config(ar);
    if (cfg->servers != N)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "the all-reduce plan is for %d servers, MPI runs %d ranks: start "
                           "mpirun -np %d", cfg->servers, N, cfg->servers);
    if (n > (size_t)2147483647)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "%zu gradient elements: MPI counts are int, use fewer than 2^31", n);
    int counts[OPTINC_AR_MAX_SERVERS], displs[OPTINC_AR_MAX_SERVERS];
    chunk_layout(n, N, counts, displs);
    size_t len = (size_t)counts[r], maxlen = (n + (size_t)N - 1) / (size_t)N;
    int quant = cfg->kind == OPTINC_AR_OPTINC || cfg->kind == OPTINC_AR_QUANTIZED;
    size_t nb = quant ? optinc_ar_blocks(ar, n) : 0;
    float *fbuf = NULL, *absmax = NULL;
    uint16_t *codes = NULL, *recv = NULL;
    if (cfg->kind == OPTINC_AR_RING)
        fbuf = malloc((maxlen ? maxlen : 1) * sizeof *fbuf);
    else if (cfg->kind == OPTINC_AR_EXACT)
        fbuf = malloc(((size_t)N * len + 1) * sizeof *fbuf);
    else {
        absmax = malloc((nb + 1) * sizeof *absmax);
        codes = malloc((n + 1) * sizeof *codes);
        recv = malloc(((size_t)(N + 1) * len + 1) * sizeof *recv);
    }
    if (quant ? !absmax || !codes || !recv : !fbuf) {
        free(fbuf);
        free(absmax);
        free(codes);
        free(recv);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for the all-reduce");
    }
    optinc_ar_stats mine;
    memset(&mine, 0, sizeof mine);
    uint64_t errors = 0;
    if (cfg->kind == OPTINC_AR_RING)
        ring(comm, grad, n, fbuf, &mine);
    else if (cfg->kind == OPTINC_AR_EXACT)
        exact(comm, grad, n, fbuf, counts, displs, &mine);
    else
        errors = quantized(comm, ar, step, grad, n, codes, recv, absmax, counts, displs, &mine);
    free(fbuf);
    free(absmax);
    free(codes);
    free(recv);
    if (stats) {
        uint64_t local[4] = {mine.bytes_sent[r], mine.bytes_received[r], mine.messages[r],
                             errors};
        uint64_t all[4 * OPTINC_AR_MAX_SERVERS];
        MPI_Allgather(local, 4, MPI_UINT64_T, all, 4, MPI_UINT64_T, MPI_COMM_WORLD);
        stats->servers = N;
        for (int i = 0; i < N; i++) {
            stats->bytes_sent[i] += all[4 * i];
            stats->bytes_received[i] += all[4 * i + 1];
            stats->messages[i] += all[4 * i + 2];
            stats->injected_errors += all[4 * i + 3];
        }
    }
    return OPTINC_OK;
}

void optinc_comm_allgather(const optinc_comm *comm, const double *local, double *all, int k)
{
    if (comm->backend != OPTINC_BACKEND_MPI) {
        memcpy(all, local, (size_t)comm->servers * (size_t)k * sizeof *all);
        return;
    }
    MPI_Allgather(local, k, MPI_DOUBLE, all, k, MPI_DOUBLE, MPI_COMM_WORLD);
}

int64_t optinc_comm_sum(const optinc_comm *comm, int64_t v)
{
    if (comm->backend != OPTINC_BACKEND_MPI)
        return v;
    int64_t s;
    MPI_Allreduce(&v, &s, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

optinc_status optinc_comm_agree(const optinc_comm *comm, optinc_status st, optinc_error *err)
{
    if (comm->backend != OPTINC_BACKEND_MPI)
        return st;
    int mine = st ? comm->rank : comm->servers, lowest, status = (int)st;
    MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (lowest == comm->servers)
        return OPTINC_OK;
    optinc_error e;
    if (comm->rank == lowest && err)
        e = *err;
    else
        optinc_fail(&e, OPTINC_ERUN, NULL, 0, 0, "rank %d failed", lowest);
    MPI_Bcast(&status, 1, MPI_INT, lowest, MPI_COMM_WORLD);
    MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, lowest, MPI_COMM_WORLD);
    if (err)
        *err = e;
    return (optinc_status)status;
}

void optinc_comm_mpi_native(const optinc_comm *comm, float *g, size_t n)
{
    (void)comm;
    MPI_Allreduce(MPI_IN_PLACE, g, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

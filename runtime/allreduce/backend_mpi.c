/*
 * backend_mpi.c - the MPI backend of comm.h: one OpenMPI rank per server.
 *
 * Each algorithm moves real messages in the pattern of its network model and
 * runs the kernels of allreduce.c in the order the in-process emulation runs
 * them, so the bits agree:
 *
 *   ring       to the next rank / from the previous one, step by step: the
 *              reduce-scatter adds what it receives into its own copy
 *              (optinc_ar_add), the owner of a chunk divides it by N, the
 *              all-gather receives finished chunks in place;
 *   exact      an all-to-all of float slices (slice c to rank c), rank c adds
 *              the N slices in server order and divides, an all-gather;
 *   quantized, optinc
 *              the block maxima reduced with MPI_MAX on their bits, each rank
 *              quantizes its gradient, an all-to-all of code slices, rank c
 *              aggregates chunk c (table and injected errors of chunk c), an
 *              all-gather of the output codes, every rank decodes.
 *
 * The all-to-all + all-gather is how a cluster without the optical unit can
 * run the unit's function; the statistics still count the modelled star
 * (allreduce.h).  After each call the ranks exchange their counts, so every
 * rank holds the statistics of all servers, as in process.
 *
 * The watchdog.  A blocking MPI call waits forever for a rank that hangs, so
 * every exchange here is built from nonblocking operations (MPI_Isend/Irecv,
 * MPI_Ialltoallv, MPI_Iallgatherv, MPI_Iallreduce, MPI_Ibcast) that watch()
 * polls with MPI_Testall until they complete or comm->timeout_s passes.  It
 * spins for the first second of a wait, as OpenMPI's blocking calls do (with
 * sched_yield, so that ranks sharing a core get it, and every poll drives
 * MPI's progress, which large messages need), then sleeps 1 ms between polls,
 * so that a long wait (for a slow checkpoint, or for a rank that hangs)
 * costs no CPU and at most 0.1 % in latency.  The operations and their order
 * are those of the blocking calls, so the bits are too.
 *
 * To say who is missing, every exchange starts with a heartbeat: the rank
 * sends the number of exchanges it has entered to every peer (8 bytes each,
 * on a duplicate of MPI_COMM_WORLD so they never mix with the data), and
 * keeps one receive posted per peer.  Every rank runs the same sequence of
 * exchanges, so a peer whose count is below ours has not reached this one:
 * that is the rank that died or hangs.  N(N-1) small messages per exchange
 * are nothing next to a gradient for the N <= 16 servers of the experiments.
 * MPI errors are returned (MPI_ERRORS_RETURN) rather than fatal, and become
 * the same kind of fault.  The state is per process, as MPI's own is.
 */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "optinc/comm.h"

static struct watchdog {
    int ready;                /* wd_init done */
    MPI_Comm hb;              /* the heartbeats' communicator */
    int size, rank;
    uint64_t entered;         /* exchanges this rank has entered */
    uint64_t beat;            /* the count being sent */
    uint64_t *seen, *inbox;   /* per peer: latest count received; receive buffer */
    MPI_Request *recv, *send; /* per peer; MPI_REQUEST_NULL for this rank */
    int *done;                /* MPI_Testsome's indices */
    int failed;
    optinc_error fault;
} wd;

/* Records the fault that ends this rank's part in the job: "rank R: msg". */
static optinc_status fault(optinc_error *err, const char *msg)
{
    wd.failed = 1;
    optinc_fail(&wd.fault, OPTINC_ERUN, NULL, 0, 0, "rank %d: %s", wd.rank, msg);
    if (err)
        *err = wd.fault;
    return OPTINC_ERUN;
}

/* What every call returns after a fault. */
static optinc_status refuse(optinc_error *err)
{
    if (err)
        *err = wd.fault;
    return OPTINC_ERUN;
}

static optinc_status mpi_error(int rc, const char *what, optinc_error *err)
{
    char text[MPI_MAX_ERROR_STRING], msg[MPI_MAX_ERROR_STRING + 200];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    text[len] = '\0';
    snprintf(msg, sizeof msg, "MPI failed in the %s (%s): a rank died or the network failed",
             what, text);
    return fault(err, msg);
}

/* Takes in every heartbeat that has arrived and posts the next receives. */
static int wd_poll(void)
{
    int got = 0, rc = MPI_SUCCESS;
    do {
        rc = MPI_Testsome(wd.size, wd.recv, &got, wd.done, MPI_STATUSES_IGNORE);
        for (int i = 0; rc == MPI_SUCCESS && got != MPI_UNDEFINED && i < got; i++) {
            int p = wd.done[i];
            wd.seen[p] = wd.inbox[p] > wd.seen[p] ? wd.inbox[p] : wd.seen[p];
            rc = MPI_Irecv(&wd.inbox[p], 1, MPI_UINT64_T, p, 0, wd.hb, &wd.recv[p]);
        }
    } while (rc == MPI_SUCCESS && got != MPI_UNDEFINED && got > 0);
    return rc;
}

/* Nonzero when every peer has entered as many exchanges as this rank. */
static int caught_up(void)
{
    for (int p = 0; p < wd.size; p++)
        if (p != wd.rank && wd.seen[p] < wd.entered)
            return 0;
    return 1;
}

/* The timeout's message: the peers that never reached this exchange. */
static optinc_status stalled(const optinc_comm *comm, const char *what, optinc_error *err)
{
    char who[768] = "", msg[1000];
    size_t k = 0;
    int late = 0;
    for (int p = 0; p < wd.size && k < sizeof who - 16; p++)
        if (p != wd.rank && wd.seen[p] < wd.entered)
            k += (size_t)snprintf(who + k, sizeof who - k, "%s%d", late++ ? ", " : "", p);
    if (late)
        snprintf(msg, sizeof msg, "no progress from %s %s for %g s", late > 1 ? "ranks" : "rank",
                 who, comm->timeout_s);
    else
        snprintf(msg, sizeof msg, "the %s made no progress for %g s although every rank "
                 "reached it (a stalled network?)", what, comm->timeout_s);
    return fault(err, msg);
}

/* Waits for the n requests (and, with beats, for every peer's heartbeat of
 * this exchange) until comm->timeout_s; see the top of the file. */
static optinc_status wait_for(const optinc_comm *comm, int n, MPI_Request *req, int beats,
                              const char *what, optinc_error *err)
{
    double t0 = MPI_Wtime();
    for (;;) {
        int done = 1, rc = n ? MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
        if (rc == MPI_SUCCESS)
            rc = wd_poll();
        if (rc != MPI_SUCCESS)
            return mpi_error(rc, what, err);
        if (done && (!beats || caught_up()))
            return OPTINC_OK;
        double waited = MPI_Wtime() - t0;
        if (comm->timeout_s > 0.0 && waited >= comm->timeout_s)
            return stalled(comm, what, err);
        if (waited < 1.0)
            sched_yield();
        else
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}

/* Completes operations just started (rc: how starting them went). */
static optinc_status watch(const optinc_comm *comm, int rc, int n, MPI_Request *req,
                           const char *what, optinc_error *err)
{
    if (rc != MPI_SUCCESS)
        return mpi_error(rc, what, err);
    return wait_for(comm, n, req, 0, what, err);
}

/* Starts an exchange: the heartbeat to every peer. */
static optinc_status enter(const optinc_comm *comm, const char *what, optinc_error *err)
{
    if (wd.failed)
        return refuse(err);
    optinc_status st = wait_for(comm, wd.size, wd.send, 0, what, err);
    if (st)
        return st;
    wd.beat = ++wd.entered;
    int rc = MPI_SUCCESS;
    for (int p = 0; p < wd.size && rc == MPI_SUCCESS; p++)
        if (p != wd.rank)
            rc = MPI_Isend(&wd.beat, 1, MPI_UINT64_T, p, 0, wd.hb, &wd.send[p]);
    return rc == MPI_SUCCESS ? OPTINC_OK : mpi_error(rc, what, err);
}

static optinc_status wd_init(int size, int rank, optinc_error *err)
{
    if (wd.ready)
        return OPTINC_OK;
    wd.size = size;
    wd.rank = rank;
    wd.seen = calloc((size_t)size, sizeof *wd.seen);
    wd.inbox = calloc((size_t)size, sizeof *wd.inbox);
    wd.recv = malloc((size_t)size * sizeof *wd.recv);
    wd.send = malloc((size_t)size * sizeof *wd.send);
    wd.done = malloc((size_t)size * sizeof *wd.done);
    if (!wd.seen || !wd.inbox || !wd.recv || !wd.send || !wd.done)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for %d MPI ranks", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &wd.hb);
    for (int p = 0; p < size; p++)
        wd.recv[p] = wd.send[p] = MPI_REQUEST_NULL;
    for (int p = 0; p < size && rc == MPI_SUCCESS; p++)
        if (p != rank)
            rc = MPI_Irecv(&wd.inbox[p], 1, MPI_UINT64_T, p, 0, wd.hb, &wd.recv[p]);
    if (rc != MPI_SUCCESS)
        return mpi_error(rc, "start-up", err);
    wd.ready = 1;
    return OPTINC_OK;
}

/* Before MPI_Finalize: every peer's last heartbeat in, no receive left.
 * Nonzero when a peer never got there. */
static int wd_end(const optinc_comm *comm)
{
    if (wait_for(comm, wd.size, wd.send, 1, "shutdown", NULL))
        return -1;
    for (int p = 0; p < wd.size; p++)
        if (wd.recv[p] != MPI_REQUEST_NULL) {
            MPI_Cancel(&wd.recv[p]);
            MPI_Wait(&wd.recv[p], MPI_STATUS_IGNORE);
        }
    MPI_Comm_free(&wd.hb);
    free(wd.seen);
    free(wd.inbox);
    free(wd.recv);
    free(wd.send);
    free(wd.done);
    wd.ready = 0;
    return 0;
}

int optinc_comm_under_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMIX_RANK") != NULL ||
           getenv("PMI_SIZE") != NULL;
}

optinc_status optinc_comm_mpi_init(optinc_comm *comm, int *argc, char ***argv,
                                   optinc_error *err)
{
    int inited, size, rank;
    optinc_comm_inproc(comm, 1);    /* what comm is when MPI cannot start */
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
    comm->timeout_s = OPTINC_COMM_DEFAULT_TIMEOUT_S;
    optinc_status st = wd_init(size, rank, err);
    if (!st && size > OPTINC_AR_MAX_SERVERS)
        st = optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "%d MPI ranks: at most %d servers",
                         size, OPTINC_AR_MAX_SERVERS);
    return st;
}

void optinc_comm_finalize(optinc_comm *comm)
{
    int fin;
    if (comm->backend != OPTINC_BACKEND_MPI)
        return;
    MPI_Finalized(&fin);
    if (fin)
        return;
    if (wd.failed || (wd.ready && wd_end(comm)))
        optinc_comm_abort(comm, 1);
    MPI_Finalize();
}

int optinc_comm_failed(const optinc_comm *comm)
{
    return comm->backend == OPTINC_BACKEND_MPI && wd.failed;
}

void optinc_comm_abort(const optinc_comm *comm, int code)
{
    if (comm->backend == OPTINC_BACKEND_MPI)
        MPI_Abort(MPI_COMM_WORLD, code);
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

/* One ring step: chunk [slo, shi) of g to the next rank while receiving
 * rhi - rlo floats from the previous one into recv. */
static optinc_status ring_step(const optinc_comm *comm, const float *g, size_t slo, size_t shi,
                               float *recv, size_t rlo, size_t rhi, int tag, optinc_error *err)
{
    int N = comm->servers, r = comm->rank;
    MPI_Request rq[2];
    int rc = MPI_Irecv(recv, (int)(rhi - rlo), MPI_FLOAT, (r + N - 1) % N, tag, MPI_COMM_WORLD,
                       &rq[0]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(g + slo, (int)(shi - slo), MPI_FLOAT, (r + 1) % N, tag, MPI_COMM_WORLD,
                       &rq[1]);
    return watch(comm, rc, 2, rq, "ring all-reduce", err);
}

static optinc_status ring(const optinc_comm *comm, float *g, size_t n, float *tmp,
                          optinc_ar_stats *st, optinc_error *err)
{
    int N = comm->servers, r = comm->rank, next = (r + 1) % N;
    size_t slo, shi, rlo, rhi;
    optinc_status e;
    for (int s = 0; s < N - 1; s++) {
        optinc_ar_chunk(n, N, ((r - s) % N + N) % N, &slo, &shi);
        optinc_ar_chunk(n, N, ((r - 1 - s) % N + N) % N, &rlo, &rhi);
        if ((e = ring_step(comm, g, slo, shi, tmp, rlo, rhi, s, err)))
            return e;
        optinc_ar_add(g + rlo, tmp, rhi - rlo);
        optinc_ar_count(st, r, next, (shi - slo) * sizeof(float));
    }
    optinc_ar_chunk(n, N, (r + 1) % N, &rlo, &rhi);
    optinc_ar_mean(g + rlo, rhi - rlo, N);
    for (int s = 0; s < N - 1; s++) {
        optinc_ar_chunk(n, N, ((r + 1 - s) % N + N) % N, &slo, &shi);
        optinc_ar_chunk(n, N, ((r - s) % N + N) % N, &rlo, &rhi);
        if ((e = ring_step(comm, g, slo, shi, g + rlo, rlo, rhi, N + s, err)))
            return e;
        optinc_ar_count(st, r, next, (shi - slo) * sizeof(float));
    }
    return OPTINC_OK;
}

static optinc_status exact(const optinc_comm *comm, float *g, size_t n, float *recv,
                           int *counts, int *displs, optinc_ar_stats *st, optinc_error *err)
{
    int N = comm->servers, r = comm->rank, rc[OPTINC_AR_MAX_SERVERS], rd[OPTINC_AR_MAX_SERVERS];
    int len = counts[r];
    const char *what = "exact all-reduce";
    MPI_Request rq;
    optinc_status e;
    for (int i = 0; i < N; i++) {
        rc[i] = len;
        rd[i] = i * len;
    }
    if ((e = watch(comm, MPI_Ialltoallv(g, counts, displs, MPI_FLOAT, recv, rc, rd, MPI_FLOAT,
                                        MPI_COMM_WORLD, &rq), 1, &rq, what, err)))
        return e;
    for (int i = 1; i < N; i++)
        optinc_ar_add(recv, recv + (size_t)i * (size_t)len, (size_t)len);
    optinc_ar_mean(recv, (size_t)len, N);
    if ((e = watch(comm, MPI_Iallgatherv(recv, len, MPI_FLOAT, g, counts, displs, MPI_FLOAT,
                                         MPI_COMM_WORLD, &rq), 1, &rq, what, err)))
        return e;
    optinc_ar_count(st, r, -1, n * sizeof(float));
    optinc_ar_count(st, -1, r, n * sizeof(float));
    return OPTINC_OK;
}

/* The buffers of quantized(). */
typedef struct qbufs {
    uint16_t *codes, *recv;
    float *absmax;
} qbufs;

static optinc_status quantized(const optinc_comm *comm, optinc_allreduce *ar, uint64_t step,
                               float *g, size_t n, const qbufs *b, int *counts, int *displs,
                               optinc_ar_stats *st, uint64_t *errors, optinc_error *err)
{
    int N = comm->servers, r = comm->rank, rc[OPTINC_AR_MAX_SERVERS], rd[OPTINC_AR_MAX_SERVERS];
    int len = counts[r];
    size_t nb = optinc_ar_blocks(ar, n);
    const char *what = optinc_allreduce_config(ar)->kind == OPTINC_AR_OPTINC
                           ? "optinc all-reduce" : "quantized all-reduce";
    MPI_Request rq;
    optinc_status e;
    optinc_ar_block_absmax(ar, g, n, b->absmax);
    if ((e = watch(comm, MPI_Iallreduce(MPI_IN_PLACE, b->absmax, (int)nb, MPI_UINT32_T, MPI_MAX,
                                        MPI_COMM_WORLD, &rq), 1, &rq, what, err)))
        return e;
    optinc_ar_quantize(ar, g, 0, n, b->absmax, b->codes);
    for (int i = 0; i < N; i++) {
        rc[i] = len;
        rd[i] = i * len;
    }
    if ((e = watch(comm, MPI_Ialltoallv(b->codes, counts, displs, MPI_UINT16_T, b->recv, rc, rd,
                                        MPI_UINT16_T, MPI_COMM_WORLD, &rq), 1, &rq, what, err)))
        return e;
    const uint16_t *src[OPTINC_AR_MAX_SERVERS];
    for (int i = 0; i < N; i++)
        src[i] = b->recv + (size_t)i * (size_t)len;
    size_t lo = (size_t)displs[r];
    uint16_t *out = b->recv + (size_t)N * (size_t)len;
    *errors = optinc_ar_aggregate(ar, step, r, src, lo, lo + (size_t)len, out);
    if ((e = watch(comm, MPI_Iallgatherv(out, len, MPI_UINT16_T, b->codes, counts, displs,
                                         MPI_UINT16_T, MPI_COMM_WORLD, &rq), 1, &rq, what, err)))
        return e;
    optinc_ar_decode(ar, b->codes, 0, n, b->absmax, g);
    uint64_t scale_bytes = nb * sizeof(float), code_bytes = optinc_ar_code_bytes(ar, n);
    optinc_ar_count(st, r, -1, scale_bytes);
    optinc_ar_count(st, -1, r, scale_bytes);
    optinc_ar_count(st, r, -1, code_bytes);
    optinc_ar_count(st, -1, r, code_bytes);
    return OPTINC_OK;
}

/* Adds every rank's counts of this call to stats. */
static optinc_status gather_stats(const optinc_comm *comm, const optinc_ar_stats *mine,
                                  uint64_t errors, optinc_ar_stats *stats, optinc_error *err)
{
    int N = comm->servers, r = comm->rank;
    uint64_t local[4] = {mine->bytes_sent[r], mine->bytes_received[r], mine->messages[r],
                         errors};
    uint64_t all[4 * OPTINC_AR_MAX_SERVERS];
    MPI_Request rq;
    optinc_status e = watch(comm, MPI_Iallgather(local, 4, MPI_UINT64_T, all, 4, MPI_UINT64_T,
                                                 MPI_COMM_WORLD, &rq), 1, &rq,
                            "exchange of traffic counts", err);
    if (e)
        return e;
    stats->servers = N;
    for (int i = 0; i < N; i++) {
        stats->bytes_sent[i] += all[4 * i];
        stats->bytes_received[i] += all[4 * i + 1];
        stats->messages[i] += all[4 * i + 2];
        stats->injected_errors += all[4 * i + 3];
    }
    return OPTINC_OK;
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
    optinc_status st = enter(comm, "all-reduce", err);
    if (st)
        return st;
    int counts[OPTINC_AR_MAX_SERVERS], displs[OPTINC_AR_MAX_SERVERS];
    chunk_layout(n, N, counts, displs);
    size_t len = (size_t)counts[r], maxlen = (n + (size_t)N - 1) / (size_t)N;
    int quant = cfg->kind == OPTINC_AR_OPTINC || cfg->kind == OPTINC_AR_QUANTIZED;
    size_t nb = quant ? optinc_ar_blocks(ar, n) : 0;
    float *fbuf = NULL;
    qbufs b = {NULL, NULL, NULL};
    if (cfg->kind == OPTINC_AR_RING)
        fbuf = malloc((maxlen ? maxlen : 1) * sizeof *fbuf);
    else if (cfg->kind == OPTINC_AR_EXACT)
        fbuf = malloc(((size_t)N * len + 1) * sizeof *fbuf);
    else {
        b.absmax = malloc((nb + 1) * sizeof *b.absmax);
        b.codes = malloc((n + 1) * sizeof *b.codes);
        b.recv = malloc(((size_t)(N + 1) * len + 1) * sizeof *b.recv);
    }
    optinc_ar_stats mine;
    memset(&mine, 0, sizeof mine);
    uint64_t errors = 0;
    if (quant ? !b.absmax || !b.codes || !b.recv : !fbuf)
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for the all-reduce");
    else if (cfg->kind == OPTINC_AR_RING)
        st = ring(comm, grad, n, fbuf, &mine, err);
    else if (cfg->kind == OPTINC_AR_EXACT)
        st = exact(comm, grad, n, fbuf, counts, displs, &mine, err);
    else
        st = quantized(comm, ar, step, grad, n, &b, counts, displs, &mine, &errors, err);
    free(fbuf);
    free(b.absmax);
    free(b.codes);
    free(b.recv);
    if (!st && stats)
        st = gather_stats(comm, &mine, errors, stats, err);
    return st;
}

optinc_status optinc_comm_allgather(const optinc_comm *comm, const double *local, double *all,
                                    int k, optinc_error *err)
{
    if (comm->backend != OPTINC_BACKEND_MPI) {
        memcpy(all, local, (size_t)comm->servers * (size_t)k * sizeof *all);
        return OPTINC_OK;
    }
    const char *what = "all-gather of per-server values";
    MPI_Request rq;
    optinc_status st = enter(comm, what, err);
    return st ? st : watch(comm, MPI_Iallgather(local, k, MPI_DOUBLE, all, k, MPI_DOUBLE,
                                                MPI_COMM_WORLD, &rq), 1, &rq, what, err);
}

optinc_status optinc_comm_sum(const optinc_comm *comm, int64_t v, int64_t *sum,
                              optinc_error *err)
{
    *sum = v;
    if (comm->backend != OPTINC_BACKEND_MPI)
        return OPTINC_OK;
    MPI_Request rq;
    optinc_status st = enter(comm, "sum over ranks", err);
    return st ? st : watch(comm, MPI_Iallreduce(&v, sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD,
                                                &rq), 1, &rq, "sum over ranks", err);
}

optinc_status optinc_comm_agree(const optinc_comm *comm, optinc_status st, optinc_error *err)
{
    if (comm->backend != OPTINC_BACKEND_MPI)
        return st;
    const char *what = "agreement on the outcome";
    int mine = st ? comm->rank : comm->servers, lowest, status = (int)st;
    MPI_Request rq[2];
    optinc_status w = enter(comm, what, err);
    if (!w)
        w = watch(comm, MPI_Iallreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD,
                                       &rq[0]), 1, rq, what, err);
    if (w)
        return w;
    if (lowest == comm->servers)
        return OPTINC_OK;
    optinc_error e;
    if (comm->rank == lowest && err)
        e = *err;
    else
        optinc_fail(&e, OPTINC_ERUN, NULL, 0, 0, "rank %d failed", lowest);
    int rc = MPI_Ibcast(&status, 1, MPI_INT, lowest, MPI_COMM_WORLD, &rq[0]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Ibcast(&e, (int)sizeof e, MPI_BYTE, lowest, MPI_COMM_WORLD, &rq[1]);
    if ((w = watch(comm, rc, 2, rq, what, err)))
        return w;
    if (err)
        *err = e;
    return (optinc_status)status;
}

void optinc_comm_mpi_native(const optinc_comm *comm, float *g, size_t n)
{
    (void)comm;
    MPI_Allreduce(MPI_IN_PLACE, g, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

/*
 * backend_mpi.c - the MPI backend of comm.h: one OpenMPI rank per server.
 *
 * Each algorithm's MPI implementation (its own file) moves real messages in
 * the pattern of its network model through the exchanges below, and runs
 * the kernels of the in-process emulation in the same order, so the bits
 * agree.  After each all-reduce the ranks exchange their counts, so every
 * rank holds the statistics of all servers, as in process.
 *
 * The watchdog.  A blocking MPI call waits forever for a rank that hangs, so
 * every exchange here is built from nonblocking operations (MPI_Isend/Irecv,
 * MPI_Ialltoallv, MPI_Iallgatherv, MPI_Iallreduce, MPI_Ibcast) that watch()
 * polls with MPI_Testall until they complete or comm->timeout_s passes.  It
 * spins for the first SPIN_S of a wait, as OpenMPI's blocking calls do (with
 * sched_yield, and every poll drives MPI's progress, which large messages
 * need), then sleeps NAP_NS between polls up to a second, then 1 ms, so that
 * a long wait (for a slow checkpoint, or for a rank that hangs) costs no CPU
 * and at most 0.1 % in latency.  Why not spin longer: when ranks outnumber
 * the cores (4 or 16 ranks on 2 cores in make bench, or beside other jobs),
 * the peer a rank waits for is often the one that shares its core, and a
 * spinning rank takes that core back at every sched_yield: the switches
 * were most of the time of a large all-reduce.  Why spin at all: a nap
 * lasts about 70 us (20 us and the kernel's default timer slack of 50 us),
 * longer than the exchanges of a small gradient.  The optinc all-reduce on 4
 * ranks on 2 loaded cores, median of 40 calls, spinning up to 1 s / 50 us /
 * 1 ms: 16K floats 0.17-0.21 / 0.79-0.81 / 0.14-0.21 ms, 256K floats
 * 0.71-0.89 / 1.34-1.36 / 0.64-0.66 ms, 1M floats 7.7-8.1 / 3.0-3.3 /
 * 2.8-3.5 ms.  The operations and their order are those of the blocking
 * calls, so the bits are too.
 *
 * To say who is missing, every exchange starts with a heartbeat: the rank
 * sends every peer the number of exchanges it has entered, with the name of
 * this one and the step it belongs to (a beat, 64 bytes each, on a duplicate
 * of MPI_COMM_WORLD so they never mix with the data), and keeps one receive
 * posted per peer.  Every rank runs the same sequence of exchanges, so a
 * peer whose count is below ours has not reached this one: that is the rank
 * that died or hangs, and its last beat says where it stopped.  A peer
 * whose count equals ours but whose beat names another exchange or step has
 * taken another path through the run; only when every peer is in this very
 * exchange is the network the one left to blame.  A timeout says which of
 * these it saw (stalled()), never a guess between them.  N(N-1) small
 * messages per exchange are nothing next to a gradient for the N <= 16
 * servers of the experiments.  MPI errors are returned (MPI_ERRORS_RETURN)
 * rather than fatal, and become the same kind of fault, with the same
 * account of where each rank is.  The watchdog's state lives in the
 * communicator (comm->state), which its caller owns; MPI's own state is per
 * process.
 */
#include <limits.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "compiler/core/freeall.h"
#include "optinc/comm.h"
#include "runtime/allreduce/backend.h"
#include "runtime/allreduce/plan.h"

/* The spin at the start of a wait, and the naps after it until a second
 * has passed (see the top of the file for both figures). */
#define SPIN_S 1e-3
#define NAP_NS 20000

/* A heartbeat: where a rank is.  Sent as bytes: the ranks of a job run one
 * build on one kind of machine (the status agreement sends its error so). */
typedef struct beat {
    uint64_t count;           /* exchanges entered; 0: none yet */
    uint64_t step;            /* the caller's step of the latest all-reduce, 1-based; 0: none */
    char what[48];            /* the exchange entered, as in the messages */
} beat;

typedef struct watchdog {
    int ready;                /* wd_init done */
    MPI_Comm hb;              /* the heartbeats' communicator */
    int size, rank;
    uint64_t step;            /* the step of the next beat (set by the all-reduce) */
    beat out;                 /* this rank's latest beat: where it is; being sent */
    beat *seen, *inbox;       /* per peer: latest beat received; receive buffer */
    MPI_Request *recv, *send; /* per peer; MPI_REQUEST_NULL for this rank */
    int *done;                /* MPI_Testsome's indices */
    int failed;
    optinc_error fault;
} watchdog;

/* The watchdog of an MPI communicator. */
#define WD(comm) ((watchdog *)(comm)->state)

/* Records the fault that ends this rank's part in the job: "rank R: msg". */
static optinc_status fault(watchdog *wd, optinc_error *err, const char *msg)
{
    wd->failed = 1;
    optinc_fail(&wd->fault, OPTINC_ERUN, NULL, 0, 0, "rank %d: %s", wd->rank, msg);
    if (err)
        *err = wd->fault;
    return OPTINC_ERUN;
}

/* What every call returns after a fault. */
static optinc_status refuse(const watchdog *wd, optinc_error *err)
{
    if (err)
        *err = wd->fault;
    return OPTINC_ERUN;
}

/* Takes in every heartbeat that has arrived and posts the next receives. */
static int wd_poll(watchdog *wd)
{
    int got = 0, rc = MPI_SUCCESS;
    do {
        rc = MPI_Testsome(wd->size, wd->recv, &got, wd->done, MPI_STATUSES_IGNORE);
        for (int i = 0; rc == MPI_SUCCESS && got != MPI_UNDEFINED && i < got; i++) {
            int p = wd->done[i];
            if (wd->inbox[p].count > wd->seen[p].count)
                wd->seen[p] = wd->inbox[p];
            rc = MPI_Irecv(&wd->inbox[p], (int)sizeof(beat), MPI_BYTE, p, 0, wd->hb,
                           &wd->recv[p]);
        }
    } while (rc == MPI_SUCCESS && got != MPI_UNDEFINED && got > 0);
    return rc;
}

/* Nonzero when every peer has entered as many exchanges as this rank. */
static int caught_up(const watchdog *wd)
{
    for (int p = 0; p < wd->size; p++)
        if (p != wd->rank && wd->seen[p].count < wd->out.count)
            return 0;
    return 1;
}

/* " in step S" of a beat, or " before the first step". */
static const char *in_step(const beat *b, char *buf, size_t size)
{
    if (b->step)
        snprintf(buf, size, " in step %llu", (unsigned long long)b->step);
    else
        snprintf(buf, size, " before the first step");
    return buf;
}

/* Where a peer's last beat b is against this rank's `me`. */
enum { HERE, BEHIND, ELSEWHERE };
static int where_is(const beat *b, const beat *me)
{
    if (b->count < me->count)
        return BEHIND;
    if (b->count == me->count && (b->step != me->step || strcmp(b->what, me->what)))
        return ELSEWHERE;
    return HERE;   /* here, or already past it */
}

/* Appends "; rank P is still in X in step S" (or "entered", at the same
 * count) for every peer that is not where this rank is, as far as the
 * message has room. */
static void whereabouts(const watchdog *wd, char *msg, size_t size)
{
    size_t k = strlen(msg);
    for (int p = 0; p < wd->size && k + 120 < size; p++) {
        const beat *b = &wd->seen[p];
        int w = p == wd->rank ? HERE : where_is(b, &wd->out);
        char st[40];
        if (w != HERE)
            k += (size_t)snprintf(msg + k, size - k, "; rank %d %s the %s%s", p,
                                  w == BEHIND ? "is still in" : "entered",
                                  b->count ? b->what : "start-up", in_step(b, st, sizeof st));
    }
}

/* The account of an exchange that failed (`why`, after "the WHAT in step S
 * "): what this rank awaited, and where every other rank is. */
static optinc_status failed_in(optinc_comm *comm, const char *what, const char *why,
                               optinc_error *err)
{
    watchdog *wd = WD(comm);
    char msg[1000], st[40];
    snprintf(msg, sizeof msg, "the %s%s %s", what, in_step(&wd->out, st, sizeof st), why);
    whereabouts(wd, msg, sizeof msg);
    return fault(wd, err, msg);
}

static optinc_status mpi_error(optinc_comm *comm, int rc, const char *what,
                               optinc_error *err)
{
    char text[MPI_MAX_ERROR_STRING], why[MPI_MAX_ERROR_STRING + 40];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    text[len] = '\0';
    snprintf(why, sizeof why, "failed in MPI: %s", text);
    return failed_in(comm, what, why, err);
}

/* The timeout's message.  The peers whose count is below this rank's have
 * not reached this exchange: they are named, with the exchange they are
 * still in.  Peers at the same count in another exchange or step have taken
 * another path through the run.  Only when every peer has entered this very
 * exchange does the wait lie with MPI or the network, and it says so. */
static optinc_status stalled(optinc_comm *comm, const char *what, optinc_error *err)
{
    watchdog *wd = WD(comm);
    char who[768] = "", msg[1000], st[40];
    size_t k = 0;
    int late = 0, elsewhere = 0;
    for (int p = 0; p < wd->size; p++) {
        int w = p == wd->rank ? HERE : where_is(&wd->seen[p], &wd->out);
        if (w == BEHIND && k < sizeof who - 16)
            k += (size_t)snprintf(who + k, sizeof who - k, "%s%d", late++ ? ", " : "", p);
        elsewhere += w == ELSEWHERE;
    }
    if (late) {
        snprintf(msg, sizeof msg, "no progress from %s %s for %g s: this rank waits in the "
                 "%s%s", late > 1 ? "ranks" : "rank", who, comm->timeout_s, what,
                 in_step(&wd->out, st, sizeof st));
        whereabouts(wd, msg, sizeof msg);
        return fault(wd, err, msg);
    }
    snprintf(msg, sizeof msg, elsewhere ? "made no progress for %g s: the ranks entered "
             "different exchanges at the same point of the run"
             : "made no progress for %g s although every rank entered it: MPI did not "
             "complete it (a stalled network, or an MPI fault)", comm->timeout_s);
    return failed_in(comm, what, msg, err);
}

/* Waits for the n requests (and, with beats, for every peer's heartbeat of
 * this exchange) until comm->timeout_s; see the top of the file. */
static optinc_status wait_for(optinc_comm *comm, int n, MPI_Request *req, int beats,
                              const char *what, optinc_error *err)
{
    watchdog *wd = WD(comm);
    double t0 = MPI_Wtime();
    for (;;) {
        int done = 1, rc = n ? MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
        if (rc == MPI_SUCCESS)
            rc = wd_poll(wd);
        if (rc != MPI_SUCCESS)
            return mpi_error(comm, rc, what, err);
        if (done && (!beats || caught_up(wd)))
            return OPTINC_OK;
        double waited = MPI_Wtime() - t0;
        if (comm->timeout_s > 0.0 && waited >= comm->timeout_s)
            return stalled(comm, what, err);
        if (waited < SPIN_S)
            sched_yield();
        else if (waited < 1.0)
            nanosleep(&(struct timespec){0, NAP_NS}, NULL);
        else
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}

/* Completes operations just started (rc: how starting them went). */
static optinc_status watch(optinc_comm *comm, int rc, int n, MPI_Request *req,
                           const char *what, optinc_error *err)
{
    if (rc != MPI_SUCCESS)
        return mpi_error(comm, rc, what, err);
    return wait_for(comm, n, req, 0, what, err);
}

/* Starts an exchange: the heartbeat to every peer, once the last one is
 * out (its buffer is the beat rewritten here). */
static optinc_status enter(optinc_comm *comm, const char *what, optinc_error *err)
{
    watchdog *wd = WD(comm);
    if (wd->failed)
        return refuse(wd, err);
    optinc_status st = wait_for(comm, wd->size, wd->send, 0, what, err);
    if (st)
        return st;
    wd->out.count++;
    wd->out.step = wd->step;
    snprintf(wd->out.what, sizeof wd->out.what, "%s", what);
    int rc = MPI_SUCCESS;
    for (int p = 0; p < wd->size && rc == MPI_SUCCESS; p++)
        if (p != wd->rank)
            rc = MPI_Isend(&wd->out, (int)sizeof wd->out, MPI_BYTE, p, 0, wd->hb, &wd->send[p]);
    return rc == MPI_SUCCESS ? OPTINC_OK : mpi_error(comm, rc, what, err);
}

static optinc_status wd_init(optinc_comm *comm, int size, int rank, optinc_error *err)
{
    watchdog *wd = WD(comm);
    wd->size = size;
    wd->rank = rank;
    wd->seen = calloc((size_t)size, sizeof *wd->seen);
    wd->inbox = calloc((size_t)size, sizeof *wd->inbox);
    wd->recv = malloc((size_t)size * sizeof *wd->recv);
    wd->send = malloc((size_t)size * sizeof *wd->send);
    wd->done = malloc((size_t)size * sizeof *wd->done);
    if (!wd->seen || !wd->inbox || !wd->recv || !wd->send || !wd->done)
        return fault(wd, err, "out of memory for the watchdog");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &wd->hb);
    for (int p = 0; p < size; p++)
        wd->recv[p] = wd->send[p] = MPI_REQUEST_NULL;
    for (int p = 0; p < size && rc == MPI_SUCCESS; p++)
        if (p != rank)
            rc = MPI_Irecv(&wd->inbox[p], (int)sizeof(beat), MPI_BYTE, p, 0, wd->hb,
                           &wd->recv[p]);
    if (rc != MPI_SUCCESS)
        return mpi_error(comm, rc, "start-up", err);
    wd->ready = 1;
    return OPTINC_OK;
}

/* Before MPI_Finalize: a last beat that says this rank is done (so that a
 * peer still waiting elsewhere can say so), every peer's last beat in, no
 * receive left.  Nonzero when a peer never got there. */
static int wd_end(optinc_comm *comm)
{
    watchdog *wd = WD(comm);
    if (enter(comm, "shutdown", NULL) ||
        wait_for(comm, wd->size, wd->send, 1, "shutdown", NULL))
        return -1;
    for (int p = 0; p < wd->size; p++)
        if (wd->recv[p] != MPI_REQUEST_NULL) {
            MPI_Cancel(&wd->recv[p]);
            MPI_Wait(&wd->recv[p], MPI_STATUS_IGNORE);
        }
    MPI_Comm_free(&wd->hb);
    wd->ready = 0;
    return 0;
}

static void wd_free(watchdog *wd)
{
    if (!wd)
        return;
    OPTINC_FREE_ALL(wd->seen, wd->inbox, wd->recv, wd->send, wd->done, wd);
}


/* ---- the communicator ---------------------------------------------------- */

static optinc_status mpi_open(optinc_comm *comm, int servers, int *argc, char ***argv,
                              optinc_error *err)
{
    int inited, size, rank;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init(argc, argv) != MPI_SUCCESS)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0,
                           "MPI_Init failed: start the run with mpirun -np N (OpenMPI)");
    watchdog *wd = calloc(1, sizeof *wd);
    if (!wd)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    comm->ops = &optinc_comm_mpi_ops;
    comm->servers = size;
    comm->rank = rank;
    comm->first = rank;
    comm->count = 1;
    comm->timeout_s = OPTINC_COMM_DEFAULT_TIMEOUT_S;
    comm->state = wd;
    optinc_status st = wd_init(comm, size, rank, err);
    if (!st && size > OPTINC_AR_MAX_SERVERS)
        st = optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "%d MPI ranks: at most %d servers",
                         size, OPTINC_AR_MAX_SERVERS);
    return st;
}

static void mpi_close(optinc_comm *comm)
{
    watchdog *wd = WD(comm);
    int fin;
    MPI_Finalized(&fin);
    if (!fin) {
        if (wd->failed || (wd->ready && wd_end(comm)))
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Finalize();
    }
    wd_free(wd);
    comm->state = NULL;
}

static int mpi_failed(const optinc_comm *comm)
{
    return WD(comm)->failed;
}

static void mpi_abort(const optinc_comm *comm, int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
}

/* ---- the exchanges of the algorithms (backend.h) ------------------------- */

static MPI_Datatype mpi_type(optinc_mpi_type t)
{
    return t == OPTINC_MPI_F32 ? MPI_FLOAT : t == OPTINC_MPI_U8 ? MPI_UINT8_T
           : t == OPTINC_MPI_U16 ? MPI_UINT16_T : MPI_UINT32_T;
}
optinc_status optinc_mpi_shift(optinc_comm *comm, const void *send, size_t scount, void *recv,
                               size_t rcount, optinc_mpi_type type, int tag, const char *what,
                               optinc_error *err)
{
    int N = comm->servers, r = comm->rank;
    MPI_Request rq[2];
    int rc = MPI_Irecv(recv, (int)rcount, mpi_type(type), (r + N - 1) % N, tag, MPI_COMM_WORLD,
                       &rq[0]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(send, (int)scount, mpi_type(type), (r + 1) % N, tag, MPI_COMM_WORLD,
                       &rq[1]);
    return watch(comm, rc, 2, rq, what, err);
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

optinc_status optinc_mpi_scatter_chunks(optinc_comm *comm, const void *buf, size_t n,
                                        void *recv, optinc_mpi_type type, const char *what,
                                        optinc_error *err)
{
    int N = comm->servers, counts[OPTINC_AR_MAX_SERVERS], displs[OPTINC_AR_MAX_SERVERS];
    int rc[OPTINC_AR_MAX_SERVERS], rd[OPTINC_AR_MAX_SERVERS];
    chunk_layout(n, N, counts, displs);
    for (int i = 0; i < N; i++) {
        rc[i] = counts[comm->rank];
        rd[i] = i * counts[comm->rank];
    }
    MPI_Request rq;
    return watch(comm, MPI_Ialltoallv(buf, counts, displs, mpi_type(type), recv, rc, rd,
                                      mpi_type(type), MPI_COMM_WORLD, &rq), 1, &rq, what, err);
}

optinc_status optinc_mpi_gather_chunks(optinc_comm *comm, const void *mine, size_t n, void *buf,
                                       optinc_mpi_type type, const char *what,
                                       optinc_error *err)
{
    int counts[OPTINC_AR_MAX_SERVERS], displs[OPTINC_AR_MAX_SERVERS];
    chunk_layout(n, comm->servers, counts, displs);
    MPI_Request rq;
    return watch(comm, MPI_Iallgatherv(mine, counts[comm->rank], mpi_type(type), buf, counts,
                                       displs, mpi_type(type), MPI_COMM_WORLD, &rq), 1, &rq,
                 what, err);
}

optinc_status optinc_mpi_max_u32(optinc_comm *comm, void *v, size_t n, const char *what,
                                 optinc_error *err)
{
    MPI_Request rq;
    return watch(comm, MPI_Iallreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT32_T, MPI_MAX,
                                      MPI_COMM_WORLD, &rq), 1, &rq, what, err);
}

/* ---- the operations of comm.h -------------------------------------------- */

/* Adds every rank's counts of this call to stats. */
static optinc_status gather_stats(optinc_comm *comm, const optinc_ar_stats *mine,
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

static optinc_status mpi_allreduce(optinc_comm *comm, optinc_allreduce *ar, uint64_t step,
                                   float *const *grads, size_t n, optinc_ar_stats *stats,
                                   optinc_error *err)
{
    int N = comm->servers;
    const optinc_ar_config *cfg = optinc_allreduce_config(ar);
    if (cfg->servers != N)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "the all-reduce plan is for %d servers, MPI runs %d ranks: start "
                           "mpirun -np %d", cfg->servers, N, cfg->servers);
    if (n > (size_t)2147483647)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "%zu gradient elements: MPI counts are int, use fewer than 2^31", n);
    if (!cfg->algorithm->mpi)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "the %s all-reduce has no MPI implementation: use --backend inproc",
                           cfg->algorithm->name);
    uint64_t errors = 0;
    WD(comm)->step = step + 1;
    optinc_status st = enter(comm, ar->what, err);
    if (!st)
        st = cfg->algorithm->mpi(comm, ar, step, grads[0], n, &errors, err);
    if (!st && stats) {
        optinc_ar_stats mine;
        memset(&mine, 0, sizeof mine);
        optinc_ar_traffic(ar, n, comm->rank, &mine);
        st = gather_stats(comm, &mine, errors, stats, err);
    }
    return st;
}

/* The all-gathers of comm.h: n items of `type` from every rank, after the
 * heartbeat. */
static optinc_status gather(optinc_comm *comm, const void *mine, void *all, int n,
                            MPI_Datatype type, const char *what, optinc_error *err)
{
    MPI_Request rq;
    optinc_status st = enter(comm, what, err);
    return st ? st : watch(comm, MPI_Iallgather(mine, n, type, all, n, type, MPI_COMM_WORLD,
                                                &rq), 1, &rq, what, err);
}

static optinc_status mpi_allgather(optinc_comm *comm, const double *local, double *all, int k,
                                   optinc_error *err)
{
    return gather(comm, local, all, k, MPI_DOUBLE, "all-gather of per-server values", err);
}

static optinc_status mpi_allgather_bytes(optinc_comm *comm, const void *mine, void *all,
                                         size_t size, const char *what, optinc_error *err)
{
    if (size > (size_t)INT_MAX)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "%zu bytes to gather: at most %d",
                           size, INT_MAX);
    return gather(comm, mine, all, (int)size, MPI_BYTE, what, err);
}

static optinc_status mpi_sum(optinc_comm *comm, int64_t v, int64_t *sum, optinc_error *err)
{
    MPI_Request rq;
    *sum = v;
    optinc_status st = enter(comm, "sum over ranks", err);
    return st ? st : watch(comm, MPI_Iallreduce(&v, sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD,
                                                &rq), 1, &rq, "sum over ranks", err);
}

static optinc_status mpi_agree(optinc_comm *comm, optinc_status st, optinc_error *err)
{
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

static optinc_status mpi_native_sum(optinc_comm *comm, float *g, size_t n, optinc_error *err)
{
    int rc = MPI_Allreduce(MPI_IN_PLACE, g, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? OPTINC_OK : mpi_error(comm, rc, "MPI_Allreduce", err);
}

const optinc_comm_ops optinc_comm_mpi_ops = {
    .name = "mpi", .open = mpi_open, .close = mpi_close, .failed = mpi_failed, .abort = mpi_abort,
    .allreduce = mpi_allreduce, .allgather = mpi_allgather,
    .allgather_bytes = mpi_allgather_bytes, .sum = mpi_sum, .agree = mpi_agree,
    .native_sum = mpi_native_sum,
};

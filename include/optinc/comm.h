/*
 * comm.h - where the emulated servers run: all in this process, or one per
 * MPI rank (OpenMPI, `mpirun -np N`).
 *
 * The trainer is written once against this interface: it computes the
 * gradients of the servers this process runs (all N in process, its own
 * under MPI), asks the communicator to all-reduce them, and gathers per-server
 * metrics.  Both backends run the same kernels in the same order
 * (allreduce.h), and every server's state is replicated bit for bit, so a
 * seed gives the same weights on either.
 *
 * A backend is chosen once, by name, when the communicator is opened; the
 * communicator then carries the backend's operations and its state (the MPI
 * watchdog below), which belong to whoever owns the communicator.  MPI is
 * optional at build time: a build without it knows the name "mpi" and says
 * how to get it.
 *
 * MPI backend: ring is point-to-point in the ring's step order; exact,
 * quantized and optinc are an all-to-all of slices (slice c to rank c, the
 * aggregator of chunk c), the aggregation of each slice, and an all-gather;
 * the shared block scales are an all-reduce with MPI_MAX (exact in any
 * order).  Every rank holds the statistics of all servers.
 *
 * Faults (MPI).  A rank that dies or hangs must not leave the others waiting
 * forever, so the MPI backend never blocks in MPI: every exchange is made of
 * nonblocking operations that the rank polls (MPI_Testall) against a
 * deadline of comm->timeout_s seconds.  On entering an exchange each rank
 * also tells every other rank how many exchanges it has entered, which one
 * and in which step (a heartbeat, 64 bytes per peer), so a rank that waits
 * too long names the peers that never arrived and where they are, or the
 * peers that went into another exchange, and blames the network only when
 * every rank is in the one it waits in.  A timeout or an MPI error
 * (MPI_ERRORS_RETURN) marks the communicator failed: every later call
 * returns that error at once without touching MPI, and the caller must end
 * the whole job with optinc_comm_abort(), since the missing rank cannot take
 * part in an orderly shutdown.  A rank killed by a signal is normally noticed first by mpirun
 * itself (OpenMPI ends the job when a process dies), the timeout covers the
 * rest: a rank that hangs, a network that stalls, a launcher that keeps going.
 */
#ifndef OPTINC_COMM_H
#define OPTINC_COMM_H

#include <stddef.h>
#include <stdint.h>
#include "optinc/allreduce.h"
#include "optinc/error.h"

/* Seconds an MPI rank waits in one exchange before it gives up on its peers. */
#define OPTINC_COMM_DEFAULT_TIMEOUT_S 20.0

typedef struct optinc_comm_ops optinc_comm_ops;

typedef struct optinc_comm {
    const optinc_comm_ops *ops;   /* the backend */
    int servers;          /* N */
    int rank;             /* this process: 0 in process, the MPI rank */
    int first, count;     /* servers this process runs: [first, first + count) */
    double timeout_s;     /* MPI: the longest wait in one exchange; 0 waits forever */
    void *state;          /* the backend's own (MPI: the watchdog); NULL in process */
} optinc_comm;

/* Nonzero when `name` is a backend of optinc ("inproc", "mpi"), built into
 * this library or not. */
int optinc_comm_backend_known(const char *name);
/* OPTINC_OK when this build can run backend `name`; else OPTINC_EINPUT and
 * err says why (for "mpi" without MPI: "this optinc was built without MPI;
 * install libopenmpi-dev and rebuild"). */
optinc_status optinc_comm_backend_check(const char *name, optinc_error *err);
/* The backends' names joined as optinc_ar_names() joins the algorithms'. */
const char *optinc_comm_backend_names(const char *sep, const char *last, char *buf,
                                      size_t size);

/* Opens backend `name` on comm.  In process: `servers` servers here.  MPI:
 * initializes MPI (once per process; argc/argv go to MPI_Init) and makes
 * every rank one server, so the number of servers is the size of
 * MPI_COMM_WORLD; timeout_s starts at OPTINC_COMM_DEFAULT_TIMEOUT_S, and every
 * rank must use the same value (the trainer's ranks check it with their
 * settings).  When it fails before the backend is up, comm is left in
 * process with 1 server, so that agree and close still work. */
optinc_status optinc_comm_open(optinc_comm *comm, const char *name, int servers, int *argc,
                               char ***argv, optinc_error *err);
/* N servers in this process (optinc_comm_open of "inproc", which cannot fail). */
void optinc_comm_inproc(optinc_comm *comm, int servers);
/* Ends the backend: MPI_Finalize for MPI, nothing in process.  After a
 * fault, or when a peer does not reach the end within timeout_s, it ends the
 * whole job instead, as optinc_comm_abort(comm, 1) does. */
void optinc_comm_close(optinc_comm *comm);
/* Nonzero once an exchange has failed (a peer timed out, or MPI reported an
 * error); then every call of this interface fails with that error, and the
 * job must end through optinc_comm_abort().  Always 0 in process. */
int optinc_comm_failed(const optinc_comm *comm);
/* Ends every process of the job with exit status code (MPI_Abort); returns
 * only in process, where there is nothing to end. */
void optinc_comm_abort(const optinc_comm *comm, int code);

/* All-reduces the gradients of the local servers: grads[k] is server
 * first + k's gradient of n floats; on return each holds the average.  stats
 * (may be NULL) accumulates the counts of every server. */
optinc_status optinc_comm_allreduce(optinc_comm *comm, optinc_allreduce *ar, uint64_t step,
                                    float *const *grads, size_t n, optinc_ar_stats *stats,
                                    optinc_error *err);
/* all[s * k + j] = value j of server s, for all servers s, from local
 * (count * k values of the local servers). */
optinc_status optinc_comm_allgather(optinc_comm *comm, const double *local, double *all, int k,
                                    optinc_error *err);
/* all[q * size ...] = the `size` bytes at `mine` of process q, for every
 * process q: under MPI each rank (comm->servers of them), in process the one
 * (all gets mine).  Every process gives the same size, so no process sizes
 * a buffer from what another sends; `what` names the exchange in the
 * watchdog's messages.  The ranks' check of their settings
 * (runtime/train/agree.c) sends its fixed-size record so. */
optinc_status optinc_comm_allgather_bytes(optinc_comm *comm, const void *mine, void *all,
                                          size_t size, const char *what, optinc_error *err);
/* *sum = the sum over processes of a per-process integer. */
optinc_status optinc_comm_sum(optinc_comm *comm, int64_t v, int64_t *sum, optinc_error *err);
/* Makes every process agree on a status: when any failed, all return the
 * status and error of the lowest failing rank.  After a fault (see
 * optinc_comm_failed) no agreement is possible: it returns the fault. */
optinc_status optinc_comm_agree(optinc_comm *comm, optinc_status st, optinc_error *err);
/* The backend's own all-reduce, the baseline to measure against: under MPI,
 * MPI_Allreduce(MPI_SUM) of n floats in place (blocking, as a program would
 * call it; not watched).  OPTINC_EINPUT for a backend without one. */
optinc_status optinc_comm_native_sum(optinc_comm *comm, float *g, size_t n, optinc_error *err);
/* Seconds from a monotonic clock. */
double optinc_comm_time(const optinc_comm *comm);

#endif

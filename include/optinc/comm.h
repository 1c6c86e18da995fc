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
 * MPI backend: ring is point-to-point (MPI_Sendrecv) in the ring's step order;
 * exact, quantized and optinc are an all-to-all of slices (slice c to rank c,
 * the aggregator of chunk c), the aggregation of each slice, and an
 * all-gather; the shared block scales are an MPI_Allreduce with MPI_MAX
 * (exact in any order).  Every rank holds the statistics of all servers.
 *
 * Faults (MPI).  A rank that dies or hangs must not leave the others waiting
 * forever, so the MPI backend never blocks in MPI: every exchange is made of
 * nonblocking operations that the rank polls (MPI_Testall) against a
 * deadline of comm->timeout_s seconds.  On entering an exchange each rank
 * also tells every other rank how many exchanges it has entered (a heartbeat,
 * 8 bytes per peer), so a rank that waits too long names the peers that
 * never arrived.  A timeout or an MPI error (MPI_ERRORS_RETURN) marks the
 * communicator failed: every later call returns that error at once without
 * touching MPI, and the caller must end the whole job with
 * optinc_comm_abort(), since the missing rank cannot take part in an orderly
 * shutdown.  A rank killed by a signal is normally noticed first by mpirun
 * itself (OpenMPI ends the job when a process dies), the timeout covers the
 * rest: a rank that hangs, a network that stalls, a launcher that keeps going.
 */
#ifndef OPTINC_COMM_H
#define OPTINC_COMM_H

#include <stddef.h>
#include <stdint.h>
#include "optinc/allreduce.h"
#include "optinc/error.h"

typedef enum optinc_backend { OPTINC_BACKEND_INPROC = 0, OPTINC_BACKEND_MPI } optinc_backend;

/* Seconds an MPI rank waits in one exchange before it gives up on its peers. */
#define OPTINC_COMM_DEFAULT_TIMEOUT_S 20.0

typedef struct optinc_comm {
    optinc_backend backend;
    int servers;          /* N */
    int rank;             /* this process: 0 in process, the MPI rank */
    int first, count;     /* servers this process runs: [first, first + count) */
    double timeout_s;     /* MPI: the longest wait in one exchange; 0 waits forever */
} optinc_comm;

/* N servers in this process. */
void optinc_comm_inproc(optinc_comm *comm, int servers);
/* Initializes MPI (once per process) and makes every rank one server; the
 * number of servers is the size of MPI_COMM_WORLD.  timeout_s starts at
 * OPTINC_COMM_DEFAULT_TIMEOUT_S; every rank must use the same value. */
optinc_status optinc_comm_mpi_init(optinc_comm *comm, int *argc, char ***argv,
                                   optinc_error *err);
/* Ends MPI (MPI_Finalize) for the MPI backend; nothing in process.  After a
 * fault, or when a peer does not reach the end within timeout_s, it ends the
 * whole job instead, as optinc_comm_abort(comm, 1) does. */
void optinc_comm_finalize(optinc_comm *comm);
/* Nonzero once an exchange has failed (a peer timed out, or MPI reported an
 * error); then every call of this interface fails with that error, and the
 * job must end through optinc_comm_abort().  Always 0 in process. */
int optinc_comm_failed(const optinc_comm *comm);
/* Ends every process of the job with exit status code (MPI_Abort); returns
 * only in process, where there is nothing to end. */
void optinc_comm_abort(const optinc_comm *comm, int code);
/* Nonzero when the program was started by mpirun (OpenMPI's environment). */
int optinc_comm_under_mpirun(void);

/* All-reduces the gradients of the local servers: grads[k] is server
 * first + k's gradient of n floats; on return each holds the average. */
optinc_status optinc_comm_allreduce(const optinc_comm *comm, optinc_allreduce *ar, uint64_t step,
                                    float *const *grads, size_t n, optinc_ar_stats *stats,
                                    optinc_error *err);
/* The MPI implementation of the above (one gradient per rank). */
optinc_status optinc_comm_mpi_allreduce(const optinc_comm *comm, optinc_allreduce *ar,
                                        uint64_t step, float *grad, size_t n,
                                        optinc_ar_stats *stats, optinc_error *err);
/* all[s * k + j] = value j of server s, for all servers s, from local
 * (count * k values of the local servers). */
optinc_status optinc_comm_allgather(const optinc_comm *comm, const double *local, double *all,
                                    int k, optinc_error *err);
/* *sum = the sum over processes of a per-process integer. */
optinc_status optinc_comm_sum(const optinc_comm *comm, int64_t v, int64_t *sum,
                              optinc_error *err);
/* Makes every process agree on a status: when any failed, all return the
 * status and error of the lowest failing rank.  After a fault (see
 * optinc_comm_failed) no agreement is possible: it returns the fault. */
optinc_status optinc_comm_agree(const optinc_comm *comm, optinc_status st, optinc_error *err);
/* The native baseline: MPI_Allreduce(MPI_SUM) of n floats in place (blocking,
 * as a program would call it; not watched). */
void optinc_comm_mpi_native(const optinc_comm *comm, float *g, size_t n);
/* Seconds from a monotonic clock (MPI_Wtime under MPI). */
double optinc_comm_time(const optinc_comm *comm);

#endif

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
 */
#ifndef OPTINC_COMM_H
#define OPTINC_COMM_H

#include <stddef.h>
#include <stdint.h>
#include "optinc/allreduce.h"
#include "optinc/error.h"

typedef enum optinc_backend { OPTINC_BACKEND_INPROC = 0, OPTINC_BACKEND_MPI } optinc_backend;

typedef struct optinc_comm {
    optinc_backend backend;
    int servers;          /* N */
    int rank;             /* this process: 0 in process, the MPI rank */
    int first, count;     /* servers this process runs: [first, first + count) */
} optinc_comm;

/* N servers in this process. */
void optinc_comm_inproc(optinc_comm *comm, int servers);
/* Initializes MPI (once per process) and makes every rank one server; the
 * number of servers is the size of MPI_COMM_WORLD. */
optinc_status optinc_comm_mpi_init(optinc_comm *comm, int *argc, char ***argv,
                                   optinc_error *err);
/* Ends MPI (MPI_Finalize) for the MPI backend; nothing in process. */
void optinc_comm_finalize(optinc_comm *comm);
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
void optinc_comm_allgather(const optinc_comm *comm, const double *local, double *all, int k);
/* Sum over processes of a per-process integer. */
int64_t optinc_comm_sum(const optinc_comm *comm, int64_t v);
/* Makes every process agree on a status: when any failed, all return the
 * status and error of the lowest failing rank. */
optinc_status optinc_comm_agree(const optinc_comm *comm, optinc_status st, optinc_error *err);
/* The native baseline: MPI_Allreduce(MPI_SUM) of n floats in place. */
void optinc_comm_mpi_native(const optinc_comm *comm, float *g, size_t n);
/* Seconds from a monotonic clock (MPI_Wtime under MPI). */
double optinc_comm_time(const optinc_comm *comm);

#endif

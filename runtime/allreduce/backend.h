/*
 * backend.h - a backend of comm.h is one ops struct (Redis's ae.c habit: an
 * event loop over epoll or select, chosen once), and what the algorithms'
 * MPI implementations exchange through.  Private to runtime/allreduce/.
 *
 * comm.c holds the table of backends and dispatches every optinc_comm_*
 * call through comm->ops; a backend keeps its own state behind comm->state,
 * in the communicator its caller owns, never in a global.
 *
 * The exchanges below are those of the MPI backend (backend_mpi.c): each one
 * is watched (a peer that never arrives ends the wait after comm->timeout_s
 * with a message that names it) and fails at once after a fault.  Chunks are
 * those of optinc_ar_chunk(): chunk c of n elements belongs to rank c.
 */
#ifndef OPTINC_ALLREDUCE_BACKEND_H
#define OPTINC_ALLREDUCE_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include "optinc/comm.h"

struct optinc_comm_ops {
    const char *name;
    /* Sets up comm (servers: in process; MPI counts its ranks). */
    optinc_status (*open)(optinc_comm *comm, int servers, int *argc, char ***argv,
                          optinc_error *err);
    void (*close)(optinc_comm *comm);
    int (*failed)(const optinc_comm *comm);
    void (*abort)(const optinc_comm *comm, int code);
    optinc_status (*allreduce)(optinc_comm *comm, optinc_allreduce *ar, uint64_t step,
                               float *const *grads, size_t n, optinc_ar_stats *stats,
                               optinc_error *err);
    optinc_status (*allgather)(optinc_comm *comm, const double *local, double *all, int k,
                               optinc_error *err);
    optinc_status (*allgather_bytes)(optinc_comm *comm, const void *mine, void *all,
                                     size_t size, const char *what, optinc_error *err);
    optinc_status (*sum)(optinc_comm *comm, int64_t v, int64_t *sum, optinc_error *err);
    optinc_status (*agree)(optinc_comm *comm, optinc_status st, optinc_error *err);
    /* The backend's own sum all-reduce (NULL: none). */
    optinc_status (*native_sum)(optinc_comm *comm, float *g, size_t n, optinc_error *err);
};

extern const optinc_comm_ops optinc_comm_inproc_ops;

#ifdef OPTINC_HAVE_MPI
extern const optinc_comm_ops optinc_comm_mpi_ops;

typedef enum optinc_mpi_type {
    OPTINC_MPI_F32, OPTINC_MPI_U8, OPTINC_MPI_U16, OPTINC_MPI_U32
} optinc_mpi_type;

/* Sends send[0..scount) to the next rank while receiving rcount elements
 * from the previous one into recv (one step of a ring; tag numbers it). */
optinc_status optinc_mpi_shift(optinc_comm *comm, const void *send, size_t scount, void *recv,
                               size_t rcount, optinc_mpi_type type, int tag, const char *what,
                               optinc_error *err);
/* All-to-all of the chunks of buf (n elements): chunk c goes to rank c, and
 * recv receives every rank's copy of this rank's chunk, rank i's at
 * recv + i * (its length). */
optinc_status optinc_mpi_scatter_chunks(optinc_comm *comm, const void *buf, size_t n,
                                        void *recv, optinc_mpi_type type, const char *what,
                                        optinc_error *err);
/* All-gather of the chunks: rank c's `mine` (its chunk of n elements) lands
 * at chunk c of buf on every rank. */
optinc_status optinc_mpi_gather_chunks(optinc_comm *comm, const void *mine, size_t n, void *buf,
                                       optinc_mpi_type type, const char *what,
                                       optinc_error *err);
/* The n 32-bit words at v (float bits, say) become their element-wise
 * maximum over the ranks as unsigned integers, in place. */
optinc_status optinc_mpi_max_u32(optinc_comm *comm, void *v, size_t n, const char *what,
                                 optinc_error *err);
#endif

#endif

/*
 * workers.h - a fixed pool of threads that runs one job at a time: the
 * in-process all-reduce (runtime/allreduce/) and the per-chip
 * recompilation (runtime/sim/recompile_data.c) spread their work over it.
 *
 * A pool is made for the thread count its caller gave (the library never
 * guesses it) and runs fn(ctx, part, parts) once for every part
 * 0..parts-1.  The parts are a fixed partition of the job's work (the
 * callers cut their work by part number and part count alone); the threads,
 * the caller's among them, take the parts in turn, so which thread runs a
 * part, and when, changes no value, and a thread the system leaves waiting
 * does not hold up the others.
 */
#ifndef OPTINC_CORE_WORKERS_H
#define OPTINC_CORE_WORKERS_H

#include "optinc/error.h"

typedef struct optinc_workers optinc_workers;
typedef void (*optinc_job)(void *ctx, int part, int parts);

/* A pool of `threads` threads in all, the caller's included (threads - 1
 * are started, with every signal blocked); *out is NULL for 1 thread. */
optinc_status optinc_workers_new(int threads, optinc_workers **out, optinc_error *err);
/* Runs fn over every part of optinc_workers_parts(w) and returns when all
 * are done; w NULL runs the one part 0 of 1 here. */
void optinc_workers_run(optinc_workers *w, optinc_job fn, void *ctx);
/* The parts of a job: a few per thread, so that they balance (1 for NULL). */
int optinc_workers_parts(const optinc_workers *w);
void optinc_workers_free(optinc_workers *w);

#endif

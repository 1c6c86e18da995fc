/*
 * workers.c - a fixed pool of threads (workers.h): started once by its
 * user and woken for every job, since a training step all-reduces a
 * gradient of a few hundred kilobytes, for which starting threads each
 * time would cost a good part of the work.
 *
 * A job is PARTS_PER_THREAD parts per thread, handed out by an atomic
 * counter: every thread that is running takes the next part until none is
 * left.  The caller takes parts too, so on a busy machine, where a worker
 * may wait long for a core, the caller finishes the job alone rather than
 * wait for it.  One mutex guards the job: `start` wakes the workers for a
 * new one (a generation number tells a new job from a spurious wake-up),
 * `done` wakes the caller when the last part is finished and no worker is
 * still inside the job, and a worker that wakes to a finished job stays out
 * of it, so that a late worker never takes a part of the next job for this
 * one's.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "compiler/core/workers.h"

#define PARTS_PER_THREAD 8

typedef struct optinc_worker {
    optinc_workers *pool;
    pthread_t thread;
} optinc_worker;

struct optinc_workers {
    int threads, started;
    optinc_worker *worker;           /* threads - 1 */
    pthread_mutex_t lock;
    pthread_cond_t start, done;
    unsigned long generation;    /* jobs handed out so far */
    int inside;                  /* workers taking parts of the current job */
    int finished;                /* parts of the current job done */
    int quit;
    optinc_job fn;
    void *ctx;
    atomic_int next;             /* the next part to take */
};

/* Takes parts of the current job until none is left; returns how many it
 * ran. */
static int take_parts(optinc_workers *w, optinc_job fn, void *ctx)
{
    int parts = optinc_workers_parts(w), ran = 0;
    for (int p; (p = atomic_fetch_add(&w->next, 1)) < parts; ran++)
        fn(ctx, p, parts);
    return ran;
}

static void *worker_main(void *arg)
{
    optinc_workers *w = ((optinc_worker *)arg)->pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->generation == seen && !w->quit)
            pthread_cond_wait(&w->start, &w->lock);
        if (w->quit)
            break;
        seen = w->generation;
        /* The caller may have finished this job alone while this worker
         * waited for the lock; joining now would count it inside the next
         * job, whose counter the caller resets, and run that job's parts
         * with this one's function. */
        if (w->finished == optinc_workers_parts(w))
            continue;
        optinc_job fn = w->fn;
        void *ctx = w->ctx;
        w->inside++;
        pthread_mutex_unlock(&w->lock);
        int ran = take_parts(w, fn, ctx);
        pthread_mutex_lock(&w->lock);
        w->finished += ran;
        if (--w->inside == 0 && w->finished == optinc_workers_parts(w))
            pthread_cond_signal(&w->done);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

optinc_status optinc_workers_new(int threads, optinc_workers **out, optinc_error *err)
{
    *out = NULL;
    if (threads <= 1)
        return OPTINC_OK;
    optinc_workers *w = calloc(1, sizeof *w);
    if (!w || !(w->worker = calloc((size_t)threads - 1, sizeof *w->worker))) {
        free(w);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for %d threads",
                           threads);
    }
    w->threads = threads;
    atomic_init(&w->next, 0);
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->start, NULL);
    pthread_cond_init(&w->done, NULL);
    /* Signals stay with the program's own threads (its handlers expect them
     * there): the workers start with all of them blocked. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (; w->started < threads - 1; w->started++) {
        w->worker[w->started].pool = w;
        if (pthread_create(&w->worker[w->started].thread, NULL, worker_main,
                           &w->worker[w->started]))
            break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (w->started < threads - 1) {
        int started = w->started;
        optinc_workers_free(w);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0,
                           "could not start thread %d of %d: use fewer threads", started + 2,
                           threads);
    }
    *out = w;
    return OPTINC_OK;
}

void optinc_workers_run(optinc_workers *w, optinc_job fn, void *ctx)
{
    if (!w) {
        fn(ctx, 0, 1);
        return;
    }
    pthread_mutex_lock(&w->lock);
    w->fn = fn;
    w->ctx = ctx;
    w->finished = 0;
    atomic_store(&w->next, 0);
    w->generation++;
    pthread_cond_broadcast(&w->start);
    pthread_mutex_unlock(&w->lock);
    int ran = take_parts(w, fn, ctx);
    pthread_mutex_lock(&w->lock);
    w->finished += ran;
    while (w->inside || w->finished < optinc_workers_parts(w))
        pthread_cond_wait(&w->done, &w->lock);
    pthread_mutex_unlock(&w->lock);
}

int optinc_workers_parts(const optinc_workers *w)
{
    return w ? w->threads * PARTS_PER_THREAD : 1;
}

void optinc_workers_free(optinc_workers *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->quit = 1;
    pthread_cond_broadcast(&w->start);
    pthread_mutex_unlock(&w->lock);
    for (int k = 0; k < w->started; k++)
        pthread_join(w->worker[k].thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->start);
    pthread_cond_destroy(&w->done);
    free(w->worker);
    free(w);
}

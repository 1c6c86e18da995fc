/*
 * workers.c - a fixed pool of threads for the in-process all-reduce
 * (workers.h): started once with the plan and woken for every call, since a
 * training step all-reduces a gradient of a few hundred kilobytes, for
 * which starting threads each time would cost a good part of the work.
 *
 * One mutex and two condition variables: `start` wakes the workers for a new
 * job (a generation number tells a new job from a spurious wake-up), `done`
 * wakes the caller when the last one has finished its part.  The caller runs
 * part 0 itself, so a pool of T threads starts T - 1.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include "runtime/allreduce/workers.h"

typedef struct ar_worker {
    ar_workers *pool;
    int part;
    pthread_t thread;
} ar_worker;

struct ar_workers {
    int threads, started;
    ar_worker *worker;           /* threads - 1 */
    pthread_mutex_t lock;
    pthread_cond_t start, done;
    unsigned long generation;    /* jobs handed out so far */
    int running;                 /* workers still in the current job */
    int quit;
    ar_job fn;
    void *ctx;
};

static void *worker_main(void *arg)
{
    ar_worker *me = arg;
    ar_workers *w = me->pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->generation == seen && !w->quit)
            pthread_cond_wait(&w->start, &w->lock);
        if (w->quit)
            break;
        seen = w->generation;
        ar_job fn = w->fn;
        void *ctx = w->ctx;
        pthread_mutex_unlock(&w->lock);
        fn(ctx, me->part, w->threads);
        pthread_mutex_lock(&w->lock);
        if (--w->running == 0)
            pthread_cond_signal(&w->done);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

optinc_status ar_workers_new(int threads, ar_workers **out, optinc_error *err)
{
    *out = NULL;
    if (threads <= 1)
        return OPTINC_OK;
    ar_workers *w = calloc(1, sizeof *w);
    if (!w || !(w->worker = calloc((size_t)threads - 1, sizeof *w->worker))) {
        free(w);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for %d threads",
                           threads);
    }
    w->threads = threads;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->start, NULL);
    pthread_cond_init(&w->done, NULL);
    /* Signals stay with the program's own threads (its handlers expect them
     * there): the workers start with all of them blocked. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (; w->started < threads - 1; w->started++) {
        ar_worker *k = &w->worker[w->started];
        k->pool = w;
        k->part = w->started + 1;
        if (pthread_create(&k->thread, NULL, worker_main, k))
            break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (w->started < threads - 1) {
        int started = w->started;
        ar_workers_free(w);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0,
                           "could not start thread %d of %d: use fewer threads", started + 2,
                           threads);
    }
    *out = w;
    return OPTINC_OK;
}

void ar_workers_run(ar_workers *w, ar_job fn, void *ctx)
{
    if (!w) {
        fn(ctx, 0, 1);
        return;
    }
    pthread_mutex_lock(&w->lock);
    w->fn = fn;
    w->ctx = ctx;
    w->running = w->threads - 1;
    w->generation++;
    pthread_cond_broadcast(&w->start);
    pthread_mutex_unlock(&w->lock);
    fn(ctx, 0, w->threads);
    pthread_mutex_lock(&w->lock);
    while (w->running)
        pthread_cond_wait(&w->done, &w->lock);
    pthread_mutex_unlock(&w->lock);
}

int ar_workers_parts(const ar_workers *w)
{
    return w ? w->threads : 1;
}

void ar_workers_free(ar_workers *w)
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

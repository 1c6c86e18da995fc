/*
 * testutil.h - small helpers shared by the Criterion tests.
 *
 *   tu_run r = tu_optinc((const char *[]){"compile", spec, "-o", out, NULL});
 *   ... r.status (exit code, or 128+signal), r.out, r.err (captured text) ...
 *   tu_run_free(&r);
 *
 * tu_optinc_start() + tu_wait() run several programs at once (the program's
 * start-up, not its work, dominates short CLI checks, especially under ASan).
 *
 * The program is $OPTINC (set by `make check`; default build/optinc).  Tests
 * run from the repository root, so fixture paths such as "tests/bad/spec/x.yaml"
 * are relative to it.  Everything here is static inline so each test file
 * takes only what it uses, without unused-function warnings.
 */
#ifndef OPTINC_TESTUTIL_H
#define OPTINC_TESTUTIL_H

#include <dirent.h>
#include <math.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct tu_run {
    int status;     /* exit status; 128 + signal number when killed; -1 if it could not run */
    char *out;      /* captured stdout, NUL-terminated */
    char *err;      /* captured stderr, NUL-terminated */
    pid_t pid_;     /* private: the running child */
    char *dir_;     /* private: where its output is captured */
} tu_run;

/* The whole file as a NUL-terminated string (NULL if unreadable); *len may be NULL. */
static inline char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Writes the len bytes at data (NUL bytes too) to path; 0 on success. */
static inline int tu_write_bytes(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int bad = fwrite(data, 1, len, f) != len;
    return (fclose(f) != 0 || bad) ? -1 : 0;
}

/* Writes text to path; 0 on success. */
static inline int tu_write_file(const char *path, const char *text)
{
    return tu_write_bytes(path, text, strlen(text));
}

/* A new empty directory under $TMPDIR (or /tmp); free() the result. */
static inline char *tu_tempdir(void)
{
    const char *base = getenv("TMPDIR");
    char *path = malloc(4096);
    snprintf(path, 4096, "%s/optinc-test.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(path)) {
        free(path);
        return NULL;
    }
    return path;
}

/* A scratch directory per test: Test(s, t, .init = tu_scratch_init,
 * .fini = tu_scratch_fini); tu_scratch_dir() is its path and tu_scratch("f")
 * the path of a file in it, which tu_scratch_last() gives again (valid until
 * the next tu_scratch call). */
static inline char **tu_scratch_slot(void)
{
    static char *dir;
    return &dir;
}

static inline const char *tu_scratch_dir(void) { return *tu_scratch_slot(); }

static inline char *tu_scratch_last(void)
{
    static char path[4400];
    return path;
}

static inline const char *tu_scratch(const char *name)
{
    snprintf(tu_scratch_last(), 4400, "%s/%s", tu_scratch_dir(), name);
    return tu_scratch_last();
}

static inline void tu_rmtree(const char *path);

static inline void tu_scratch_init(void)
{
    *tu_scratch_slot() = tu_tempdir();
    if (!*tu_scratch_slot())
        abort();
}

static inline void tu_scratch_fini(void)
{
    tu_rmtree(tu_scratch_dir());
    free(*tu_scratch_slot());
    *tu_scratch_slot() = NULL;
}

/* Removes a file or a directory tree (a tu_tempdir()). */
static inline void tu_rmtree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                size_t n = strlen(path) + strlen(e->d_name) + 2;
                char *sub = malloc(n);
                snprintf(sub, n, "%s/%s", path, e->d_name);
                tu_rmtree(sub);
                free(sub);
            }
        closedir(d);
    }
    remove(path);
}

/* Number of entries in a directory, "." and ".." excluded (-1 if unreadable). */
static inline int tu_dir_count(const char *path)
{
    DIR *d = opendir(path);
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* Starts the program argv[0] with argv, stdout and stderr going to files;
 * tu_wait() collects them.  Start several before waiting to run them in parallel. */
static inline tu_run tu_start(char *const argv[])
{
    tu_run r = {-1, NULL, NULL, -1, tu_tempdir()};
    char out_path[4200], err_path[4200];
    if (!r.dir_)
        return r;
    snprintf(out_path, sizeof out_path, "%s/stdout", r.dir_);
    snprintf(err_path, sizeof err_path, "%s/stderr", r.dir_);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    extern char **environ;
    if (posix_spawn(&r.pid_, argv[0], &fa, NULL, argv, environ) != 0)
        r.pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    return r;
}

/* Waits for a tu_start()ed program and reads what it printed. */
static inline void tu_wait(tu_run *r)
{
    int ws;
    char out_path[4200], err_path[4200];
    if (!r->dir_)
        return;
    if (r->pid_ > 0 && waitpid(r->pid_, &ws, 0) == r->pid_)
        r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    snprintf(out_path, sizeof out_path, "%s/stdout", r->dir_);
    snprintf(err_path, sizeof err_path, "%s/stderr", r->dir_);
    r->out = tu_read_file(out_path, NULL);
    r->err = tu_read_file(err_path, NULL);
    tu_rmtree(r->dir_);
    free(r->dir_);
    r->dir_ = NULL;
    r->pid_ = -1;
}

/* The optinc program under test. */
static inline const char *tu_optinc_path(void)
{
    const char *p = getenv("OPTINC");
    return p && *p ? p : "build/optinc";
}

/* Starts "$OPTINC args..." (args NULL-terminated); finish with tu_wait(). */
static inline tu_run tu_optinc_start(const char *const args[])
{
    const char *argv[64];
    int n = 0;
    argv[n++] = tu_optinc_path();
    for (int i = 0; args[i] && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    return tu_start((char *const *)argv);
}

/* Runs "$OPTINC args..." to the end. */
static inline tu_run tu_optinc(const char *const args[])
{
    tu_run r = tu_optinc_start(args);
    tu_wait(&r);
    return r;
}

/* The number after the first "key": in a JSON text, NaN when there is none. */
static inline double tu_json_number(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(json, pat);
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}

static inline void tu_run_free(tu_run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* A command with a --threads option run four ways: args ends with
 * "--threads", "1" at [n - 2] and [n - 1] (then NULL); run[0] on 1 thread,
 * run[1] on 3, run[2] without the option and OPTINC_THREADS=2, run[3] with
 * OPTINC_THREADS=two, which must be a usage error (checked here).  args
 * comes back as it went in. */
static inline void tu_thread_runs(const char **args, int n, tu_run run[4])
{
    run[0] = tu_optinc(args);
    args[n - 1] = "3";
    run[1] = tu_optinc(args);
    args[n - 2] = NULL;
    setenv("OPTINC_THREADS", "2", 1);
    run[2] = tu_optinc(args);
    setenv("OPTINC_THREADS", "two", 1);
    run[3] = tu_optinc(args);
    unsetenv("OPTINC_THREADS");
    args[n - 2] = "--threads";
    args[n - 1] = "1";
    cr_assert_eq(run[0].status + run[1].status + run[2].status, 0, "%s%s%s", run[0].err,
                 run[1].err, run[2].err);
    cr_assert_eq(run[3].status, 2);
    cr_assert(strstr(run[3].err, "OPTINC_THREADS is 'two'"), "%s", run[3].err);
}

#endif

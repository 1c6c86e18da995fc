/*
 * test_atomic.c - every file optinc writes appears complete or not at all,
 * also when the program is killed while writing it.
 *
 * optinc writes each output to ".NAME.tmpXXXXXX" beside the target and
 * renames it over the target when complete (optinc_out_*, fileio.h).  So:
 *
 *  - after any kill the target holds either what it held before or exactly
 *    what an uninterrupted run writes, byte for byte;
 *  - SIGKILL between the temporary file's creation and the rename leaves
 *    that dot-file behind, and nothing else: it is never the target, matches
 *    no "*.sp" style glob and no optinc command reads it (tests/README);
 *  - a signal the program may catch (SIGINT, SIGTERM, SIGHUP, SIGXFSZ)
 *    removes the temporary files before it ends the program, which dies of
 *    it as it would have;
 *  - a write that fails (disk full, file too large) removes the temporary
 *    file, keeps the old target and exits 1 with a message.
 *
 * The kills come three ways: SIGKILL at random moments (half of them timed
 * into the write phase by watching for the temporary file); to be sure of
 * hitting the middle of a write on any machine, RLIMIT_FSIZE, which kills
 * the program with SIGXFSZ at an exact byte (or, with SIGXFSZ ignored, makes
 * that write fail with EFBIG, as a full disk would); and SIGINT, SIGTERM or
 * SIGHUP the moment a draw has staged its first drawing.  A reader polling the
 * target while a writer replaces it over and over never sees anything but
 * one of the complete versions.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "testutil.h"

/* ------------------------------------------------------------- helpers -- */

/* Writes NAME.yaml, a spec of one n x n Haar-random unitary layer, to the
 * scratch directory; returns its path (free it). */
static char *unitary_spec(const char *name, int n, int seed)
{
    char text[512], file[300];
    snprintf(text, sizeof text,
             "schema_version: 1\nname: %s\nmatrices:\n"
             "  W: {shape: [%d, %d], dtype: complex, generate: {kind: haar_unitary, seed: %d}}\n"
             "layers:\n  - {name: L1, matrix: W, attenuators: none}\n", name, n, n, seed);
    snprintf(file, sizeof file, "%s.yaml", name);
    cr_assert_eq(tu_write_file(tu_scratch(file), text), 0);
    return strdup(tu_scratch_last());
}

typedef struct child {
    pid_t pid;
    int err_fd;          /* read end of the child's stderr */
} child;

/* Starts "$OPTINC args..." with stdout to the descriptor out (-1: /dev/null)
 * and stderr to a pipe (pipes are not subject to RLIMIT_FSIZE); fsize > 0
 * limits the size of every file the program writes, and ignore_xfsz makes
 * going past it an EFBIG error instead of a kill; ignore_pipe has a write
 * to a pipe without a reader fail with EPIPE instead of killing it.  No
 * core files. */
static child start_fd(const char *const *args, long fsize, int ignore_xfsz, int out,
                      int ignore_pipe)
{
    const char *argv[32];
    int n = 0, fds[2];
    argv[n++] = tu_optinc_path();
    while (*args && n < 31)
        argv[n++] = *args++;
    argv[n] = NULL;
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        struct rlimit none = {0, 0}, lim = {(rlim_t)fsize, (rlim_t)fsize};
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(out >= 0 ? out : null, 1);
        dup2(fds[1], 2);
        close(fds[0]);
        setrlimit(RLIMIT_CORE, &none);
        if (fsize > 0)
            setrlimit(RLIMIT_FSIZE, &lim);
        signal(SIGXFSZ, ignore_xfsz ? SIG_IGN : SIG_DFL);
        /* A BLAS thread beside the one that writes (make check runs with
         * one), so a signal can land on another thread than the writer's
         * (the results stay those of one: optinc_linalg_deterministic). */
        setenv("OPENBLAS_NUM_THREADS", "2", 1);
        /* as from a terminal, whatever the test runner ignores */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, ignore_pipe ? SIG_IGN : SIG_DFL);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    return (child){pid, fds[0]};
}

/* start_fd with stdout to the file `out` (NULL: /dev/null). */
static child start_out(const char *const *args, long fsize, int ignore_xfsz, const char *out)
{
    int fd = out ? open(out, O_WRONLY) : -1;
    child c = start_fd(args, fsize, ignore_xfsz, fd, 0);
    if (fd >= 0)
        close(fd);
    return c;
}

static child start(const char *const *args, long fsize, int ignore_xfsz)
{
    return start_out(args, fsize, ignore_xfsz, NULL);
}

/* Waits for the child; returns its exit status, or 128 + signal; *err gets
 * what it wrote to stderr (free it) when err is not NULL. */
static int finish(child *c, char **err)
{
    char buf[8192];
    size_t len = 0;
    ssize_t got;
    while ((got = read(c->err_fd, buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)got;
    buf[len] = '\0';
    close(c->err_fd);
    int ws;
    cr_assert_eq(waitpid(c->pid, &ws, 0), c->pid);
    if (err)
        *err = strdup(buf);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static int run(const char *const *args)
{
    child c = start(args, 0, 0);
    return finish(&c, NULL);
}

/* The directory's entries other than the expected target, as one string of
 * names; *temps counts the dot-temporaries of the target among them. */
static void leftovers(const char *dir, const char *target, char *names, size_t size, int *temps)
{
    char prefix[300];
    snprintf(prefix, sizeof prefix, ".%s.tmp", target);
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    names[0] = '\0';
    *temps = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, target))
            continue;
        if (!strncmp(e->d_name, prefix, strlen(prefix)) &&
            strlen(e->d_name) == strlen(prefix) + 6)
            (*temps)++;
        snprintf(names + strlen(names), size - strlen(names), " %s", e->d_name);
    }
    closedir(d);
}

static void remove_temps(const char *dir, const char *target)
{
    char prefix[300], path[4600];
    snprintf(prefix, sizeof prefix, ".%s.tmp", target);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (!strncmp(e->d_name, prefix, strlen(prefix))) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
}

static int temp_exists(const char *dir, const char *target)
{
    char names[4096];
    int temps;
    leftovers(dir, target, names, sizeof names, &temps);
    return temps > 0;
}

/* 1 when the file at path holds exactly len bytes equal to want. */
static int same(const char *path, const char *want, size_t len)
{
    size_t n;
    char *got = tu_read_file(path, &n);
    int eq = got && n == len && !memcmp(got, want, len);
    free(got);
    return eq;
}

static void sleep_us(long us)
{
    struct timespec t = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&t, NULL);
}

/* One output of one command: how to run it to path, and its two versions. */
typedef struct output {
    const char *name;         /* the target's file name in dir */
    char dir[4400], path[4600];
    char *old, *ref;          /* complete contents: before, and what the run writes */
    size_t old_len, ref_len;
} output;

/* Runs args (with "OUT" replaced by the target) to completion. */
static void run_to(const char *const *args, const char *path)
{
    const char *a[32];
    int n = 0;
    for (; args[n]; n++)
        a[n] = strcmp(args[n], "OUT") ? args[n] : path;
    a[n] = NULL;
    cr_assert_eq(run(a), 0, "%s did not run", args[0]);
}

static child start_to(const char *const *args, const char *path, long fsize, int ignore)
{
    const char *a[32];
    int n = 0;
    for (; args[n]; n++)
        a[n] = strcmp(args[n], "OUT") ? args[n] : path;
    a[n] = NULL;
    return start(a, fsize, ignore);
}

/* Makes the reference (a full run of args) and the old version (a full run
 * of old_args) of the target name in a fresh directory, and leaves the old
 * version in place.  Every later run of args is the same build on the same
 * machine, so its complete output is the reference byte for byte, numbers
 * and all. */
static void prepare(output *o, const char *name, const char *const *args,
                    const char *const *old_args)
{
    o->name = name;
    snprintf(o->dir, sizeof o->dir, "%s/out", tu_scratch_dir());
    mkdir(o->dir, 0777);
    snprintf(o->path, sizeof o->path, "%s/%s", o->dir, name);
    run_to(args, o->path);
    o->ref = tu_read_file(o->path, &o->ref_len);
    run_to(old_args, o->path);
    o->old = tu_read_file(o->path, &o->old_len);
    cr_assert(o->ref && o->old && o->ref_len > 4096, "reference of %zu bytes", o->ref_len);
    cr_assert(o->old_len != o->ref_len || memcmp(o->old, o->ref, o->ref_len),
              "old and new must differ");
}

/* After a run that was killed or failed: the target is complete (old or new)
 * and at most one dot-temporary (when allowed) is beside it; returns whether
 * there was one. */
static int check_target(const output *o, int temp_allowed, const char *when)
{
    int is_old = same(o->path, o->old, o->old_len), is_new = same(o->path, o->ref, o->ref_len);
    cr_expect(is_old || is_new, "%s: %s is neither the old nor the new version", when, o->path);
    char names[4096];
    int temps;
    leftovers(o->dir, o->name, names, sizeof names, &temps);
    cr_expect(temps <= (temp_allowed ? 1 : 0) && (int)(strlen(names) > 0) == (temps > 0),
              "%s: left behind:%s", when, names);
    return temps;
}

static void free_output(output *o)
{
    free(o->old);
    free(o->ref);
}

/* Two writers of one file each: the netlist (compile -o) and a matrix
 * (simulate --matrix, .npy); args write the version of spec big, old that of
 * spec small. */
typedef struct writer {
    const char *name;
    const char *args[8], *old[8];
} writer;

static void two_writers(writer w[2], const char *big, const char *small)
{
    for (int v = 0; v < 2; v++) {
        const char *spec = v ? small : big;
        const char **net = v ? w[0].old : w[0].args, **mat = v ? w[1].old : w[1].args;
        const char *n[] = {"compile", spec, "-o", "OUT", "--reproducible", "--quiet", NULL};
        const char *m[] = {"simulate", spec, "--ideal", "--matrix", "OUT", NULL};
        memcpy(net, n, sizeof n);
        memcpy(mat, m, sizeof m);
    }
    w[0].name = "net.sp";
    w[1].name = "t.npy";
}

/* ---------------------------------------------------------------- tests -- */

/* SIGKILL at random moments, 16 times: each time the target is complete. */
Test(atomic, compile_killed_at_random_moments, .init = tu_scratch_init,
     .fini = tu_scratch_fini, .timeout = 120)
{
    char *big = unitary_spec("big", 192, 3), *small = unitary_spec("small", 24, 5);
    writer w[2];
    two_writers(w, big, small);
    const char *const *args = w[0].args;
    output o;
    prepare(&o, w[0].name, args, w[0].old);
    unsigned seed = 20240607;
    int mid_write = 0, finished = 0;
    enum { N = 16 };
    for (int i = 0; i < N; i++) {
        child c = start_to(args, o.path, 0, 0);
        if (i % 2 == 0) {
            /* into the write phase: wait for the temporary file, then up to
             * 40 ms more (writing the 2 MB netlist takes ~60 ms) */
            for (int k = 0; k < 20000 && !temp_exists(o.dir, o.name); k++)
                sleep_us(100);
            sleep_us(rand_r(&seed) % 40000);
        } else {
            sleep_us(rand_r(&seed) % 400000);   /* anywhere in the run */
        }
        kill(c.pid, SIGKILL);
        int status = finish(&c, NULL);
        finished += status == 0;
        char when[64];
        snprintf(when, sizeof when, "kill %d (exit %d)", i, status);
        mid_write += check_target(&o, 1, when);
        /* A stale temporary never stops a reader of the target. */
        if (i == N - 1)
            cr_expect_eq(run((const char *[]){"simulate", o.path, "--ideal", NULL}), 0);
        remove_temps(o.dir, o.name);
    }
    cr_log_info("%d kills: %d mid-write (temporary left), %d after the run ended", N, mid_write,
                finished);
    cr_expect_geq(mid_write, 1, "no kill landed in the middle of a write");
    free_output(&o);
    free(big);
    free(small);
}

/* Killed at exact bytes of the write by RLIMIT_FSIZE (SIGXFSZ), for three
 * writers: the netlist (compile -o), a matrix (simulate --matrix, .npy) and
 * a drawing (draw, .svg). */
Test(atomic, killed_at_exact_bytes, .init = tu_scratch_init, .fini = tu_scratch_fini,
     .timeout = 120)
{
    char *big = unitary_spec("big", 48, 3), *small = unitary_spec("small", 8, 5);
    writer writers[2];
    two_writers(writers, big, small);
    for (size_t w = 0; w < 2; w++) {
        output o;
        prepare(&o, writers[w].name, writers[w].args, writers[w].old);
        long cut[] = {1, 4096, (long)o.ref_len / 2, (long)o.ref_len - 1};
        for (int k = 0; k < 4; k++) {
            child c = start_to(writers[w].args, o.path, cut[k], 0);
            int status = finish(&c, NULL);
            char when[128];
            snprintf(when, sizeof when, "%s cut at %ld of %zu bytes", o.name, cut[k], o.ref_len);
            cr_expect_eq(status, 128 + SIGXFSZ, "%s: exit %d", when, status);
            cr_expect(same(o.path, o.old, o.old_len), "%s: the old file changed", when);
            /* the partial bytes were only ever in the temporary, which the
             * signal removed */
            cr_expect_eq(check_target(&o, 0, when), 0, "%s: a temporary was left", when);
            remove_temps(o.dir, o.name);
        }
        free_output(&o);
        unlink(o.path);
        rmdir(o.dir);
    }
    /* draw: each file of the directory whole, or the old one */
    char dir[4400], svg[4600];
    snprintf(dir, sizeof dir, "%s/drawing", tu_scratch_dir());
    const char *draw[] = {"draw", big, "-o", dir, "--format", "svg", NULL};
    cr_assert_eq(run(draw), 0);
    snprintf(svg, sizeof svg, "%s/big_L1.svg", dir);
    size_t len;
    char *ref = tu_read_file(svg, &len);
    cr_assert_not_null(ref, "draw wrote no %s", svg);
    int files = tu_dir_count(dir);
    child c = start(draw, (long)len / 2, 0);
    cr_expect_eq(finish(&c, NULL), 128 + SIGXFSZ);
    cr_expect(same(svg, ref, len), "the drawing changed");
    cr_expect_eq(tu_dir_count(dir), files, "draw left a temporary");
    free(ref);
    free(big);
    free(small);
}

/* A write that fails (EFBIG, as a full disk gives ENOSPC) is an error of
 * the run: exit 1, a message naming the file and the reason, the old file
 * kept and no temporary left; for every writer, Graphviz's included. */
Test(atomic, failed_write_keeps_the_old_file, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    char *big = unitary_spec("big", 48, 3), *small = unitary_spec("small", 8, 5);
    writer writers[2];
    two_writers(writers, big, small);
    for (size_t w = 0; w < 2; w++) {
        output o;
        prepare(&o, writers[w].name, writers[w].args, writers[w].old);
        char *err = NULL;
        child c = start_to(writers[w].args, o.path, (long)o.ref_len / 2, 1);
        int status = finish(&c, &err);
        cr_expect_eq(status, 1, "%s: exit %d: %s", o.name, status, err);
        char named[4700];
        snprintf(named, sizeof named, "error: cannot write '%s': File too large", o.path);
        cr_expect(strstr(err, named), "%s: %s", o.name, err);
        cr_expect(same(o.path, o.old, o.old_len), "%s: the old file changed", o.name);
        check_target(&o, 0, o.name);
        free(err);
        free_output(&o);
        unlink(o.path);
        rmdir(o.dir);
    }
    /* Graphviz ends the program when a write fails; the stream it writes to
     * never fails, so draw too reports the file and leaves nothing behind:
     * onto a file that outgrows its limit, and (as root) onto a device node
     * that is always full (the numbers of /dev/full), written in place. */
    char dir[4400], svg[4600], want[9400];
    snprintf(dir, sizeof dir, "%s/drawing", tu_scratch_dir());
    snprintf(svg, sizeof svg, "%s/big_L1.svg", dir);
    const char *draw[] = {"draw", big, "-o", dir, "--format", "svg", NULL};
    for (int full = 0; full < 2; full++) {
        mkdir(dir, 0777);
        if (full && mknod(svg, S_IFCHR | 0666, makedev(1, 7)) != 0)
            break;
        char *err = NULL;
        child c = start(draw, full ? 0 : 20000, 1);
        int status = finish(&c, &err);
        snprintf(want, sizeof want, "%s: error: cannot write '%s': %s", svg, svg,
                 full ? "No space left on device" : "File too large");
        cr_expect_eq(status, 1, "exit %d: %s", status, err);
        cr_expect(strstr(err, want), "%s", err);
        struct stat sb;
        cr_expect_eq(tu_dir_count(dir), full, "draw left files behind");
        cr_expect(!full || (stat(svg, &sb) == 0 && S_ISCHR(sb.st_mode)), "the device changed");
        free(err);
        unlink(svg);
        rmdir(dir);
    }
    free(big);
    free(small);
}

/* While a writer replaces the target again and again (two versions, in
 * turn), a reader that opens and reads it whenever it can only ever sees one
 * of the two, whole. */
Test(atomic, readers_never_see_a_partial_file, .init = tu_scratch_init,
     .fini = tu_scratch_fini, .timeout = 120)
{
    char *a = unitary_spec("a", 96, 3), *b = unitary_spec("b", 64, 5);
    writer w[2];
    two_writers(w, a, b);
    const char *const *args_a = w[0].args, *const *args_b = w[0].old;
    output o;
    prepare(&o, w[0].name, args_a, args_b);
    int reads = 0, seen[2] = {0, 0};
    for (int round = 0; round < 8; round++) {
        child c = start_to(round % 2 ? args_b : args_a, o.path, 0, 0);
        for (;;) {
            int done = waitpid(c.pid, NULL, WNOHANG) == c.pid;
            size_t n;
            char *got = tu_read_file(o.path, &n);
            cr_assert_not_null(got, "the target vanished");
            int is_a = n == o.ref_len && !memcmp(got, o.ref, n);
            int is_b = n == o.old_len && !memcmp(got, o.old, n);
            cr_assert(is_a || is_b, "read %d: %zu bytes that are neither version", reads, n);
            seen[is_a]++;
            reads++;
            free(got);
            if (done) {
                c.pid = -1;
                break;
            }
        }
        close(c.err_fd);
    }
    cr_log_info("%d whole reads (%d of one version, %d of the other)", reads, seen[1], seen[0]);
    cr_expect_gt(seen[0], 0);
    cr_expect_gt(seen[1], 0);
    check_target(&o, 0, "after the writers");
    free_output(&o);
    free(a);
    free(b);
}

/* What an output path already is decides how it is written, so that no
 * output ever replaces what is not a file (run as root, a rename onto
 * /dev/null would make the null device a regular file): devices and FIFOs
 * are written in place and stay what they were, a symbolic link is followed
 * and stays a link, a folder or a dangling link is refused before anything
 * is written.  The device nodes are made in the scratch folder (the null
 * and full devices' numbers, 1:3 and 1:7), never touched under /dev; they
 * need root, so without it only the rest is checked. */
Test(atomic, outputs_onto_devices_links_and_folders, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    char *spec = unitary_spec("dev", 4, 2);
    char null_dev[400], full_dev[400], fifo[400], file[400], link[400], dangling[400],
        folder[400];
    snprintf(null_dev, sizeof null_dev, "%s/null", tu_scratch_dir());
    snprintf(full_dev, sizeof full_dev, "%s/full", tu_scratch_dir());
    snprintf(fifo, sizeof fifo, "%s/fifo", tu_scratch_dir());
    snprintf(file, sizeof file, "%s/real.pnl.sp", tu_scratch_dir());
    snprintf(link, sizeof link, "%s/link.pnl.sp", tu_scratch_dir());
    snprintf(dangling, sizeof dangling, "%s/dangling.pnl.sp", tu_scratch_dir());
    snprintf(folder, sizeof folder, "%s/folder", tu_scratch_dir());
    int devices = mknod(null_dev, S_IFCHR | 0666, makedev(1, 3)) == 0 &&
                  mknod(full_dev, S_IFCHR | 0666, makedev(1, 7)) == 0;
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(tu_write_file(file, "old\n"), 0);
    cr_assert_eq(symlink("real.pnl.sp", link), 0);
    cr_assert_eq(symlink("nowhere/x.pnl.sp", dangling), 0);
    cr_assert_eq(mkdir(folder, 0700), 0);
    struct {
        const char *path;
        int status;
        const char *message;
    } cases[] = {
        {null_dev, 0, NULL},
        {full_dev, 1, "No space left on device"},
        {fifo, 1, "a FIFO with no reader"},
        {link, 0, NULL},
        {dangling, 2, "is a symbolic link to nothing"},
        {folder, 2, "is a folder, not a file"},
    };
    for (size_t i = devices ? 0 : 2; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = tu_optinc((const char *[]){"compile", spec, "-o", cases[i].path, NULL});
        cr_expect_eq(r.status, cases[i].status, "%s: exit %d: %s", cases[i].path, r.status,
                     r.err);
        if (cases[i].message)
            cr_expect(r.err && strstr(r.err, cases[i].message), "%s: %s", cases[i].path,
                      r.err);
        tu_run_free(&r);
    }
    struct stat sb;
    if (devices) {
        cr_expect(stat(null_dev, &sb) == 0 && S_ISCHR(sb.st_mode), "the null device changed");
        cr_expect(stat(full_dev, &sb) == 0 && S_ISCHR(sb.st_mode), "the full device changed");
    }
    cr_expect(stat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode), "the FIFO changed");
    cr_expect(lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode), "the link became a file");
    char *text = tu_read_file(file, NULL);
    cr_expect(text && !strncmp(text, "* PNL 1.0", 9), "the link's file was not written");
    free(text);
    cr_expect(lstat(dangling, &sb) == 0 && S_ISLNK(sb.st_mode), "the dangling link changed");
    cr_expect(stat(folder, &sb) == 0 && S_ISDIR(sb.st_mode), "the folder changed");
    /* nothing else appeared: the six paths, the spec and the link's file */
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), devices ? 8 : 6);
    free(spec);
}

/* Standard output that cannot be written (a redirection onto a full disk;
 * here a device node with the numbers of /dev/full, made in the scratch
 * folder) fails the run: exit 1 and a message, not success with nothing
 * written; --help and --version too, the program's and a command's. */
Test(atomic, unwritable_standard_output_fails, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    char *spec = unitary_spec("u", 4, 1);
    char full[4400];
    snprintf(full, sizeof full, "%s/full", tu_scratch_dir());
    if (mknod(full, S_IFCHR | 0666, makedev(1, 7)) != 0)
        cr_skip_test("cannot make a device node here (not root)");
    const struct {
        const char *args[4], *who;
    } runs[] = {{{"compile", spec, "--json"}, "optinc compile"},
                {{"--help"}, "optinc --help"},
                {{"--version"}, "optinc --version"},
                {{"compile", "--help"}, "optinc compile"}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char *err = NULL, want[128];
        child c = start_out(runs[i].args, 0, 0, full);
        int status = finish(&c, &err);
        cr_expect_eq(status, 1, "%s: exit %d: %s", runs[i].who, status, err);
        snprintf(want, sizeof want, "%s: error: cannot write the standard output: No space "
                                    "left on device", runs[i].who);
        cr_expect(strstr(err, want), "%s", err);
        free(err);
    }
    struct stat sb;
    cr_expect(stat(full, &sb) == 0 && S_ISCHR(sb.st_mode), "the device changed");
    free(spec);
}

/* A replaced output keeps its permissions and (as root, who may give files
 * away) its owner, as a rewrite in place would; a new one gets 0666 less
 * the umask. */
Test(atomic, replaced_file_keeps_mode_and_owner, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    char *spec = unitary_spec("u", 4, 1);
    char out[4400], fresh[4400];
    snprintf(out, sizeof out, "%s/old.sp", tu_scratch_dir());
    snprintf(fresh, sizeof fresh, "%s/new.sp", tu_scratch_dir());
    cr_assert_eq(tu_write_file(out, "old\n"), 0);
    cr_assert_eq(chmod(out, 0640), 0);
    int root = geteuid() == 0;
    if (root)
        cr_assert_eq(chown(out, 1234, 4321), 0);
    const char *args[] = {"compile", spec, "-o", out, NULL};
    cr_assert_eq(run(args), 0);
    const char *args2[] = {"compile", spec, "-o", fresh, NULL};
    cr_assert_eq(run(args2), 0);
    struct stat sb;
    cr_assert_eq(stat(out, &sb), 0);
    cr_expect_eq(sb.st_mode & 07777, 0640, "mode %o", (unsigned)(sb.st_mode & 07777));
    cr_expect(!root || (sb.st_uid == 1234 && sb.st_gid == 4321), "owner %u:%u",
              (unsigned)sb.st_uid, (unsigned)sb.st_gid);
    cr_expect_gt(sb.st_size, 100, "the file was not replaced");
    mode_t mask = umask(0);
    umask(mask);
    cr_assert_eq(stat(fresh, &sb), 0);
    cr_expect_eq(sb.st_mode & 07777, 0666 & ~mask, "mode %o", (unsigned)(sb.st_mode & 07777));
    free(spec);
}

/* The outputs of one run land together.  Each command below writes a small
 * file first and a big one after it; past RLIMIT_FSIZE (with SIGXFSZ
 * ignored, the write fails as on a full disk) the big one cannot be
 * written, and the run exits 1 leaving every file as it was (a placeholder
 * per output name here), no other file, no temporary, and no folder of its
 * own: before, the small file was already in place (a SAX models file, the
 * first layer's drawing, the histogram beside a table, the matrix beside a
 * calibration) and draw left the folder it had made. */
Test(atomic, outputs_of_one_run_land_together, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    char spec[4400], d[4400], made[4400], made_top[4400];
    snprintf(spec, sizeof spec, "%s/two.yaml", tu_scratch_dir());
    cr_assert_eq(tu_write_file(spec,
        "schema_version: 1\nname: two\nmatrices:\n"
        "  A: {shape: [4, 4], dtype: complex, generate: {kind: haar_unitary, seed: 1}}\n"
        "  B: {shape: [32, 4], dtype: complex, generate: {kind: gaussian, seed: 2}}\n"
        "layers:\n  - {name: L1, matrix: A, attenuators: none}\n"
        "  - {name: L2, matrix: B, attenuators: middle}\n"), 0);
    snprintf(d, sizeof d, "%s/d", tu_scratch_dir());
    snprintf(made_top, sizeof made_top, "%s/new", tu_scratch_dir());
    snprintf(made, sizeof made, "%s/new/sub", tu_scratch_dir());
    cr_assert_eq(mkdir(d, 0777), 0);
    static const char *const placeholders[] = {
        "d/two_L1.dot", "d/two_L2.dot", "d/two_layers.dot", "s.json", "s_models.py", "h.txt",
        "l.txt", "m.npy", "c.cal"};
    enum { N_RUNS = 5, N_FILES = sizeof placeholders / sizeof *placeholders };
    char path[N_FILES][4400];
    for (int k = 0; k < N_FILES; k++) {
        snprintf(path[k], sizeof path[k], "%s/%s", tu_scratch_dir(), placeholders[k]);
        cr_assert_eq(tu_write_file(path[k], "old\n"), 0);
    }
    const char *runs[][12] = {
        {"draw", spec, "-o", d, "--format", "dot", NULL},
        {"draw", spec, "-o", made, "--format", "dot", NULL},
        {"export", spec, "--format", "sax", "-o", path[3], NULL},
        {"onn", "export", "netlists/onn4x8.pnl.sp", "--hist", path[5], "--lut", path[6], NULL},
        {"simulate", spec, "--matrix", path[7], "--save-calibration", path[8],
         NULL}};
    int files = tu_dir_count(tu_scratch_dir()), in_d = tu_dir_count(d);
    for (int r = 0; r < N_RUNS; r++) {
        child c = start(runs[r], 6144, 1);
        char *err;
        int status = finish(&c, &err);
        cr_expect_eq(status, 1, "%s %s: exit %d: %s", runs[r][0], runs[r][1], status, err);
        cr_expect(strstr(err, "File too large"), "%s", err);
        free(err);
        for (int k = 0; k < N_FILES; k++)
            cr_expect(same(path[k], "old\n", 4), "%s %s changed %s", runs[r][0], runs[r][1],
                      placeholders[k]);
        cr_expect_eq(tu_dir_count(tu_scratch_dir()), files, "%s %s left a file", runs[r][0],
                     runs[r][1]);
        cr_expect_eq(tu_dir_count(d), in_d, "%s %s left a file in d/", runs[r][0],
                     runs[r][1]);
        struct stat sb;
        cr_expect_neq(stat(made_top, &sb), 0, "draw left the folders it made");
    }
    /* a folder that was there stays, also when ".." leads back into it
     * through one the run made */
    char keep[4400], via[4400], made2[4400];
    snprintf(keep, sizeof keep, "%s/keep", tu_scratch_dir());
    snprintf(made2, sizeof made2, "%s/made", tu_scratch_dir());
    snprintf(via, sizeof via, "%s/made/../keep", tu_scratch_dir());
    cr_assert_eq(mkdir(keep, 0777), 0);
    child k = start((const char *[]){"draw", spec, "-o", via, "--format", "dot", NULL}, 6144, 1);
    cr_expect_eq(finish(&k, NULL), 1);
    struct stat sb;
    cr_expect_eq(stat(keep, &sb), 0, "draw removed a folder it did not make");
    cr_expect_neq(stat(made2, &sb), 0, "draw left the folder it made");
    /* and without the limit every output is written */
    for (int r = 0; r < N_RUNS; r++) {
        child c = start(runs[r], 0, 0);
        cr_expect_eq(finish(&c, NULL), 0, "%s %s", runs[r][0], runs[r][1]);
    }
    for (int k = 0; k < N_FILES; k++)
        cr_expect_not(same(path[k], "old\n", 4), "%s not written", placeholders[k]);
    cr_expect_eq(tu_dir_count(made), 3, "drawings in new/sub");
}

/* 1 once a file is staged in dir (a dot-file "NAME.tmpXXXXXX"), looking
 * every 0.1 ms for up to 20 s; else 0. */
static int staged_in(const char *dir)
{
    for (int k = 0; k < 200000; k++) {
        int staged = 0;
        DIR *d = opendir(dir);
        for (struct dirent *e; d && (e = readdir(d)) && !staged;)
            staged = e->d_name[0] == '.' && strstr(e->d_name, ".tmp");
        if (d)
            closedir(d);
        if (staged)
            return 1;
        sleep_us(100);
    }
    return 0;
}

/* Interrupted while it holds its temporary files (Ctrl-C, kill, a terminal
 * that closes), a run removes them and dies of the signal; every old file
 * stays, and the folders it made go.  A draw of 24 layers of 40 modes
 * stages its drawings for about a second, one layout after the other, and
 * renames them at the end. */
Test(atomic, interrupted_run_removes_its_temporaries, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    enum { LAYERS = 24 };
    char text[8192] = "schema_version: 1\nname: many\nmatrices:\n", spec[4400], dir[4400];
    for (int l = 0; l < LAYERS; l++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "  W%d: {shape: [40, 40], "
                 "dtype: complex, generate: {kind: haar_unitary, seed: %d}}\n", l, l + 1);
    snprintf(text + strlen(text), sizeof text - strlen(text), "layers:\n");
    for (int l = 0; l < LAYERS; l++)
        snprintf(text + strlen(text), sizeof text - strlen(text),
                 "  - {name: L%d, matrix: W%d, attenuators: none}\n", l, l);
    snprintf(spec, sizeof spec, "%s/many.yaml", tu_scratch_dir());
    snprintf(dir, sizeof dir, "%s/d", tu_scratch_dir());
    cr_assert_eq(tu_write_file(spec, text), 0);
    const char *draw[] = {"draw", spec, "-o", dir, "--format", "svg", NULL};
    cr_assert_eq(run(draw), 0);
    /* every drawing the run writes becomes a placeholder "old" */
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    char names[64][300];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 64;)
        if (e->d_name[0] != '.')
            snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    closedir(d);
    cr_assert_geq(n, LAYERS, "the draw wrote %d files", n);
    for (int k = 0; k < n; k++) {
        char path[4800];
        snprintf(path, sizeof path, "%s/%.299s", dir, names[k]);
        cr_assert_eq(tu_write_file(path, "old\n"), 0);
    }
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++) {
        child c = start(draw, 0, 0);
        cr_expect(staged_in(dir), "no drawing was staged");
        kill(c.pid, sigs[i]);
        char *err;
        int status = finish(&c, &err);
        cr_expect_eq(status, 128 + sigs[i], "signal %d: exit %d: %s", sigs[i], status, err);
        free(err);
        cr_expect_eq(tu_dir_count(dir), n, "signal %d left a temporary", sigs[i]);
        for (int k = 0; k < n; k++) {
            char path[4800];
            snprintf(path, sizeof path, "%s/%.299s", dir, names[k]);
            cr_expect(same(path, "old\n", 4), "signal %d: %s changed", sigs[i], names[k]);
        }
    }
    /* into folders it makes: they go too */
    char made[4400], sub[4400];
    snprintf(made, sizeof made, "%s/new", tu_scratch_dir());
    snprintf(sub, sizeof sub, "%s/new/sub", tu_scratch_dir());
    const char *draw_new[] = {"draw", spec, "-o", sub, "--format", "svg", NULL};
    child c = start(draw_new, 0, 0);
    cr_expect(staged_in(sub), "no drawing was staged in new/sub");
    kill(c.pid, SIGTERM);
    cr_expect_eq(finish(&c, NULL), 128 + SIGTERM);
    struct stat sb;
    cr_expect_neq(stat(made, &sb), 0, "the folders the run made are still there");
}

/* -------------------------------------------- one output set, two runs -- */

/* Into name, the circuit an export's file names on its first line ("... of
 * circuit NAME, written by ..."); "" when it names none. */
static void circuit_named(const char *path, char *name, size_t size)
{
    char *text = tu_read_file(path, NULL);
    const char *at = text ? strstr(text, "of circuit ") : NULL;
    const char *eol = text ? strchr(text, '\n') : NULL;
    name[0] = '\0';
    if (at && (!eol || at < eol)) {
        at += strlen("of circuit ");
        snprintf(name, size, "%.*s", (int)strcspn(at, ", \n"), at);
    }
    free(text);
}

/* Two runs that write one set of outputs at once (here two INTERCONNECT
 * exports, three files each, of two circuits to the same names) leave the
 * set of one of them, whole: each file names its circuit on its first line,
 * and all three name the same one.  Before the renames of a set were made
 * under a lock (atomic.c), about one pair in ten here left files of both,
 * so 40 pairs find that nearly always. */
Test(atomic, concurrent_runs_never_mix_their_sets, .init = tu_scratch_init,
     .fini = tu_scratch_fini, .timeout = 240)
{
    char *spec[2] = {unitary_spec("alpha", 24, 1), unitary_spec("beta", 24, 2)};
    static const char *const files[] = {"ic.spi", "ic_circuit.spi", "ic.lsf"};
    char out[4400], path[3][4400];
    snprintf(out, sizeof out, "%s/ic.spi", tu_scratch_dir());
    for (int k = 0; k < 3; k++)
        snprintf(path[k], sizeof path[k], "%s/%s", tu_scratch_dir(), files[k]);
    enum { PAIRS = 40 };
    int won[2] = {0, 0};
    for (int round = 0; round < PAIRS; round++) {
        child c[2];
        for (int r = 0; r < 2; r++)
            c[r] = start((const char *[]){"export", spec[(r + round) % 2], "--format",
                                          "interconnect", "-o", out, NULL}, 0, 0);
        for (int r = 0; r < 2; r++)
            cr_assert_eq(finish(&c[r], NULL), 0, "pair %d: an export failed", round);
        char name[3][64];
        for (int k = 0; k < 3; k++)
            circuit_named(path[k], name[k], sizeof name[k]);
        cr_assert(name[0][0] && !strcmp(name[0], name[1]) && !strcmp(name[0], name[2]),
                  "pair %d left a mixed set: %s of %s, %s of %s, %s of %s", round, files[0],
                  name[0], files[1], name[1], files[2], name[2]);
        won[strcmp(name[0], "alpha") != 0]++;
        cr_assert_eq(tu_dir_count(tu_scratch_dir()), 5, "pair %d left a temporary", round);
    }
    cr_log_info("%d pairs: alpha's set stood %d times, beta's %d", PAIRS, won[0], won[1]);
    free(spec[0]);
    free(spec[1]);
}

/* A run that prints a report and writes files puts the files in place only
 * once the report is written.  With standard output a full disk (a device
 * node with the numbers of /dev/full, made in the scratch folder) or a pipe
 * whose reader is gone (SIGPIPE as a shell leaves it, which ends the run,
 * and ignored, when the write fails with EPIPE), compile --json -o,
 * simulate --json --matrix, draw and onn train -o fail and leave every old
 * file as it was, no temporary and no folder of their own.  Before,
 * compile's netlist and the others were already replaced when the report
 * failed. */
Test(atomic, outputs_wait_for_the_standard_output, .init = tu_scratch_init,
     .fini = tu_scratch_fini, .timeout = 120)
{
    char *spec = unitary_spec("s", 4, 1);
    char net[4400], mat[4400], drawn[4400], onn[4400], onn_dir[4400], full[4400];
    snprintf(net, sizeof net, "%s/x.sp", tu_scratch_dir());
    snprintf(mat, sizeof mat, "%s/m.npy", tu_scratch_dir());
    snprintf(drawn, sizeof drawn, "%s/d", tu_scratch_dir());
    snprintf(onn, sizeof onn, "%s/t.yaml", tu_scratch_dir());
    snprintf(onn_dir, sizeof onn_dir, "%s/t", tu_scratch_dir());
    snprintf(full, sizeof full, "%s/full", tu_scratch_dir());
    int have_full = mknod(full, S_IFCHR | 0666, makedev(1, 7)) == 0;
    const char *olds[] = {net, mat, onn};
    for (int k = 0; k < 3; k++)
        cr_assert_eq(tu_write_file(olds[k], "old\n"), 0);
    const struct {
        const char *who, *args[14];
    } runs[] = {
        {"optinc compile", {"compile", spec, "--json", "-o", net, NULL}},
        {"optinc simulate", {"simulate", spec, "--ideal", "--json", "--matrix", mat, NULL}},
        {"optinc draw", {"draw", spec, "-o", drawn, "--format", "dot", NULL}},
        {"optinc onn train", {"onn", "train", "-o", onn, "--servers", "2", "--bits", "2",
                              "--hidden", "4,4", "--epochs", "5", NULL}},
    };
    enum { RUNS = sizeof runs / sizeof runs[0] };
    int files = tu_dir_count(tu_scratch_dir());
    static const char *const way[] = {"a full disk", "a closed pipe", "a closed pipe, "
                                      "SIGPIPE ignored"};
    for (int w = have_full ? 0 : 1; w < 3; w++)
        for (int r = 0; r < RUNS; r++) {
            int fds[2] = {-1, -1};
            if (w == 0)
                fds[1] = open(full, O_WRONLY);
            else
                cr_assert_eq(pipe(fds), 0);
            if (fds[0] >= 0)
                close(fds[0]);   /* the reader is gone before the run writes */
            char *err;
            child c = start_fd(runs[r].args, 0, 0, fds[1], w == 2);
            close(fds[1]);
            int status = finish(&c, &err);
            char want[160];
            snprintf(want, sizeof want, "%s: error: cannot write the standard output: %s",
                     runs[r].who, w == 0 ? "No space left on device" : "Broken pipe");
            if (w == 1) {
                cr_expect_eq(status, 128 + SIGPIPE, "%s onto %s: exit %d: %s", runs[r].who,
                             way[w], status, err);
            } else {
                cr_expect_eq(status, 1, "%s onto %s: exit %d: %s", runs[r].who, way[w], status,
                             err);
                cr_expect(strstr(err, want), "%s onto %s: %s", runs[r].who, way[w], err);
            }
            free(err);
            for (int k = 0; k < 3; k++)
                cr_expect(same(olds[k], "old\n", 4), "%s onto %s replaced %s", runs[r].who,
                          way[w], olds[k]);
            struct stat sb;
            cr_expect_neq(stat(drawn, &sb), 0, "%s onto %s left the drawings' folder",
                          runs[r].who, way[w]);
            cr_expect_neq(stat(onn_dir, &sb), 0, "%s onto %s left the matrices' folder",
                          runs[r].who, way[w]);
            cr_expect_eq(tu_dir_count(tu_scratch_dir()), files, "%s onto %s left a file",
                         runs[r].who, way[w]);
        }
    /* and with a standard output that takes it all, every file is written */
    for (int r = 0; r < RUNS; r++) {
        child c = start(runs[r].args, 0, 0);
        cr_expect_eq(finish(&c, NULL), 0, "%s", runs[r].who);
    }
    for (int k = 0; k < 3; k++)
        cr_expect_not(same(olds[k], "old\n", 4), "%s was not written", olds[k]);
    cr_expect_eq(tu_dir_count(drawn), 2, "the drawings");
    free(spec);
}

/* The size of the file at path (-1 when there is none). */
static long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* A netlist the reader would refuse is not written.  compile -o, and
 * netlist -o into a bigger form, hold the file to the reader's own limit:
 * OPTINC_MAX_INPUT_BYTES, set here to the size of a small circuit's
 * hierarchical netlist, which the same circuit flattened and expanded
 * exceeds (at the defaults, 256 MiB: two 1024 x 1024 layers wrote 319 MB,
 * which no reader took).  Past it the run exits 2 naming the size, the
 * limit, the variable that raises it and a smaller form, and leaves the old
 * file and no temporary; up to it the file is written and read back. */
Test(atomic, netlists_the_reader_refuses_are_not_written, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    char *spec = unitary_spec("n", 8, 1);
    char ref[4400], out[4400], flat[4400], limit[32], want[300];
    snprintf(ref, sizeof ref, "%s/ref.sp", tu_scratch_dir());
    snprintf(out, sizeof out, "%s/x.sp", tu_scratch_dir());
    snprintf(flat, sizeof flat, "%s/flat.sp", tu_scratch_dir());
    const char *hier[] = {"compile", spec, "-o", ref, "--reproducible", "--quiet", NULL};
    const char *big[] = {"compile", spec, "-o", flat, "--reproducible", "--quiet", "--flatten",
                         "--expand-mzi", NULL};
    cr_assert_eq(run(hier), 0);
    cr_assert_eq(run(big), 0);
    long n = file_size(ref), m = file_size(flat);
    cr_assert(n > 0 && m > n, "hierarchical %ld bytes, flat and expanded %ld", n, m);
    unlink(flat);
    cr_assert_eq(tu_write_file(out, "old\n"), 0);
    snprintf(limit, sizeof limit, "%ld", n);
    setenv("OPTINC_MAX_INPUT_BYTES", limit, 1);
    const struct {
        const char *args[10], *target, *smaller;
    } refused[] = {
        {{"compile", spec, "-o", out, "--reproducible", "--quiet", "--flatten", "--expand-mzi"},
         out, "leave out --expand-mzi and --flatten"},
        {{"netlist", ref, "-o", flat, "--flatten"}, flat, "leave out --flatten"},
    };
    int files = tu_dir_count(tu_scratch_dir());
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char *err;
        child c = start(refused[i].args, 0, 0);
        int status = finish(&c, &err);
        cr_expect_eq(status, 2, "%s: exit %d: %s", refused[i].args[0], status, err);
        snprintf(want, sizeof want, "%s: error: the netlist would be ", refused[i].target);
        cr_expect(strstr(err, want), "%s", err);
        snprintf(want, sizeof want, "the limit of %ld (OPTINC_MAX_INPUT_BYTES); to go past it "
                 "set the environment variable OPTINC_MAX_INPUT_BYTES", n);
        cr_expect(strstr(err, want) && strstr(err, refused[i].smaller), "%s", err);
        free(err);
        cr_expect(same(out, "old\n", 4), "%s replaced x.sp", refused[i].args[0]);
        cr_expect_eq(file_size(flat), -1, "%s wrote flat.sp", refused[i].args[0]);
        cr_expect_eq(tu_dir_count(tu_scratch_dir()), files, "%s left a file",
                     refused[i].args[0]);
    }
    /* exactly at the limit: written, and read back under the same limit */
    cr_expect_eq(run((const char *[]){"compile", spec, "-o", out, "--reproducible", "--quiet",
                                      NULL}), 0);
    cr_expect_eq(file_size(out), n);
    cr_expect_eq(run((const char *[]){"simulate", out, "--ideal", NULL}), 0);
    /* a byte less, and even the hierarchical form is past it */
    snprintf(limit, sizeof limit, "%ld", n - 1);
    setenv("OPTINC_MAX_INPUT_BYTES", limit, 1);
    char *err;
    child c = start((const char *[]){"compile", spec, "-o", out, "--quiet", NULL}, 0, 0);
    cr_expect_eq(finish(&c, &err), 2, "%s", err);
    cr_expect(strstr(err, "split the circuit's layers over several specs"), "%s", err);
    free(err);
    cr_expect_eq(file_size(out), n, "the netlist at the limit was replaced");
    unsetenv("OPTINC_MAX_INPUT_BYTES");
    free(spec);
}

/* The 1-based line of text on which needle starts (0: not found). */
static int line_of(const char *text, const char *needle)
{
    const char *at = text ? strstr(text, needle) : NULL;
    int line = 1;
    for (const char *p = text; at && p < at; p++)
        line += *p == '\n';
    return at ? line : 0;
}

/* Each drawing is renamed over whatever has its name, so two drawings of
 * one name would leave only the later, with status 0: a layer named
 * "layers" and the layer graph (C_layers), or the overview of a layer L and
 * the drawing of a layer L_overview (C_L_overview; an overview is drawn
 * above 32 modes or with --overview).  draw refuses them with status 2
 * before it writes anything, at the later layer in the spec or netlist,
 * naming both drawings, the file and the fix; old drawings stay and no
 * folder is made.  Names that only could collide, at sizes not drawn in
 * both styles, are drawn. */
Test(atomic, drawings_of_one_name_are_refused, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    static const char head[] =
        "schema_version: 1\nname: C\nmatrices:\n"
        "  S: {shape: [4, 4], dtype: complex, generate: {kind: haar_unitary, seed: 1}}\n"
        "  B: {shape: [40, 40], dtype: complex, generate: {kind: haar_unitary, seed: 2}}\n"
        "layers:\n";
    char text[1024], graph[4400], small[4400], big[4400], net[4400], d[4400], want[600];
    snprintf(graph, sizeof graph, "%s/graph.yaml", tu_scratch_dir());
    snprintf(small, sizeof small, "%s/small.yaml", tu_scratch_dir());
    snprintf(big, sizeof big, "%s/big.yaml", tu_scratch_dir());
    snprintf(net, sizeof net, "%s/small.sp", tu_scratch_dir());
    snprintf(d, sizeof d, "%s/d", tu_scratch_dir());
    snprintf(text, sizeof text, "%s  - {name: L1, matrix: S, attenuators: none}\n"
             "  - {name: layers, matrix: S, attenuators: none}\n", head);
    cr_assert_eq(tu_write_file(graph, text), 0);
    snprintf(text, sizeof text, "%s  - {name: L, matrix: S, attenuators: none}\n"
             "  - {name: L_overview, matrix: S, attenuators: none}\n", head);
    cr_assert_eq(tu_write_file(small, text), 0);
    snprintf(text, sizeof text, "%s  - {name: L, matrix: B, attenuators: none}\n"
             "  - {name: L_overview, matrix: B, attenuators: none}\n", head);
    cr_assert_eq(tu_write_file(big, text), 0);
    cr_assert_eq(run((const char *[]){"compile", small, "-o", net, "--quiet", NULL}), 0);
    char *net_text = tu_read_file(net, NULL);
    int net_line = line_of(net_text, "*! layer.L_overview =");
    free(net_text);
    cr_assert_gt(net_line, 0);
    char at_net[4500], at_graph[4500], at_small[4500], at_big[4500];
    snprintf(at_graph, sizeof at_graph, "%s:8:5: ", graph);
    snprintf(at_small, sizeof at_small, "%s:8:5: ", small);
    snprintf(at_big, sizeof at_big, "%s:8:5: ", big);
    snprintf(at_net, sizeof at_net, "%s:%d:10: ", net, net_line);
    static const char overview[] = "error: the overview of layer 'L' and the drawing of layer "
                                   "'L_overview' would both be drawn to 'C_L_overview.dot', "
                                   "one over the other; rename layer 'L' or layer 'L_overview'";
    const struct {
        const char *args[9], *at, *message;
    } refused[] = {
        {{"draw", graph, "-o", d, "--format", "dot"}, at_graph,
         "error: the layer graph and the drawing of layer 'layers' would both be drawn to "
         "'C_layers.dot', one over the other; rename layer 'layers'"},
        {{"draw", small, "-o", d, "--format", "dot", "--overview"}, at_small, overview},
        {{"draw", big, "-o", d, "--format", "dot"}, at_big, overview},
        {{"draw", net, "-o", d, "--format", "dot", "--overview"}, at_net, overview},
    };
    int files = tu_dir_count(tu_scratch_dir());
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char *err;
        child c = start(refused[i].args, 0, 0);
        int status = finish(&c, &err);
        snprintf(want, sizeof want, "%s%s", refused[i].at, refused[i].message);
        cr_expect_eq(status, 2, "case %zu: exit %d: %s", i, status, err);
        cr_expect(strstr(err, want), "case %zu: %s\nwanted: %s", i, err, want);
        free(err);
        cr_expect_eq(tu_dir_count(tu_scratch_dir()), files, "case %zu wrote something", i);
    }
    /* small layers draw no overview: no two drawings of one name */
    cr_assert_eq(run((const char *[]){"draw", small, "-o", d, "--format", "dot", NULL}), 0);
    cr_expect_eq(tu_dir_count(d), 3, "C_L, C_L_overview (a layer) and C_layers");
    /* refused into a folder of old drawings: they stay */
    char old[4500];
    snprintf(old, sizeof old, "%s/C_L_overview.dot", d);
    cr_assert_eq(tu_write_file(old, "old\n"), 0);
    child c = start(refused[1].args, 0, 0);
    cr_expect_eq(finish(&c, NULL), 2);
    cr_expect(same(old, "old\n", 4), "a drawing was replaced");
    cr_expect_eq(tu_dir_count(d), 3, "a drawing was added");
}

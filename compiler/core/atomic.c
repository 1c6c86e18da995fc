/*
 * atomic.c - output files that appear complete or not at all (optinc_out_*,
 * fileio.h), and the checks that keep an output from destroying what is not
 * a file of ours.
 *
 * A run that dies half way must never leave a file that looks complete, and
 * a reader must never see one being written.  So every output goes to
 * ".<base>.tmpXXXXXX" in the target's own directory (same file system, so
 * rename(2) is atomic), is flushed and fsync'ed, and only then renamed over
 * the target; the directory is fsync'ed too so the rename survives a crash.
 * optinc_out_abort() unlinks the temporary file.  mkstemp creates files
 * 0600, so the usual 0666 & ~umask mode is restored before the rename.  A
 * set of outputs (optinc_outs_*) closes each complete temporary file and
 * renames them all only at its end.
 *
 * What the target already is decides how it is replaced, because a rename
 * replaces whatever has the name: run as root, `-o /dev/null` would turn the
 * system's null device into a regular file, and a symbolic link would become
 * a file while the file it names stayed old.  So a link is followed to the
 * file it names (the temporary file goes beside that file); a character
 * device or a FIFO is opened and written in place, as a shell's `>` would,
 * since it holds no file contents to protect; a folder, a block device (a
 * disk) or a socket is refused.
 *
 * Why the stream never fails.  The FILE a writer gets is a stream over the
 * file's descriptor (fopencookie) that keeps the first write error (a full
 * disk, a file too large) and drops what comes after it, while telling the
 * writer every write succeeded; optinc_out_commit() (or optinc_outs_add(),
 * which closes a member of a set) then reports that error with the file's
 * name and removes the temporary file.  So no writer needs
 * its own error path, and a library that gives up on a failed write by
 * calling exit() (Graphviz does) never sees one: it would otherwise end the
 * program with no message and leave the temporary file behind.  (BSD's
 * funopen is the same interface.)
 *
 * Why a signal removes the temporary files.  A run interrupted while it
 * holds temporary files (Ctrl-C during a draw's layouts, a terminal that
 * closes, a file-size limit) would leave them behind, hidden but
 * accumulating.  Every temporary file (and a folder made for outputs,
 * optinc_out_note_folder) is noted while it exists, and the program (not
 * the library: a handler belongs to whoever owns the process) can have the
 * signals that end it remove them first (optinc_out_remove_on_signals);
 * SIGKILL and a crash still leave them.
 *
 * Why a set is renamed under a lock.  Two runs that write one set (two
 * exports to one name) each rename their files one after the other; when
 * the renames interleave, the last rename of each name decides, and the set
 * that stands mixes files of both runs (1 pair of exports in 40 did).  So
 * the renames of a set of two or more files are made holding an exclusive
 * advisory lock (flock(2)) on every folder they go into, taken in one order
 * (by device and inode) so that two runs sharing folders never wait for each
 * other, and let go after the last rename: a run that finds a folder locked
 * waits for the other's renames (milliseconds) and then puts its own set over
 * it whole.  Only the renames are locked, because they alone decide which
 * files stand; the writing, which may take minutes, goes on side by side
 * under each run's own temporary names.  The lock is on the folder itself,
 * not on a lock file, so it leaves nothing behind, and it goes with its
 * process (SIGKILL too).  A folder that cannot be locked (one not readable,
 * a file system without flock, as some NFS mounts) is renamed into unlocked,
 * as before.
 */
#define _GNU_SOURCE     /* fopencookie */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "optinc/fileio.h"

/* The file under an output's stream: its descriptor, the first error
 * writing to it (0: none), and the bytes written to the stream, of which
 * only the first cap reach the file (optinc_outs_write_max). */
struct optinc_out_sink {
    int fd;
    int error;
    size_t bytes, cap;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
    struct optinc_out_sink *s = cookie;
    s->bytes += len;
    if (s->bytes > s->cap)
        return (ssize_t)len;    /* counted only: the output is refused when complete */
    for (size_t done = 0; !s->error && done < len;) {
        ssize_t n = write(s->fd, buf + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            s->error = n < 0 ? errno : EIO;
        else
            done += (size_t)n;
    }
    return (ssize_t)len;
}

static int sink_close(void *cookie)
{
    struct optinc_out_sink *s = cookie;
    int rc = close(s->fd), e = errno;
    free(s);
    errno = e;
    return rc;
}

/* The temporary files that exist, and the folders made for them, for a
 * handler to remove.  A handler may run at any instruction of the program,
 * so what it reads is never freed under it: nodes are only added to the
 * list (and reused once their file is placed or removed), and a node's name
 * is complete before the node names it.  The program keeps the list with
 * the mutex; a handler reads it without. */
struct optinc_out_note {
    struct optinc_out_note *volatile next;   /* every node made */
    struct optinc_out_note *next_free;
    char *volatile name;                     /* NULL: free */
    volatile int folder;
};

static struct optinc_out_note *volatile notes;
static struct optinc_out_note *free_notes;
static pthread_mutex_t notes_lock = PTHREAD_MUTEX_INITIALIZER;

/* Notes path, a temporary file or a folder just made; NULL when out of
 * memory. */
static struct optinc_out_note *note(const char *path, int folder)
{
    char *name = strdup(path);
    if (!name)
        return NULL;
    pthread_mutex_lock(&notes_lock);
    struct optinc_out_note *t = free_notes;
    if (t)
        free_notes = t->next_free;
    else if ((t = calloc(1, sizeof *t))) {
        t->next = notes;
        notes = t;
    }
    if (t) {
        t->folder = folder;
        t->name = name;
    }
    pthread_mutex_unlock(&notes_lock);
    if (!t)
        free(name);
    return t;
}

void optinc_out_forget(struct optinc_out_note *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&notes_lock);
    char *name = t->name;
    t->name = NULL;
    t->next_free = free_notes;
    free_notes = t;
    pthread_mutex_unlock(&notes_lock);
    free(name);
}

struct optinc_out_note *optinc_out_note_folder(const char *path)
{
    return note(path, 1);
}

/* The files first, then the folders, empty by then unless something else
 * is in them; a folder inside another goes first, whatever the order of
 * the list (a node is reused where it is), so the folders are gone over
 * until a round removes none. */
void optinc_out_remove_temporaries(void)
{
    for (struct optinc_out_note *t = notes; t; t = t->next) {
        const char *name = t->name;
        if (name && !t->folder)
            unlink(name);
    }
    for (int removed = 1; removed;) {
        removed = 0;
        for (struct optinc_out_note *t = notes; t; t = t->next) {
            const char *name = t->name;
            if (name && t->folder && rmdir(name) == 0)
                removed = 1;   /* and the next round's rmdir of it fails */
        }
    }
}

/* The signals that end a program by default and that a user or the system
 * sends to stop one: they remove the temporary files, then end the program
 * as they would have (the default restored, the signal raised again is
 * delivered when the handler returns).
 *
 * Why a signal is passed to the thread that installed the handlers.  That
 * thread makes the temporary files, and holds these signals from a file's
 * creation until it is noted.  A signal sent to the process goes to any
 * thread that does not hold it (a BLAS worker), where the handler would run
 * in that window and miss the file just made; passed on, it waits until the
 * file is noted.  (A test that signals the moment a file appears caught it
 * about once in four runs before.) */
static const int ending_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGXFSZ};
static sigset_t ending_set;              /* the signals above, once handled */
static pthread_t signal_owner;
static volatile sig_atomic_t have_owner;

/* Removes what is noted and dies of sig (delivered when the handler that
 * calls this returns). */
static void die_of(int sig)
{
    optinc_out_remove_temporaries();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_ending_signal(int sig)
{
    int e = errno;
    if (!pthread_equal(pthread_self(), signal_owner))
        pthread_kill(signal_owner, sig);
    else
        die_of(sig);
    errno = e;
}

/* Makes on_ending_signal sig's handler. */
static void handle(int sig)
{
    struct sigaction sa = {.sa_handler = on_ending_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

void optinc_out_remove_on_signals(void)
{
    signal_owner = pthread_self();
    sigemptyset(&ending_set);
    for (size_t i = 0; i < sizeof ending_signals / sizeof ending_signals[0]; i++) {
        struct sigaction old;
        sigaddset(&ending_set, ending_signals[i]);
        /* An ignored signal (nohup's SIGHUP, a shell's trap '' XFSZ) stays
         * ignored, and a handler of the program's own stays in place. */
        if (sigaction(ending_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
            !(old.sa_flags & SA_SIGINFO))
            handle(ending_signals[i]);
    }
    have_owner = 1;
}

void optinc_out_end_by(int sig)
{
    if (!have_owner) {
        die_of(sig);
        return;
    }
    handle(sig);
    pthread_kill(signal_owner, sig);
}

/* o->f over fd, which it owns from here on (closed on failure too). */
static int open_stream(optinc_out *o, int fd)
{
    static const cookie_io_functions_t io = {NULL, sink_write, NULL, sink_close};
    o->sink = malloc(sizeof *o->sink);
    if (o->sink) {
        *o->sink = (struct optinc_out_sink){fd, 0, 0, SIZE_MAX};
        if ((o->f = fopencookie(o->sink, "w", io)))
            return 0;
        free(o->sink);
        o->sink = NULL;
    }
    int e = errno;
    close(fd);
    errno = e ? e : ENOMEM;
    return -1;
}

/* A character device or FIFO, opened for writing where it is.  A FIFO
 * without a reader is an error at once (O_NONBLOCK) rather than a hang. */
static optinc_status open_in_place(optinc_out *o, const char *path, optinc_error *err)
{
    int fd = open(o->path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    int flags = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    int bad = fd < 0 || flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0;
    if (bad && fd >= 0) {
        int e = errno;
        close(fd);
        errno = e;
    }
    if (bad || open_stream(o, fd))
        return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "cannot write '%s': %s", path,
                           errno == ENXIO ? "a FIFO with no reader" : strerror(errno));
    o->in_place = 1;
    return OPTINC_OK;
}

/* Sets o->path to the file path stands for and says how to write it:
 * 1 in place, 0 through a temporary file, -1 refused (err filled). */
static int target_of(optinc_out *o, const char *path, optinc_error *err)
{
    struct stat sb;
    if (snprintf(o->path, sizeof o->path, "%s", path) >= (int)sizeof o->path) {
        optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "output path is too long (limit %zu "
                    "bytes)", sizeof o->path - 1);
        return -1;
    }
    if (lstat(path, &sb) != 0)
        return 0;   /* a new file (or a path that open will refuse with its reason) */
    if (S_ISLNK(sb.st_mode)) {
        char *real = realpath(path, NULL);
        if (!real) {
            optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "output '%s' is a symbolic link to "
                        "nothing (%s); remove the link or point it at a file", path,
                        strerror(errno));
            return -1;
        }
        int fits = snprintf(o->path, sizeof o->path, "%s", real) < (int)sizeof o->path;
        free(real);
        if (!fits || stat(o->path, &sb) != 0) {
            optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "output '%s' is a symbolic link "
                        "optinc cannot follow; give the file's own path", path);
            return -1;
        }
    }
    if (S_ISREG(sb.st_mode))
        return 0;
    if (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode))
        return 1;
    optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "output '%s' is %s, not a file; give the "
                "path of a file to write", path, S_ISDIR(sb.st_mode) ? "a folder"
                : S_ISBLK(sb.st_mode) ? "a block device" : "a socket");
    return -1;
}

optinc_status optinc_out_check(const char *path, optinc_error *err)
{
    optinc_out o;
    char dir[1024];
    struct stat sb;
    int how = target_of(&o, path, err);
    if (how < 0)
        return OPTINC_EINPUT;
    if (how > 0)
        return OPTINC_OK;
    optinc_path_dir(o.path, dir, sizeof dir);
    int e = stat(dir, &sb) != 0                 ? errno
            : !S_ISDIR(sb.st_mode)              ? ENOTDIR
            : access(dir, W_OK | X_OK) != 0     ? errno
                                                : 0;
    if (e)
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "cannot create a file in '%s': "
                           "%s; check that the directory exists and is writable", dir,
                           strerror(e));
    return OPTINC_OK;
}

optinc_status optinc_out_open(optinc_out *o, const char *path, optinc_error *err)
{
    char dir[1024], tmp[1024];
    o->f = NULL;
    o->sink = NULL;
    o->tmp[0] = '\0';
    o->in_place = 0;
    o->temp = NULL;
    int how = target_of(o, path, err);
    if (how < 0)
        return OPTINC_EINPUT;
    if (how > 0)
        return open_in_place(o, path, err);
    path = o->path;
    optinc_path_dir(path, dir, sizeof dir);
    snprintf(tmp, sizeof tmp, "%s", path);
    const char *base = basename(tmp);
    if (!strcmp(dir, "."))
        snprintf(o->tmp, sizeof o->tmp, ".%s.tmpXXXXXX", base);
    else
        snprintf(o->tmp, sizeof o->tmp, "%s/.%s.tmpXXXXXX", dir, base);
    /* Made and noted with the ending signals held, when they are handled,
     * so that none can come between the two. */
    sigset_t was;
    if (have_owner)
        pthread_sigmask(SIG_BLOCK, &ending_set, &was);
    int fd = mkstemp(o->tmp), e = errno;
    if (fd >= 0 && !(o->temp = note(o->tmp, 0))) {
        unlink(o->tmp);
        close(fd);
        fd = -1;
        e = ENOMEM;
    }
    if (have_owner)
        pthread_sigmask(SIG_SETMASK, &was, NULL);
    if (fd < 0) {
        o->tmp[0] = '\0';
        return optinc_fail(err, OPTINC_ERUN, path, 0, 0,
                           "cannot create a file in '%s': %s; check that the directory "
                           "exists and is writable", dir, strerror(e));
    }
    /* A file replaced keeps its permissions and, where we may, its owner, as
     * a rewrite in place would; a new one gets 0666 less the umask. */
    struct stat old;
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = 0666 & ~mask;
    if (stat(path, &old) == 0 && S_ISREG(old.st_mode)) {
        mode = old.st_mode & 07777;
        if (fchown(fd, old.st_uid, old.st_gid) != 0) {
            /* not ours to give away: the file becomes the writer's */
        }
    }
    if (fchmod(fd, mode) != 0) {
        int e = errno;
        close(fd);
        optinc_out_abort(o);
        return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "cannot write '%s': %s",
                           path, strerror(e));
    }
    if (open_stream(o, fd)) {
        int e = errno;
        optinc_out_abort(o);
        return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "cannot write '%s': %s",
                           path, strerror(e));
    }
    return OPTINC_OK;
}

static void fsync_dir(const char *path)
{
    char dir[1024];
    optinc_path_dir(path, dir, sizeof dir);
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        fsync(fd);   /* best effort: some file systems refuse fsync on directories */
        close(fd);
    }
}

static optinc_status write_failed(optinc_out *o, int e, optinc_error *err)
{
    optinc_out_abort(o);
    return optinc_fail(err, OPTINC_ERUN, o->path, 0, 0,
                       "cannot write '%s': %s; check free disk space and permissions",
                       o->path, strerror(e));
}

/* Flushed, fsync'ed and closed: the temporary file complete on the disk,
 * where it stays until the output is committed or aborted; or the error
 * (status 1) and the output aborted. */
static optinc_status out_close(optinc_out *o, optinc_error *err)
{
    /* The first error of the writes, then of fsync and close. */
    int e = fflush(o->f) != 0 ? errno : 0;
    if (!e)
        e = o->sink->error;
    if (!e && !o->in_place && fsync(o->sink->fd) != 0)
        e = errno;
    if (fclose(o->f) != 0 && !e)
        e = errno;
    o->f = NULL;
    o->sink = NULL;
    return e ? write_failed(o, e, err) : OPTINC_OK;
}

static optinc_status not_open(const optinc_out *o, optinc_error *err)
{
    return optinc_fail(err, OPTINC_ERUN, o->path, 0, 0,
                       "internal error: output file was not open");
}

optinc_status optinc_out_commit(optinc_out *o, optinc_error *err)
{
    /* The first error of the writes, fsync and close, then of rename.  An
     * output of a set (below) comes here closed already. */
    optinc_status st = o->f                           ? out_close(o, err)
                       : !o->tmp[0] && !o->in_place ? not_open(o, err)
                                                    : OPTINC_OK;
    if (st)
        return st;
    if (!o->in_place && rename(o->tmp, o->path) != 0)
        return write_failed(o, errno, err);
    optinc_out_forget(o->temp);   /* after the rename: a signal before it still removes it */
    o->temp = NULL;
    if (!o->in_place)
        fsync_dir(o->path);
    o->tmp[0] = '\0';
    return OPTINC_OK;
}

void optinc_out_abort(optinc_out *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    o->sink = NULL;
    if (o->tmp[0])
        unlink(o->tmp);
    optinc_out_forget(o->temp);
    o->temp = NULL;
    o->tmp[0] = '\0';
}

optinc_status optinc_outs_add(optinc_outs *s, optinc_out *o, optinc_error *err)
{
    optinc_status st = o->f ? out_close(o, err) : not_open(o, err);
    if (!st && s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        optinc_out *grown = realloc(s->out, (size_t)cap * sizeof *grown);
        if (grown)
            s->out = grown, s->cap = cap;
        else
            st = optinc_fail(err, OPTINC_ERUN, o->path, 0, 0, "out of memory writing '%s'",
                             o->path);
    }
    if (st) {
        optinc_out_abort(o);
        return st;
    }
    s->out[s->n++] = *o;
    return OPTINC_OK;
}

optinc_status optinc_outs_write_max(optinc_outs *s, const char *path, size_t max_bytes,
                                    optinc_out_body body, const void *ctx, size_t *bytes,
                                    optinc_error *err)
{
    optinc_out o;
    optinc_status st = optinc_out_open(&o, path, err);
    if (st)
        return st;
    char *buf = malloc(1 << 20);
    if (buf)
        setvbuf(o.f, buf, _IOFBF, 1 << 20);
    o.sink->cap = max_bytes;
    st = body(o.f, ctx, err);
    fflush(o.f);    /* the count complete; an error of the write stays for the close */
    size_t n = o.sink->bytes;
    if (bytes)
        *bytes = n;
    if (!st && n > max_bytes)
        st = optinc_fail(err, OPTINC_EINPUT, o.path, 0, 0, "'%s' would be %zu bytes, more than "
                         "the %zu its readers take; nothing was written", o.path, n, max_bytes);
    if (st)
        optinc_out_abort(&o);
    else
        st = optinc_outs_add(s, &o, err);   /* closed: the buffer is free to go */
    free(buf);
    return st;
}

optinc_status optinc_outs_write(optinc_outs *s, const char *path, optinc_out_body body,
                                const void *ctx, optinc_error *err)
{
    return optinc_outs_write_max(s, path, SIZE_MAX, body, ctx, NULL, err);
}

/* A folder a set's files are renamed into, locked while they are. */
typedef struct folder_lock {
    dev_t dev;
    ino_t ino;
    int fd;
} folder_lock;

static int lock_order(const void *a, const void *b)
{
    const folder_lock *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Locks the folders s renames files into (see the top of the file), each
 * once however it is spelled: a second lock of one folder by this process
 * would wait for the first forever.  Returns the locks to let go with
 * unlock_folders (NULL when there are none, or no memory for them: then
 * the renames go unlocked rather than fail). */
static folder_lock *lock_folders(const optinc_outs *s, int *n)
{
    folder_lock *l = calloc((size_t)s->n, sizeof *l);
    *n = 0;
    for (int i = 0; l && i < s->n; i++) {
        char dir[1024];
        struct stat sb;
        if (s->out[i].in_place)
            continue;
        optinc_path_dir(s->out[i].path, dir, sizeof dir);
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), seen = 0;
        if (fd < 0)
            continue;
        if (fstat(fd, &sb) == 0)
            for (int k = 0; k < *n && !seen; k++)
                seen = l[k].dev == sb.st_dev && l[k].ino == sb.st_ino;
        else
            seen = 1;
        if (seen)
            close(fd);
        else
            l[(*n)++] = (folder_lock){sb.st_dev, sb.st_ino, fd};
    }
    if (l)
        qsort(l, (size_t)*n, sizeof *l, lock_order);
    for (int k = 0; k < *n; k++)
        while (flock(l[k].fd, LOCK_EX) != 0 && errno == EINTR)
            ;   /* another error: a folder that cannot be locked, renamed into as before */
    return l;
}

static void unlock_folders(folder_lock *l, int n)
{
    for (int k = 0; k < n; k++)
        close(l[k].fd);   /* lets go of its lock */
    free(l);
}

/* A folder optinc_outs_mkdir made for a set, noted for the signals. */
struct optinc_outs_folder {
    char *path;
    struct optinc_out_note *note;
};

/* Notes path, a folder just made, as the set's; -1 when out of memory. */
static int made_folder(optinc_outs *s, const char *path)
{
    if (s->n_made == s->cap_made) {
        int cap = s->cap_made ? 2 * s->cap_made : 4;
        struct optinc_outs_folder *grown = realloc(s->made, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        s->made = grown;
        s->cap_made = cap;
    }
    char *copy = strdup(path);
    if (!copy)
        return -1;
    s->made[s->n_made++] = (struct optinc_outs_folder){copy, optinc_out_note_folder(path)};
    return 0;
}

optinc_status optinc_outs_mkdir(optinc_outs *s, const char *dir, optinc_error *err)
{
    char p[1024];
    struct stat sb;
    if (!*dir || snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p)
        return optinc_fail(err, OPTINC_EINPUT, dir, 0, 0, "the folder name '%s' is empty or "
                           "too long; give another", dir);
    for (char *end = p + 1;; end++) {
        if (*end != '/' && *end)
            continue;
        char c = *end;
        *end = '\0';
        if (mkdir(p, 0777) == 0) {
            if (made_folder(s, p)) {
                rmdir(p);
                return optinc_fail(err, OPTINC_ERUN, dir, 0, 0, "out of memory");
            }
        } else if (errno != EEXIST) {
            return optinc_fail(err, errno == ENOTDIR ? OPTINC_EINPUT : OPTINC_ERUN, dir, 0, 0,
                               "cannot create the folder '%s': %s; give another", p,
                               strerror(errno));
        }
        *end = c;
        if (!c)
            break;
    }
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return optinc_fail(err, OPTINC_EINPUT, dir, 0, 0, "'%s' exists and is not a folder; "
                           "give another", dir);
    return OPTINC_OK;
}

/* The folders the set made: removed when it failed (the deepest first; one
 * that is not empty, holding files of another run, stays), and forgotten. */
static void settle_folders(optinc_outs *s, optinc_status st)
{
    for (int k = s->n_made - 1; k >= 0; k--) {
        if (st)
            rmdir(s->made[k].path);
        optinc_out_forget(s->made[k].note);
        free(s->made[k].path);
    }
    free(s->made);
}

optinc_status optinc_outs_end(optinc_outs *s, optinc_status st, optinc_error *err)
{
    int done = 0, n_locks = 0, renamed = 0;
    for (int i = 0; i < s->n; i++)
        renamed += !s->out[i].in_place;
    folder_lock *locks = !st && renamed > 1 ? lock_folders(s, &n_locks) : NULL;
    for (int i = 0; i < s->n; i++)
        if (st)
            optinc_out_abort(&s->out[i]);
        else if (!(st = optinc_out_commit(&s->out[i], err)))
            done++;
    unlock_folders(locks, n_locks);
    settle_folders(s, st);
    free(s->out);
    *s = (optinc_outs){.placed = done};
    return st;
}

optinc_status optinc_out_write(const char *path, optinc_out_body body, const void *ctx,
                               optinc_error *err)
{
    optinc_outs one = {0};
    return optinc_outs_end(&one, optinc_outs_write(&one, path, body, ctx, err), err);
}

int optinc_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

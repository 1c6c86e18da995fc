/*
 * atomic.c - output files that appear complete or not at all (optinc_out_*,
 * fileio.h).
 *
 * A run that dies half way must never leave a file that looks complete, and
 * a reader must never see one being written.  So every output goes to
 * ".<base>.tmpXXXXXX" in the target's own directory (same file system, so
 * rename(2) is atomic), is flushed and fsync'ed, and only then renamed over
 * the target; the directory is fsync'ed too so the rename survives a crash.
 * optinc_out_abort() unlinks the temporary file.  mkstemp creates files
 * 0600, so the usual 0666 & ~umask mode is restored before the rename.
 *
 * What the target already is decides how it is replaced, because a rename
 * replaces whatever has the name: run as root, `-o /dev/null` would turn the
 * system's null device into a regular file, and a symbolic link would become
 * a file while the file it names stayed old.  So a link is followed to the
 * file it names (the temporary file goes beside that file); a character
 * device or a FIFO is opened and written in place, as a shell's `>` would,
 * since it holds no file contents to protect; a folder, a block device (a
 * disk) or a socket is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "optinc/fileio.h"

/* A character device or FIFO, opened for writing where it is.  A FIFO
 * without a reader is an error at once (O_NONBLOCK) rather than a hang. */
static optinc_status open_in_place(optinc_out *o, const char *path, optinc_error *err)
{
    int fd = open(o->path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    int flags = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    if (fd < 0 || flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ||
        !(o->f = fdopen(fd, "wb"))) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "cannot write '%s': %s", path,
                           e == ENXIO ? "a FIFO with no reader" : strerror(e));
    }
    o->in_place = 1;
    return OPTINC_OK;
}

/* Sets o->path to the file path stands for and says how to write it:
 * 1 in place, 0 through a temporary file, -1 refused (err filled). */
static int target_of(optinc_out *o, const char *path, optinc_error *err)
{
    struct stat sb;
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

optinc_status optinc_out_open(optinc_out *o, const char *path, optinc_error *err)
{
    char dir[1024], tmp[1024];
    o->f = NULL;
    o->tmp[0] = '\0';
    o->in_place = 0;
    if (snprintf(o->path, sizeof o->path, "%s", path) >= (int)sizeof o->path)
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0,
                           "output path is too long (limit %zu bytes)", sizeof o->path - 1);
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
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        o->tmp[0] = '\0';
        return optinc_fail(err, OPTINC_ERUN, path, 0, 0,
                           "cannot create a file in '%s': %s; check that the directory "
                           "exists and is writable", dir, strerror(e));
    }
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "wb"))) {
        int e = errno;
        close(fd);
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

optinc_status optinc_out_commit(optinc_out *o, optinc_error *err)
{
    if (!o->f)
        return optinc_fail(err, OPTINC_ERUN, o->path, 0, 0,
                           "internal error: output file was not open");
    int bad = ferror(o->f) || fflush(o->f) != 0 ||
              (!o->in_place && fsync(fileno(o->f)) != 0);
    int e = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->f = NULL;
    if (!bad && !o->in_place && rename(o->tmp, o->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        optinc_out_abort(o);
        return optinc_fail(err, OPTINC_ERUN, o->path, 0, 0,
                           "cannot write '%s': %s; check free disk space and permissions",
                           o->path, strerror(e));
    }
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
    if (o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
}

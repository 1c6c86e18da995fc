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
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "optinc/fileio.h"

optinc_status optinc_out_open(optinc_out *o, const char *path, optinc_error *err)
{
    char dir[1024], tmp[1024];
    o->f = NULL;
    o->tmp[0] = '\0';
    if (snprintf(o->path, sizeof o->path, "%s", path) >= (int)sizeof o->path)
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0,
                           "output path is too long (limit %zu bytes)", sizeof o->path - 1);
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
    int bad = ferror(o->f) || fflush(o->f) != 0 || fsync(fileno(o->f)) != 0;
    int e = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->f = NULL;
    if (!bad && rename(o->tmp, o->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        optinc_out_abort(o);
        return optinc_fail(err, OPTINC_ERUN, o->path, 0, 0,
                           "cannot write '%s': %s; check free disk space and permissions",
                           o->path, strerror(e));
    }
    o->tmp[0] = '\0';
    fsync_dir(o->path);
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

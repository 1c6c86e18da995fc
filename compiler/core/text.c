/*
 * text.c - inputs in memory, reading files whole, resolving the files an
 * input names (and the path helpers that takes), and the line and token
 * reader (see text.h).
 *
 * Why whole files.  Every input optinc reads is small next to the memory of
 * the machine that compiles it (the readers cap each one), a buffer can be
 * handed to a reader by a fuzzer or a test without a file, and an error can
 * name its line and column from the bytes alone, without a second read.
 *
 * Why open with O_NONBLOCK.  The path of an input may name a FIFO or a
 * device; opening a FIFO for reading blocks until a writer comes, so the
 * file is opened without blocking and refused by fstat() before any read.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "optinc/text.h"

static optinc_status open_failed(const char *path, const char *what, int e, optinc_error *err)
{
    int input = e == ENOENT || e == ENOTDIR || e == EACCES || e == ELOOP || e == ENAMETOOLONG;
    return optinc_fail(err, input ? OPTINC_EINPUT : OPTINC_ERUN, path, 0, 0,
                       "cannot open %s '%s': %s", what, path, strerror(e));
}

/* "256 MiB" for a whole number of MiB, else "1000 bytes": a size limit as
 * people read it. */
static const char *size_text(size_t n, char *buf, size_t size)
{
    if (n >= (1u << 20) && n % (1u << 20) == 0)
        snprintf(buf, size, "%zu MiB", n >> 20);
    else
        snprintf(buf, size, "%zu bytes", n);
    return buf;
}

optinc_status optinc_blob_read(const char *path, size_t max_bytes, const char *what,
                               optinc_blob *b, optinc_error *err)
{
    char limit[32];
    memset(b, 0, sizeof *b);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return open_failed(path, what, errno, err);
    struct stat sb;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
        close(fd);
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "%s '%s' is not a regular file; "
                           "give the path of a file", what, path);
    }
    if ((uint64_t)sb.st_size > max_bytes) {
        close(fd);
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "%s '%s' is larger than %s, the "
                           "reader's limit", what, path,
                           size_text(max_bytes, limit, sizeof limit));
    }
    /* Read one byte past the size fstat saw, so a file that grows past the
     * limit while it is read is caught too. */
    size_t cap = (size_t)sb.st_size + 1, len = 0;
    char *data = malloc(cap + 1);
    if (!data) {
        close(fd);
        return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "out of memory reading %s '%s'",
                           what, path);
    }
    for (;;) {
        ssize_t got = read(fd, data + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            close(fd);
            free(data);
            return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "cannot read %s '%s': %s", what,
                               path, strerror(e));
        }
        if (got == 0)
            break;
        len += (size_t)got;
        if (len > max_bytes) {
            close(fd);
            free(data);
            return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "%s '%s' is larger than %s, "
                               "the reader's limit", what, path,
                               size_text(max_bytes, limit, sizeof limit));
        }
        if (len == cap) {
            size_t ncap = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
            char *p = ncap > cap ? realloc(data, ncap + 1) : NULL;
            if (!p) {
                close(fd);
                free(data);
                return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "out of memory reading %s "
                                   "'%s'", what, path);
            }
            data = p;
            cap = ncap;
        }
    }
    close(fd);
    data[len] = '\0';
    b->data = data;
    b->len = len;
    snprintf(b->name, sizeof b->name, "%s", path);
    return OPTINC_OK;
}

void optinc_blob_free(optinc_blob *b)
{
    free(b->data);
    b->data = NULL;
    b->len = 0;
}

optinc_input optinc_blob_input(const optinc_blob *b)
{
    return (optinc_input){b->name, b->data, b->len};
}

void optinc_path_dir(const char *path, char *dir, size_t size)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    snprintf(dir, size, "%s", dirname(tmp));
}

void optinc_path_join(const char *dir, const char *rel, char *out, size_t size)
{
    size_t n = strlen(dir);
    if (rel[0] == '/' || n == 0 || !strcmp(dir, "."))
        snprintf(out, size, "%s", rel);
    else
        snprintf(out, size, "%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", rel);
}

optinc_status optinc_resolve_file(void *ctx, const char *from, const char *rel,
                                  size_t max_bytes, const char *what, optinc_blob *out,
                                  optinc_error *err)
{
    char dir[1024], path[2200];
    optinc_path_dir(from ? from : "", dir, sizeof dir);
    optinc_path_join(dir, rel, path, sizeof path);
    return optinc_blob_read(path, max_bytes, what, out, err);
}

optinc_status optinc_read_resolve(const optinc_read_opts *opts, const char *from,
                                  const char *rel, size_t max_bytes, const char *what,
                                  optinc_blob *out, optinc_error *err)
{
    if (opts && opts->resolve)
        return opts->resolve(opts->resolve_ctx, from, rel, max_bytes, what, out, err);
    return optinc_resolve_file(NULL, from, rel, max_bytes, what, out, err);
}

const optinc_limits *optinc_read_limits(const optinc_read_opts *opts)
{
    return opts ? opts->limits : NULL;
}

/* ------------------------------------------------------------------ lines */

optinc_status optinc_lines_init(optinc_lines *r, const optinc_input *in, const char *what,
                                optinc_error *err)
{
    *r = (optinc_lines){*in, 0, 0};
    const char *nul = in->len ? memchr(in->data, '\0', in->len) : NULL;
    if (nul) {
        int line, col;
        optinc_text_position(in, (size_t)(nul - in->data), &line, &col);
        return optinc_fail(err, OPTINC_EINPUT, in->name, line, col,
                           "NUL byte: a %s is a text file", what);
    }
    return OPTINC_OK;
}

int optinc_lines_next(optinc_lines *r, optinc_line *l)
{
    if (r->next >= r->in.len)
        return 0;
    const char *s = r->in.data + r->next;
    const char *nl = memchr(s, '\n', r->in.len - r->next);
    size_t len = nl ? (size_t)(nl - s) : r->in.len - r->next;
    *l = (optinc_line){s, len, r->next, ++r->number};
    r->next += len + 1;
    return 1;
}

void optinc_text_position(const optinc_input *in, size_t off, int *line, int *col)
{
    int ln = 1;
    size_t start = 0;
    for (size_t i = 0; i < off && i < in->len; i++)
        if (in->data[i] == '\n') {
            ln++;
            start = i + 1;
        }
    *line = ln;
    *col = (int)(off - start) + 1;
}

/* ----------------------------------------------------------------- tokens */

static int blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

int optinc_tokens(const optinc_line *l, char comment, optinc_token *t, int max)
{
    int n = 0;
    size_t i = 0, end = l->len;
    if (comment) {
        const char *c = memchr(l->s, comment, l->len);
        if (c)
            end = (size_t)(c - l->s);
    }
    while (i < end) {
        while (i < end && blank(l->s[i]))
            i++;
        if (i >= end)
            break;
        size_t j = i;
        while (j < end && !blank(l->s[j]))
            j++;
        if (n < max)
            t[n] = (optinc_token){l->s + i, (int)(j - i), (int)i + 1};
        n++;
        i = j;
    }
    return n;
}

int optinc_token_is(const optinc_token *t, const char *s)
{
    return (size_t)t->len == strlen(s) && !memcmp(t->s, s, (size_t)t->len);
}

int optinc_token_cstr(const optinc_token *t, char *buf, size_t size)
{
    if ((size_t)t->len >= size)
        return -1;
    memcpy(buf, t->s, (size_t)t->len);
    buf[t->len] = '\0';
    return 0;
}

int optinc_token_long(const optinc_token *t, long *v)
{
    char buf[32], *end;
    if (optinc_token_cstr(t, buf, sizeof buf))
        return -1;
    errno = 0;
    *v = strtol(buf, &end, 10);
    return errno || *end || end == buf ? -1 : 0;
}

int optinc_token_double(const optinc_token *t, double *v)
{
    char buf[64], *end;
    if (optinc_token_cstr(t, buf, sizeof buf))
        return -1;
    errno = 0;
    *v = strtod(buf, &end);
    return errno || *end || end == buf || !isfinite(*v) ? -1 : 0;
}

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
 *
 * Two limits on a file's size.  Each reader has its own (what its largest
 * valid input can take), and the caller's limits have one for every input
 * (OPTINC_LIMIT_INPUT_BYTES), which a bigger machine raises and which keeps
 * a wrong path (a 3 GB sparse file) from filling the memory; a file is
 * held to the smaller, and the message says which one and how to raise the
 * caller's.
 *
 * Why the byte-order mark is skipped here.  It is the one thing an editor
 * adds that no format of optinc means; skipping it in the one line reader
 * (and not counting it in columns) makes every text format accept it, as
 * libyaml does for specs, instead of each reader tripping over an invisible
 * character in its first token.
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
#include "compiler/core/bigmem.h"
#include "compiler/core/numtext.h"
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

/* The most bytes an input may hold: the reader's own max_bytes, or the
 * input limit of lim when that is smaller (limited: the limit applies at
 * all).  *soft says which one binds, so the message can name it. */
static size_t input_cap(size_t max_bytes, const optinc_limits *lim, int limited, int *soft)
{
    size_t input = (size_t)optinc_limits_get(lim, OPTINC_LIMIT_INPUT_BYTES);
    *soft = limited && input < max_bytes;
    return *soft ? input : max_bytes;
}

static optinc_status too_large(const char *name, const char *what, size_t cap,
                               const optinc_limits *lim, int soft, optinc_error *err)
{
    char limit[256];
    if (soft)
        return optinc_fail(err, OPTINC_EINPUT, name, 0, 0, "%s '%s' is larger than %s", what,
                           name, optinc_limits_text(lim, OPTINC_LIMIT_INPUT_BYTES, limit,
                                                    sizeof limit));
    return optinc_fail(err, OPTINC_EINPUT, name, 0, 0, "%s '%s' is larger than %s, the "
                       "reader's limit", what, name, size_text(cap, limit, sizeof limit));
}

optinc_status optinc_input_size_check(const char *name, const char *what, uint64_t len,
                                      size_t max_bytes, const optinc_limits *lim,
                                      optinc_error *err)
{
    int soft;
    size_t cap = input_cap(max_bytes, lim, 1, &soft);
    return len > cap ? too_large(name, what, cap, lim, soft, err) : OPTINC_OK;
}

size_t optinc_input_bytes_max(size_t max_bytes, const optinc_limits *lim)
{
    int soft;
    return input_cap(max_bytes, lim, 1, &soft);
}

optinc_status optinc_open_regular(const char *path, const char *what, int *fd, uint64_t *size,
                                  optinc_error *err)
{
    struct stat sb;
    *fd = -1;
    if (!*path)       /* open("") says "No such file", which names nothing */
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "the path of the %s is empty; give "
                           "the path of a file", what);
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0)
        return open_failed(path, what, errno, err);
    if (fstat(*fd, &sb) || !S_ISREG(sb.st_mode)) {
        close(*fd);
        *fd = -1;
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "%s '%s' is not a regular file; "
                           "give the path of a file", what, path);
    }
    *size = (uint64_t)sb.st_size;
    return OPTINC_OK;
}

/* optinc_blob_read, and under the input limit of lim when limited. */
static optinc_status read_whole(const char *path, size_t max_bytes, const optinc_limits *lim,
                                int limited, const char *what, optinc_blob *b,
                                optinc_error *err)
{
    int fd, soft;
    uint64_t size;
    size_t max = input_cap(max_bytes, lim, limited, &soft);
    memset(b, 0, sizeof *b);
    if (strlen(path) >= sizeof b->name)   /* its name, cut, would be another file's */
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "the path of the %s is longer "
                           "than %d bytes, the readers' limit; give a shorter one", what,
                           OPTINC_PATH_BYTES - 1);
    optinc_status st = optinc_open_regular(path, what, &fd, &size, err);
    if (st)
        return st;
    if (size > max) {
        close(fd);
        return too_large(path, what, max, lim, soft, err);
    }
    /* Read one byte past the size fstat saw, so a file that grows past the
     * limit while it is read is caught too. */
    size_t cap = (size_t)size + 1, len = 0;
    char *data = optinc_alloc_large(cap + 1);
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
        if (len > max) {
            close(fd);
            free(data);
            return too_large(path, what, max, lim, soft, err);
        }
        if (len == cap) {
            size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
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

optinc_status optinc_blob_read(const char *path, size_t max_bytes, const char *what,
                               optinc_blob *b, optinc_error *err)
{
    return read_whole(path, max_bytes, NULL, 0, what, b, err);
}

optinc_status optinc_blob_read_limited(const char *path, size_t max_bytes,
                                       const optinc_limits *lim, const char *what,
                                       optinc_blob *b, optinc_error *err)
{
    return read_whole(path, max_bytes, lim, 1, what, b, err);
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

int optinc_path_dir(const char *path, char *dir, size_t size)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s", path) >= sizeof tmp)
        return -1;
    return (size_t)snprintf(dir, size, "%s", dirname(tmp)) >= size ? -1 : 0;
}

int optinc_path_join(const char *dir, const char *rel, char *out, size_t size)
{
    size_t n = strlen(dir);
    int len;
    if (rel[0] == '/' || n == 0 || !strcmp(dir, "."))
        len = snprintf(out, size, "%s", rel);
    else
        len = snprintf(out, size, "%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", rel);
    return (size_t)len >= size ? -1 : 0;
}

/* The path the default resolver reads for rel named in from, into path
 * (as long as a blob's name).  A path that does not fit is refused, not
 * cut: cut, it would name another file. */
static optinc_status resolved_path(const char *from, const char *rel, const char *what,
                                   char path[OPTINC_PATH_BYTES], optinc_error *err)
{
    char dir[4096];
    if (optinc_path_dir(from ? from : "", dir, sizeof dir)
        || optinc_path_join(dir, rel, path, OPTINC_PATH_BYTES))
        return optinc_fail(err, OPTINC_EINPUT, from, 0, 0, "the path of %s '%.60s%s' is "
                           "longer than %d bytes, the readers' limit; give a shorter one",
                           what, rel, strlen(rel) > 60 ? "..." : "", OPTINC_PATH_BYTES - 1);
    return OPTINC_OK;
}

/* The default resolver, under the input limit of lim when limited. */
static optinc_status resolve_whole(const char *from, const char *rel, size_t max_bytes,
                                   const optinc_limits *lim, int limited, const char *what,
                                   optinc_blob *out, optinc_error *err)
{
    char path[OPTINC_PATH_BYTES];
    memset(out, 0, sizeof *out);
    optinc_status st = resolved_path(from, rel, what, path, err);
    return st ? st : read_whole(path, max_bytes, lim, limited, what, out, err);
}

optinc_status optinc_resolve_file(void *ctx, const char *from, const char *rel,
                                  size_t max_bytes, const char *what, optinc_blob *out,
                                  optinc_error *err)
{
    return resolve_whole(from, rel, max_bytes, NULL, 0, what, out, err);
}

/* A resolver of the caller's gets the reader's own limit and the bytes it
 * hands back are held to the input limit afterwards: such a resolver serves
 * inputs from memory, and so the message is the same as for a file. */
optinc_status optinc_read_resolve(const optinc_read_opts *opts, const char *from,
                                  const char *rel, size_t max_bytes, const char *what,
                                  optinc_blob *out, optinc_error *err)
{
    const optinc_limits *lim = optinc_read_limits(opts);
    if (!opts || !opts->resolve)
        return resolve_whole(from, rel, max_bytes, lim, 1, what, out, err);
    optinc_status st = opts->resolve(opts->resolve_ctx, from, rel, max_bytes, what, out, err);
    if (!st && (st = optinc_input_size_check(out->name, what, out->len, max_bytes, lim, err)))
        optinc_blob_free(out);
    return st;
}

/* 1 when the resolved path file lies in the resolved folder dir. */
static int inside(const char *file, const char *dir)
{
    size_t n = strlen(dir);
    return (n == 1 && dir[0] == '/') || (!strncmp(file, dir, n) && file[n] == '/');
}

/* 1 when the resolved path file lies in one of the folders of list
 * (separated by ':'; an empty entry, or a folder that does not exist,
 * holds nothing). */
static int inside_any(const char *file, const char *list)
{
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ":");
        char dir[4096];
        if (n && n < sizeof dir) {
            memcpy(dir, p, n);
            dir[n] = '\0';
            char *real = realpath(dir, NULL);
            int in = real && inside(file, real);
            free(real);
            if (in)
                return 1;
        }
        p += n + (p[n] == ':');
    }
    return 0;
}

optinc_status optinc_read_within(const optinc_read_opts *opts, const char *top,
                                 const char *from, const char *rel, const char *what,
                                 optinc_error *err)
{
    char path[OPTINC_PATH_BYTES], folder[4096];
    optinc_status st = resolved_path(from, rel, what, path, err);
    if (st)
        return st;
    if (optinc_path_dir(top ? top : "", folder, sizeof folder))
        return optinc_fail(err, OPTINC_EINPUT, top, 0, 0, "the path of '%s' is longer than "
                           "%zu bytes; give a shorter one", top, sizeof folder - 1);
    char *file = realpath(path, NULL), *root = file ? realpath(folder, NULL) : NULL;
    if (root && !inside(file, root) && !inside_any(file, opts ? opts->include_path : NULL))
        st = optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "%s '%s' lies outside '%s', the "
                         "folder of '%s' (its '..' and links followed); move the file into "
                         "that folder, or allow its own with the environment variable "
                         "OPTINC_INCLUDE_PATH (folders separated by ':')", what, path, folder,
                         top);
    free(file);
    free(root);
    return st;
}

const optinc_limits *optinc_read_limits(const optinc_read_opts *opts)
{
    return opts ? opts->limits : NULL;
}

optinc_status optinc_read_whole(const char *path, size_t max_bytes, const optinc_read_opts *opts,
                                const char *what, optinc_input_reader read, void *arg,
                                optinc_error *err)
{
    optinc_blob b;
    optinc_status st = optinc_blob_read_limited(path, max_bytes, optinc_read_limits(opts), what,
                                                &b, err);
    if (st)
        return st;
    optinc_input in = optinc_blob_input(&b);
    st = read(&in, opts, arg, err);
    optinc_blob_free(&b);
    return st;
}

/* ------------------------------------------------------------------ lines */

/* 3 when in starts with the UTF-8 byte-order mark, else 0. */
static size_t bom_length(const optinc_input *in)
{
    return in->len >= 3 && !memcmp(in->data, "\xef\xbb\xbf", 3) ? 3 : 0;
}

optinc_status optinc_lines_init(optinc_lines *r, const optinc_input *in, const char *what,
                                optinc_error *err)
{
    *r = (optinc_lines){*in, bom_length(in), 0};
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
    size_t start = bom_length(in);
    if (off < start)
        start = 0;
    for (size_t i = start; i < off && i < in->len; i++)
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
    return optinc_num_parse(t->s, (size_t)t->len, v) != OPTINC_NUM_OK ||
                   optinc_num_underflowed(t->s, (size_t)t->len, *v)
               ? -1
               : 0;
}

int optinc_utf8_length(const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    if (s[0] < 0x80)
        return 1;
    int n = s[0] < 0xC2 ? 0 : s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : s[0] < 0xF5 ? 4 : 0;
    /* the second byte's range rules out overlong forms, surrogates and
     * code points past U+10FFFF */
    unsigned lo = s[0] == 0xE0 ? 0xA0 : s[0] == 0xF0 ? 0x90 : 0x80;
    unsigned hi = s[0] == 0xED ? 0x9F : s[0] == 0xF4 ? 0x8F : 0xBF;
    if (!n || s[1] < lo || s[1] > hi)
        return 0;
    for (int k = 2; k < n; k++)
        if (s[k] < 0x80 || s[k] > 0xBF)
            return 0;
    return n;
}

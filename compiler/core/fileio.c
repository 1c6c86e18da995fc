/*
 * fileio.c - atomic output files, the matrix file formats (.npy, .csv),
 * SHA-256 and path helpers.
 *
 * Atomic output.  A run that dies half way must never leave a file that looks
 * complete, and a reader must never see one being written.  So every output
 * goes to ".<base>.tmpXXXXXX" in the target's own directory (same file system,
 * so rename(2) is atomic), is flushed and fsync'ed, and only then renamed over
 * the target; the directory is fsync'ed too so the rename survives a crash.
 * optinc_out_abort() unlinks the temporary file.  mkstemp creates files 0600,
 * so the usual 0666 & ~umask mode is restored before the rename.
 *
 * Matrix files.  .npy is NumPy's own format (format 1.0 and 2.0: a magic, a
 * Python-dict header, then raw little-endian data); we accept exactly what
 * numpy.save writes for a 1-D or 2-D float64/complex128 C-order array and
 * nothing looser, because a silently transposed or truncated weight matrix is
 * the worst kind of bug.  Header problems are reported as line 1 and column =
 * byte offset in the file + 1 (the header is the file's first line).  .csv is
 * one matrix row per line; entries are real or NumPy-spelled complex ("1-2j",
 * "(1-2j)" as numpy.savetxt writes them); errors give the line and column of
 * the bad field.  Both readers refuse NaN/Inf entries and sizes beyond
 * OPTINC_MATRIX_DIM_MAX / OPTINC_MATRIX_ENTRIES_MAX before allocating.
 *
 * SHA-256 (FIPS 180-4) is written here because none of the project's libraries
 * (LAPACK, libyaml, Graphviz, zlib, MPI) offers it; it only hashes spec files
 * for the provenance header, so the plain portable form is enough.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "optinc/fileio.h"

/* ---------------------------------------------------------------- paths -- */

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

/* ------------------------------------------------------- atomic output -- */

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

/* ------------------------------------------------------------- numbers -- */

int optinc_parse_number(const char *s, double complex *z, int *had_imag)
{
    const char *b = s, *e = s + strlen(s);
    if (b < e && *b == '(') {
        if (e - b < 2 || e[-1] != ')')
            return -1;
        b++;
        e--;
    }
    if (b == e || isspace((unsigned char)*b))
        return -1;
    char *end;
    double re = strtod(b, &end), im = 0;
    int imag = 0;
    if (end == b || end > e)
        return -1;
    if (end < e && (*end == 'j' || *end == 'J')) {
        im = re;
        re = 0;
        imag = 1;
        end++;
    } else if (end < e && (*end == '+' || *end == '-')) {
        const char *p = end;
        im = strtod(p, &end);
        if (end == p || end >= e || (*end != 'j' && *end != 'J'))
            return -1;
        imag = 1;
        end++;
    }
    if (end != e)
        return -1;
    *z = CMPLX(re, im);
    if (had_imag)
        *had_imag = imag;
    return isfinite(re) && isfinite(im) ? 0 : 1;
}

static optinc_status check_dims(optinc_error *err, const char *path, int line, int col,
                                long rows, long cols)
{
    if (rows < 1 || cols < 1 || rows > OPTINC_MATRIX_DIM_MAX || cols > OPTINC_MATRIX_DIM_MAX)
        return optinc_fail(err, OPTINC_EINPUT, path, line, col,
                           "matrix of %ld x %ld: each dimension must be 1..%d", rows, cols,
                           OPTINC_MATRIX_DIM_MAX);
    if (rows * cols > OPTINC_MATRIX_ENTRIES_MAX)
        return optinc_fail(err, OPTINC_EINPUT, path, line, col,
                           "matrix of %ld x %ld has %ld entries, more than the limit of "
                           "%ld (2^26); split it into smaller layers", rows, cols,
                           rows * cols, OPTINC_MATRIX_ENTRIES_MAX);
    return OPTINC_OK;
}

static optinc_status open_input(const char *path, FILE **f, optinc_error *err)
{
    *f = fopen(path, "rb");
    if (!*f)
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "cannot open '%s': %s", path,
                           strerror(errno));
    return OPTINC_OK;
}

static optinc_status no_memory(optinc_error *err, const char *path)
{
    return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "out of memory reading '%s'", path);
}

/* ----------------------------------------------------------------- npy -- */

/* A cursor over the .npy header text; `base` is the file offset of s[0]. */
typedef struct npy_hdr {
    const char *s;
    size_t n, i, base;
    const char *path;
    optinc_error *err;
} npy_hdr;

static optinc_status hdr_fail(npy_hdr *h, const char *what, const char *fix)
{
    return optinc_fail(h->err, OPTINC_EINPUT, h->path, 1, (int)(h->base + h->i + 1),
                       ".npy header: %s; %s", what, fix);
}

static const char *const npy_fix = "write the file with numpy.save(path, array) of a "
                                   "float64 or complex128 array";

static void hdr_skip(npy_hdr *h)
{
    while (h->i < h->n && (h->s[h->i] == ' ' || h->s[h->i] == '\t'))
        h->i++;
}

static int hdr_eat(npy_hdr *h, char c)
{
    hdr_skip(h);
    if (h->i < h->n && h->s[h->i] == c) {
        h->i++;
        return 1;
    }
    return 0;
}

/* A quoted Python string into buf (no escapes: none appear in npy headers). */
static optinc_status hdr_string(npy_hdr *h, char *buf, size_t size)
{
    hdr_skip(h);
    char q = h->i < h->n ? h->s[h->i] : 0;
    if (q != '\'' && q != '"')
        return hdr_fail(h, "expected a quoted string", npy_fix);
    size_t j = h->i + 1;
    while (j < h->n && h->s[j] != q)
        j++;
    if (j >= h->n || j - h->i - 1 >= size)
        return hdr_fail(h, "unterminated or overlong string", npy_fix);
    memcpy(buf, h->s + h->i + 1, j - h->i - 1);
    buf[j - h->i - 1] = '\0';
    h->i = j + 1;
    return OPTINC_OK;
}

static optinc_status hdr_shape(npy_hdr *h, long dims[2], int *ndims)
{
    if (!hdr_eat(h, '('))
        return hdr_fail(h, "'shape' must be a tuple such as (4, 4)", npy_fix);
    *ndims = 0;
    while (!hdr_eat(h, ')')) {
        hdr_skip(h);
        size_t at = h->i;
        if (*ndims == 2)
            return hdr_fail(h, "array has more than 2 dimensions",
                            "store a vector or a matrix (reshape it first)");
        long v = 0;
        while (h->i < h->n && isdigit((unsigned char)h->s[h->i]) && v <= 1L << 40)
            v = v * 10 + (h->s[h->i++] - '0');
        if (h->i == at)
            return hdr_fail(h, "expected a dimension (a whole number)", npy_fix);
        dims[(*ndims)++] = v;
        if (!hdr_eat(h, ',') && !(hdr_skip(h), h->i < h->n && h->s[h->i] == ')'))
            return hdr_fail(h, "expected ',' or ')' in 'shape'", npy_fix);
    }
    if (*ndims == 0) {
        h->i--;
        return hdr_fail(h, "array is a 0-d scalar", "store a vector or a matrix");
    }
    return OPTINC_OK;
}

/* Parses the header dict: {'descr': '<f8', 'fortran_order': False, 'shape': (r, c), } */
static optinc_status npy_parse_header(npy_hdr *h, int *is_complex, long *rows, long *cols)
{
    int seen_descr = 0, seen_order = 0, seen_shape = 0, st;
    if (!hdr_eat(h, '{'))
        return hdr_fail(h, "expected '{'", npy_fix);
    while (!hdr_eat(h, '}')) {
        char key[32], val[32];
        hdr_skip(h);
        size_t key_at = h->i;
        if ((st = hdr_string(h, key, sizeof key)))
            return st;
        if (!hdr_eat(h, ':'))
            return hdr_fail(h, "expected ':' after a key", npy_fix);
        hdr_skip(h);
        size_t val_at = h->i;
        if (!strcmp(key, "descr")) {
            if ((st = hdr_string(h, val, sizeof val)))
                return st;
            if (strcmp(val, "<f8") && strcmp(val, "<c16")) {
                h->i = val_at;
                char what[96];
                snprintf(what, sizeof what, "dtype '%s' is not supported", val);
                return hdr_fail(h, what, "save a float64 ('<f8') or complex128 ('<c16') "
                                         "array, e.g. numpy.save(path, a.astype('<f8'))");
            }
            *is_complex = val[1] == 'c';
            seen_descr = 1;
        } else if (!strcmp(key, "fortran_order")) {
            if (h->n - h->i >= 5 && !strncmp(h->s + h->i, "False", 5)) {
                h->i += 5;
            } else if (h->n - h->i >= 4 && !strncmp(h->s + h->i, "True", 4)) {
                return hdr_fail(h, "array is stored in Fortran (column-major) order",
                                "save numpy.ascontiguousarray(a) instead");
            } else {
                return hdr_fail(h, "'fortran_order' must be True or False", npy_fix);
            }
            seen_order = 1;
        } else if (!strcmp(key, "shape")) {
            long dims[2];
            int nd = 0;
            if ((st = hdr_shape(h, dims, &nd)))
                return st;
            *rows = nd == 2 ? dims[0] : 1;
            *cols = nd == 2 ? dims[1] : dims[0];
            seen_shape = 1;
            if ((st = check_dims(h->err, h->path, 1, (int)(h->base + val_at + 1), *rows, *cols)))
                return st;
        } else {
            h->i = key_at;
            char what[96];
            snprintf(what, sizeof what, "unknown key '%s'", key);
            return hdr_fail(h, what, npy_fix);
        }
        if (!hdr_eat(h, ',') && !(hdr_skip(h), h->i < h->n && h->s[h->i] == '}'))
            return hdr_fail(h, "expected ',' or '}'", npy_fix);
    }
    h->i = 0;
    if (!seen_descr || !seen_order || !seen_shape)
        return hdr_fail(h, "missing 'descr', 'fortran_order' or 'shape'", npy_fix);
    return OPTINC_OK;
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--)
        v = v << 8 | p[k];
    return v;
}

static double le_double(const unsigned char *p)
{
    uint64_t v = le64(p);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

static void put_le_double(unsigned char *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    for (int k = 0; k < 8; k++)
        p[k] = (unsigned char)(v >> (8 * k));
}

static optinc_status npy_read_data(FILE *f, const char *path, size_t data_at, int cplx,
                                   optinc_cmat *m, optinc_error *err)
{
    size_t width = cplx ? 16 : 8, n = (size_t)m->rows * (size_t)m->cols;
    unsigned char buf[4096];
    for (size_t k = 0; k < n;) {
        size_t want = (n - k) * width < sizeof buf ? (n - k) * width : sizeof buf;
        size_t got = fread(buf, 1, want, f);
        if (got < want) {
            if (ferror(f))
                return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "cannot read '%s': %s",
                                   path, strerror(errno));
            return optinc_fail(err, OPTINC_EINPUT, path, 1, (int)(data_at + k * width + got + 1),
                               ".npy data is truncated: the header promises %ld x %ld %s values "
                               "(%zu bytes) but the file ends early; write it again",
                               (long)m->rows, (long)m->cols, cplx ? "complex128" : "float64",
                               n * width);
        }
        for (size_t b = 0; b < got; b += width, k++) {
            double re = le_double(buf + b), im = cplx ? le_double(buf + b + 8) : 0;
            if (!isfinite(re) || !isfinite(im))
                return optinc_fail(err, OPTINC_EINPUT, path, 1,
                                   (int)(data_at + k * width + 1),
                                   "entry (%zu, %zu) is NaN or infinite; weights must be finite",
                                   k / (size_t)m->cols + 1, k % (size_t)m->cols + 1);
            m->a[k] = CMPLX(re, im);
        }
    }
    if (fgetc(f) != EOF)
        return optinc_fail(err, OPTINC_EINPUT, path, 1, (int)(data_at + n * width + 1),
                           ".npy file has bytes after the %ld x %ld array; write it again "
                           "with numpy.save", (long)m->rows, (long)m->cols);
    return OPTINC_OK;
}

optinc_status optinc_npy_read(const char *path, optinc_cmat **out, int *is_complex,
                              optinc_error *err)
{
    static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    unsigned char pre[12];
    FILE *f;
    optinc_status st;
    char *text = NULL;
    *out = NULL;
    if ((st = open_input(path, &f, err)))
        return st;
    size_t got = fread(pre, 1, 10, f);
    if (got < 10 || memcmp(pre, magic, 6)) {
        st = optinc_fail(err, OPTINC_EINPUT, path, 1, 1,
                         "not a .npy file (no \\x93NUMPY magic); %s", npy_fix);
        goto done;
    }
    if (pre[6] != 1 && pre[6] != 2) {
        st = optinc_fail(err, OPTINC_EINPUT, path, 1, 7,
                         ".npy format version %d.%d is not supported (1.0 and 2.0 are); %s",
                         pre[6], pre[7], npy_fix);
        goto done;
    }
    size_t hlen = pre[8] | (size_t)pre[9] << 8, base = 10;
    if (pre[6] == 2) {
        if (fread(pre + 10, 1, 2, f) < 2) {
            st = optinc_fail(err, OPTINC_EINPUT, path, 1, 11, ".npy header is truncated");
            goto done;
        }
        hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
        base = 12;
    }
    if (hlen > 1 << 20 || !(text = malloc(hlen + 1))) {
        st = optinc_fail(err, OPTINC_EINPUT, path, 1, 9,
                         ".npy header length %zu is implausible; %s", hlen, npy_fix);
        goto done;
    }
    if (fread(text, 1, hlen, f) < hlen) {
        st = optinc_fail(err, OPTINC_EINPUT, path, 1, (int)base + 1,
                         ".npy header is truncated (%zu bytes promised)", hlen);
        goto done;
    }
    npy_hdr h = {text, hlen, 0, base, path, err};
    long rows = 0, cols = 0;
    if ((st = npy_parse_header(&h, is_complex, &rows, &cols)))
        goto done;
    if (!(*out = optinc_cmat_new((int)rows, (int)cols))) {
        st = no_memory(err, path);
        goto done;
    }
    st = npy_read_data(f, path, base + hlen, *is_complex, *out, err);
done:
    free(text);
    fclose(f);
    if (st && *out) {
        optinc_cmat_free(*out);
        *out = NULL;
    }
    return st;
}

optinc_status optinc_npy_write(const char *path, const optinc_cmat *m, int real_only,
                               optinc_error *err)
{
    size_t n = (size_t)m->rows * (size_t)m->cols;
    int cplx = 0;
    for (size_t k = 0; k < n && !cplx; k++)
        cplx = !real_only || cimag(m->a[k]) != 0;
    char head[128];
    int len = snprintf(head, sizeof head,
                       "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }",
                       cplx ? "<c16" : "<f8", m->rows, m->cols);
    /* Pad with spaces so magic + header ends on a 64-byte boundary, as numpy does. */
    int total = (10 + len + 1 + 63) / 64 * 64;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    pre[8] = (unsigned char)((total - 10) & 0xff);
    pre[9] = (unsigned char)((total - 10) >> 8);
    optinc_out o;
    optinc_status st = optinc_out_open(&o, path, err);
    if (st)
        return st;
    fwrite(pre, 1, 10, o.f);
    fprintf(o.f, "%s%*s\n", head, total - 10 - len - 1, "");
    unsigned char buf[16];
    for (size_t k = 0; k < n; k++) {
        put_le_double(buf, creal(m->a[k]));
        put_le_double(buf + 8, cimag(m->a[k]));
        fwrite(buf, 1, cplx ? 16 : 8, o.f);
    }
    return optinc_out_commit(&o, err);
}

/* ----------------------------------------------------------------- csv -- */

static int blank(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == '\0';
}

/* Parses one data line into *vals (grown as needed); sets *ncols. */
static optinc_status csv_line(char *line, int lineno, const char *path, double complex **vals,
                              size_t *nvals, size_t *cap, long *ncols, int *is_complex,
                              optinc_error *err)
{
    long count = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        char *start = p, *end = p;
        while (*end && *end != ',')
            end++;
        char *stop = end;
        while (stop > start && (stop[-1] == ' ' || stop[-1] == '\t'))
            stop--;
        char saved = *stop;
        *stop = '\0';
        int col = (int)(start - line) + 1, imag = 0;
        double complex z;
        int r = optinc_parse_number(start, &z, &imag);
        if (r != 0) {
            optinc_status st;
            if (!*start)
                st = optinc_fail(err, OPTINC_EINPUT, path, lineno, col,
                                 "empty field; every entry needs a number between commas");
            else if (r > 0)
                st = optinc_fail(err, OPTINC_EINPUT, path, lineno, col,
                                 "entry '%s' is NaN or infinite; weights must be finite", start);
            else
                st = optinc_fail(err, OPTINC_EINPUT, path, lineno, col,
                                 "entry '%s' is not a number; write reals like -0.25 or 1e-3 "
                                 "and complex values like 1.5-2j", start);
            *stop = saved;
            return st;
        }
        *stop = saved;
        if (++count > OPTINC_MATRIX_DIM_MAX)
            return check_dims(err, path, lineno, col, 1, count);
        if (*nvals == *cap) {
            size_t nc = *cap ? *cap * 2 : 256;
            double complex *nv = realloc(*vals, nc * sizeof *nv);
            if (!nv)
                return no_memory(err, path);
            *vals = nv;
            *cap = nc;
        }
        (*vals)[(*nvals)++] = z;
        *is_complex |= cimag(z) != 0;
        if (!*end)
            break;
        p = end + 1;
    }
    *ncols = count;
    return OPTINC_OK;
}

optinc_status optinc_csv_read(const char *path, optinc_cmat **out, int *is_complex,
                              optinc_error *err)
{
    FILE *f;
    optinc_status st;
    char *line = NULL;
    size_t linecap = 0, nvals = 0, cap = 0;
    double complex *vals = NULL;
    long rows = 0, cols = 0;
    int lineno = 0, blank_at = 0;
    ssize_t len;
    *out = NULL;
    *is_complex = 0;
    if ((st = open_input(path, &f, err)))
        return st;
    while ((len = getline(&line, &linecap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        const char *q = line + strspn(line, " \t");
        if (*q == '#')
            continue;       /* numpy.savetxt header/comment lines */
        if (blank(line)) {
            if (!blank_at)
                blank_at = lineno;
            continue;
        }
        if (blank_at && rows > 0) {
            st = optinc_fail(err, OPTINC_EINPUT, path, blank_at, 1,
                             "blank line inside the matrix; remove it (one row per line)");
            goto done;
        }
        blank_at = 0;
        long n = 0;
        if ((st = csv_line(line, lineno, path, &vals, &nvals, &cap, &n, is_complex, err)))
            goto done;
        if (rows > 0 && n != cols) {
            st = optinc_fail(err, OPTINC_EINPUT, path, lineno, 1,
                             "row %ld has %ld entries but the first row has %ld; every row "
                             "needs the same number of columns", rows + 1, n, cols);
            goto done;
        }
        cols = n;
        if ((st = check_dims(err, path, lineno, 1, ++rows, cols)))
            goto done;
    }
    if (ferror(f)) {
        st = optinc_fail(err, OPTINC_ERUN, path, 0, 0, "cannot read '%s': %s", path,
                         strerror(errno));
        goto done;
    }
    if (rows == 0) {
        st = optinc_fail(err, OPTINC_EINPUT, path, 1, 1,
                         "no matrix rows in the file; write one row per line, entries "
                         "separated by commas");
        goto done;
    }
    if (!(*out = optinc_cmat_new((int)rows, (int)cols))) {
        st = no_memory(err, path);
        goto done;
    }
    memcpy((*out)->a, vals, nvals * sizeof *vals);
done:
    free(line);
    free(vals);
    fclose(f);
    return st;
}

/* -------------------------------------------------------------- sha256 -- */

typedef struct sha256_ctx {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t fill;
} sha256_ctx;

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static uint32_t ror(uint32_t x, int n) { return x >> n | x << (32 - n); }

static void sha256_block(sha256_ctx *c, const unsigned char *p)
{
    uint32_t w[64], v[8];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
               (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ w[t - 15] >> 3;
        uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ w[t - 2] >> 10;
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    memcpy(v, c->h, sizeof v);
    for (int t = 0; t < 64; t++) {
        uint32_t t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
                      ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha_k[t] + w[t];
        uint32_t t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
                      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
        memmove(v + 1, v, 7 * sizeof v[0]);
        v[4] += t1;
        v[0] = t1 + t2;
    }
    for (int k = 0; k < 8; k++)
        c->h[k] += v[k];
}

static void sha256_init(sha256_ctx *c)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, h0, sizeof h0);
    c->bytes = 0;
    c->fill = 0;
}

static void sha256_update(sha256_ctx *c, const void *data, size_t len)
{
    const unsigned char *p = data;
    c->bytes += len;
    while (len > 0) {
        size_t take = 64 - c->fill < len ? 64 - c->fill : len;
        memcpy(c->block + c->fill, p, take);
        c->fill += take;
        p += take;
        len -= take;
        if (c->fill == 64) {
            sha256_block(c, c->block);
            c->fill = 0;
        }
    }
}

static void sha256_final(sha256_ctx *c, unsigned char digest[32])
{
    uint64_t bits = c->bytes * 8;
    unsigned char pad[72] = {0x80};
    size_t padlen = (c->fill < 56 ? 56 : 120) - c->fill;
    for (int k = 0; k < 8; k++)
        pad[padlen + k] = (unsigned char)(bits >> (56 - 8 * k));
    sha256_update(c, pad, padlen + 8);
    for (int k = 0; k < 32; k++)
        digest[k] = (unsigned char)(c->h[k / 4] >> (24 - 8 * (k % 4)));
}

void optinc_sha256(const void *data, size_t len, unsigned char digest[32])
{
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, data, len);
    sha256_final(&c, digest);
}

optinc_status optinc_sha256_file(const char *path, unsigned char digest[32], optinc_error *err)
{
    FILE *f;
    optinc_status st = open_input(path, &f, err);
    if (st)
        return st;
    sha256_ctx c;
    unsigned char buf[65536];
    size_t got;
    sha256_init(&c);
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&c, buf, got);
    if (ferror(f))
        st = optinc_fail(err, OPTINC_ERUN, path, 0, 0, "cannot read '%s': %s", path,
                         strerror(errno));
    fclose(f);
    sha256_final(&c, digest);
    return st;
}

/*
 * npy.c - the .npy matrix format: reading it from memory or a file, writing
 * it (fileio.h).
 *
 * .npy is NumPy's own format (format 1.0 and 2.0): the magic "\x93NUMPY", a
 * version, a little-endian header length, a Python-dict header padded with
 * blanks and a newline, then the raw little-endian data.  We accept exactly
 * what numpy.save writes for a 1-D or 2-D float64/complex128 C-order array
 * and nothing looser, because a silently transposed or truncated weight
 * matrix is the worst kind of bug.  Problems are reported as line 1 and
 * column = byte offset in the file + 1 (the header is the file's first line).
 * NaN/Inf entries and sizes beyond OPTINC_MATRIX_DIM_MAX /
 * OPTINC_MATRIX_ENTRIES_MAX are refused before anything is allocated, and
 * the writer refuses to write a NaN or an infinity, so that whatever it
 * writes reads back.
 *
 * The reader takes the whole file in memory: the header says how many bytes
 * the data must have, so a short or a long file is known before any entry is
 * decoded, and the path version is a wrapper that reads a regular file of at
 * most OPTINC_NPY_BYTES_MAX bytes without blocking.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "compiler/core/matrix_file.h"
#include "optinc/fileio.h"

/* A cursor over the .npy header text; `base` is the file offset of s[0]. */
typedef struct npy_hdr {
    const char *s;
    size_t n, i, base;
    const char *name;
    optinc_error *err;
} npy_hdr;

static optinc_status hdr_fail(npy_hdr *h, const char *what, const char *fix)
{
    return optinc_fail(h->err, OPTINC_EINPUT, h->name, 1, (int)(h->base + h->i + 1),
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
            if ((st = optinc_matrix_file_dims(h->err, h->name, 1, (int)(h->base + val_at + 1), *rows, *cols)))
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

/* The rows x cols entries at data_at of in, into m. */
static optinc_status npy_data(const optinc_input *in, size_t data_at, int cplx, optinc_cmat *m,
                              optinc_error *err)
{
    size_t width = cplx ? 16 : 8, n = (size_t)m->rows * (size_t)m->cols;
    size_t have = in->len - data_at;
    const unsigned char *p = (const unsigned char *)in->data + data_at;
    if (have < n * width)
        return optinc_fail(err, OPTINC_EINPUT, in->name, 1, (int)(in->len + 1),
                           ".npy data is truncated: the header promises %ld x %ld %s values "
                           "(%zu bytes) but the file ends early; write it again",
                           (long)m->rows, (long)m->cols, cplx ? "complex128" : "float64",
                           n * width);
    for (size_t k = 0; k < n; k++) {
        double re = le_double(p + k * width), im = cplx ? le_double(p + k * width + 8) : 0;
        if (!isfinite(re) || !isfinite(im))
            return optinc_fail(err, OPTINC_EINPUT, in->name, 1, (int)(data_at + k * width + 1),
                               "entry (%zu, %zu) is NaN or infinite; weights must be finite",
                               k / (size_t)m->cols + 1, k % (size_t)m->cols + 1);
        m->a[k] = CMPLX(re, im);
    }
    if (have > n * width)
        return optinc_fail(err, OPTINC_EINPUT, in->name, 1, (int)(data_at + n * width + 1),
                           ".npy file has bytes after the %ld x %ld array; write it again "
                           "with numpy.save", (long)m->rows, (long)m->cols);
    return OPTINC_OK;
}

/* The magic, the version and the header length: *base is the offset of the
 * header text, *hlen its length. */
static optinc_status npy_preamble(const optinc_input *in, size_t *base, size_t *hlen,
                                  optinc_error *err)
{
    static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    const unsigned char *p = (const unsigned char *)in->data;
    if (in->len < 10 || memcmp(p, magic, 6))
        return optinc_fail(err, OPTINC_EINPUT, in->name, 1, 1,
                           "not a .npy file: it does not start with the .npy magic (the "
                           "byte 0x93, then NUMPY); %s", npy_fix);
    if (p[6] != 1 && p[6] != 2)
        return optinc_fail(err, OPTINC_EINPUT, in->name, 1, 7,
                           ".npy format version %d.%d is not supported (1.0 and 2.0 are); %s",
                           p[6], p[7], npy_fix);
    *hlen = p[8] | (size_t)p[9] << 8;
    *base = 10;
    if (p[6] == 2) {
        if (in->len < 12)
            return optinc_fail(err, OPTINC_EINPUT, in->name, 1, 11, ".npy header is truncated");
        *hlen |= (size_t)p[10] << 16 | (size_t)p[11] << 24;
        *base = 12;
    }
    if (*hlen > OPTINC_NPY_HEADER_MAX)
        return optinc_fail(err, OPTINC_EINPUT, in->name, 1, 9,
                           ".npy header length %zu is implausible; %s", *hlen, npy_fix);
    if (in->len - *base < *hlen)
        return optinc_fail(err, OPTINC_EINPUT, in->name, 1, (int)*base + 1,
                           ".npy header is truncated (%zu bytes promised)", *hlen);
    return OPTINC_OK;
}

optinc_status optinc_npy_parse(const optinc_input *in, optinc_cmat **out, int *is_complex,
                               optinc_error *err)
{
    size_t base = 0, hlen = 0;
    long rows = 0, cols = 0;
    *out = NULL;
    optinc_status st = npy_preamble(in, &base, &hlen, err);
    if (st)
        return st;
    npy_hdr h = {in->data + base, hlen, 0, base, in->name, err};
    if ((st = npy_parse_header(&h, is_complex, &rows, &cols)))
        return st;
    if (!(*out = optinc_cmat_new((int)rows, (int)cols)))
        return optinc_matrix_file_no_memory(err, in->name);
    if ((st = npy_data(in, base + hlen, *is_complex, *out, err))) {
        optinc_cmat_free(*out);
        *out = NULL;
    }
    return st;
}

optinc_status optinc_npy_read(const char *path, const optinc_read_opts *opts, optinc_cmat **out,
                              int *is_complex, optinc_error *err)
{
    return optinc_matrix_file_read(path, OPTINC_NPY_BYTES_MAX, opts, optinc_npy_parse, out,
                                   is_complex, err);
}

/* The reader refuses NaN and infinite entries, so the writer does too,
 * before it writes a byte. */
static optinc_status finite_entries(const char *path, const optinc_cmat *m, optinc_error *err)
{
    size_t n = (size_t)m->rows * (size_t)m->cols;
    for (size_t k = 0; k < n; k++)
        if (!isfinite(creal(m->a[k])) || !isfinite(cimag(m->a[k])))
            return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "entry (%zu, %zu) to be written "
                               "is NaN or infinite, which optinc does not read back, so "
                               "nothing was written; the values it came from are too large "
                               "for double precision: scale them down",
                               k / (size_t)m->cols + 1, k % (size_t)m->cols + 1);
    return OPTINC_OK;
}

/* The .npy bytes of m, its entries checked already. */
static void put_entries(FILE *f, const optinc_cmat *m, int real_only)
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
    fwrite(pre, 1, 10, f);
    fprintf(f, "%s%*s\n", head, total - 10 - len - 1, "");
    unsigned char buf[16];
    for (size_t k = 0; k < n; k++) {
        put_le_double(buf, creal(m->a[k]));
        put_le_double(buf + 8, cimag(m->a[k]));
        fwrite(buf, 1, cplx ? 16 : 8, f);
    }
}

optinc_status optinc_npy_add(optinc_outs *s, const char *path, const optinc_cmat *m,
                             int real_only, optinc_error *err)
{
    optinc_out o;
    optinc_status st = finite_entries(path, m, err);
    if (!st)
        st = optinc_out_open(&o, path, err);
    if (st)
        return st;
    put_entries(o.f, m, real_only);
    return optinc_outs_add(s, &o, err);
}

optinc_status optinc_npy_write(const char *path, const optinc_cmat *m, int real_only,
                               optinc_error *err)
{
    optinc_outs one = {0};
    return optinc_outs_end(&one, optinc_npy_add(&one, path, m, real_only, err), err);
}

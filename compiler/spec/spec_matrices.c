/*
 * spec_matrices.c - the matrices: section of a spec (optinc-spec(5)): each
 * matrix's shape and dtype, and its values from exactly one of data:
 * (inline rows), file: (a .npy or .csv file beside the spec, or wherever the
 * resolver of the read options finds it) or generate:
 * (a seeded Haar-random unitary or Gaussian matrix).
 *
 * A matrix is the one thing in a spec that can be big, so the sizes come
 * first: each shape is checked against the limits on modes and entries, and
 * the entries of all matrices together, before any matrix is allocated,
 * read or generated.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/fileio.h"
#include "optinc/matrix.h"
#include "optinc/rng.h"
#include "compiler/spec/spec_internal.h"

/* A layer of this matrix would need a mesh on more modes than the limit. */
static optinc_status too_many_modes(ctx *c, yaml_node_t *v, const char *what, int k,
                                    long long d)
{
    char lim[160];
    return optinc_spec_fail(c, v, "'shape' in %s has %lld %s: its mesh would have more modes "
                            "than %s; or split the layer into smaller ones", what, d,
                            k ? "columns" : "rows",
                            optinc_limits_text(c->lim, OPTINC_LIMIT_MODES, lim, sizeof lim));
}

static optinc_status parse_shape(ctx *c, yaml_node_t *n, const char *what, int *rows,
                                 int *cols)
{
    char buf[80];
    if (seq_len(n) != 2)
        return optinc_spec_fail(c, n, "'shape' in %s must be a list [rows, cols] of two whole "
                                "numbers, not %s", what,
                                n->type == YAML_SEQUENCE_NODE
                                    ? "a list of another length"
                                    : optinc_spec_describe(n, buf, sizeof buf));
    long long d[2];
    for (int k = 0; k < 2; k++) {
        yaml_node_t *v = seq_item(c, n, k);
        unsigned long long u;
        optinc_status st = optinc_spec_whole(c, v, "shape", what, 0, &d[k], &u);
        if (st)
            return st;
        if (d[k] < 1)
            return optinc_spec_fail(c, v, "'shape' in %s has %s %lld; each dimension must be at "
                                    "least 1", what, k ? "cols" : "rows", d[k]);
        if (d[k] > OPTINC_MATRIX_DIM_MAX)
            return too_many_modes(c, v, what, k, d[k]);
    }
    if (d[0] * d[1] > OPTINC_MATRIX_ENTRIES_MAX)
        return optinc_spec_fail(c, n, "'shape' [%lld, %lld] of %s has %lld entries, more than "
                                "the limit of %ld (2^26); split the weights over smaller layers",
                                d[0], d[1], what, d[0] * d[1], OPTINC_MATRIX_ENTRIES_MAX);
    for (int k = 0; k < 2; k++)
        if (d[k] > optinc_limits_get(c->lim, OPTINC_LIMIT_MODES))
            return too_many_modes(c, seq_item(c, n, k), what, k, d[k]);
    *rows = (int)d[0];
    *cols = (int)d[1];
    return OPTINC_OK;
}

/* --------------------------------------------------------------- data: -- */

static optinc_status parse_entry(ctx *c, yaml_node_t *n, optinc_spec_matrix *m, int r, int k,
                                 double complex *z)
{
    char where[160], buf[80];
    optinc_status st;
    snprintf(where, sizeof where, "matrix '%s' (row %d, column %d)", m->name, r + 1, k + 1);
    if (seq_len(n) == 2) {
        double v[2];
        for (int j = 0; j < 2; j++)
            if ((st = optinc_spec_number(c, seq_item(c, n, j), "entry", where, &v[j])))
                return st;
        *z = CMPLX(v[0], v[1]);
    } else if (n->type == YAML_SCALAR_NODE) {
        int imag = 0;
        if ((st = optinc_spec_number_any(c, n, "entry", where, 0, z, &imag)))
            return st;
    } else {
        return optinc_spec_fail(c, n, "entry of %s must be a number, a complex string like "
                                "'1+2j' or a pair [re, im], not %s", where,
                                optinc_spec_describe(n, buf, sizeof buf));
    }
    if (!m->is_complex && cimag(*z) != 0)
        return optinc_spec_fail(c, n, "entry of %s has imaginary part %g but the matrix has "
                                "dtype real; set 'dtype: complex' or drop the imaginary part",
                                where, cimag(*z));
    return OPTINC_OK;
}

static optinc_status parse_data(ctx *c, yaml_node_t *n, optinc_spec_matrix *m)
{
    char buf[80];
    if (n->type != YAML_SEQUENCE_NODE)
        return optinc_spec_fail(c, n, "'data' of matrix '%s' must be a list of rows, not %s",
                                m->name, optinc_spec_describe(n, buf, sizeof buf));
    long nrows = seq_len(n);
    if (nrows != m->rows)
        return optinc_spec_fail(c, n, "matrix '%s' has shape [%d, %d] but its data has %ld "
                                "rows; give one list per row (%d rows) or fix 'shape'", m->name,
                                m->rows, m->cols, nrows, m->rows);
    for (int r = 0; r < m->rows; r++) {
        yaml_node_t *row = seq_item(c, n, r);
        if (row->type != YAML_SEQUENCE_NODE)
            return optinc_spec_fail(c, row, "row %d of matrix '%s' must be a list of %d "
                                    "entries, not %s", r + 1, m->name, m->cols,
                                    optinc_spec_describe(row, buf, sizeof buf));
        long len = seq_len(row);
        if (len != m->cols)
            return optinc_spec_fail(c, row, "row %d of matrix '%s' has %ld entries but shape "
                                    "[%d, %d] needs %d columns; fix the row or 'shape'", r + 1,
                                    m->name, len, m->rows, m->cols, m->cols);
        for (int k = 0; k < m->cols; k++) {
            optinc_status st = parse_entry(c, seq_item(c, row, k), m, r, k,
                                           &m->data[(size_t)r * m->cols + k]);
            if (st)
                return st;
        }
    }
    return OPTINC_OK;
}

/* ---------------------------------------------------- file:, generate: -- */

/* Moves a cmat's entries into m->data and frees it. */
static void take_cmat(optinc_spec_matrix *m, optinc_cmat *a)
{
    memcpy(m->data, a->a, (size_t)m->rows * m->cols * sizeof *m->data);
    optinc_cmat_free(a);
}

/* The largest matrix file read for a rows x cols matrix, so that a spec
 * whose shape says 2 x 2 cannot make the loader read a gigabyte: a .npy
 * holds 16 bytes an entry at most (complex128) after its preamble and
 * header, which numpy.save pads to a few hundred bytes; a .csv at most 58
 * bytes an entry as numpy.savetxt writes it (fileio.h), 64 leaving room
 * for blanks a person adds.  The 64 KiB on top takes a header, comment
 * lines and a file whose shape differs from the spec's a little (that one
 * is then reported as a shape mismatch, which says more than a size); the
 * readers' own caps bound the rest. */
static size_t matrix_file_bytes(const optinc_spec_matrix *m, int npy)
{
    size_t entries = (size_t)m->rows * (size_t)m->cols, slack = (size_t)64 << 10;
    size_t bytes = (npy ? 16 : 64) * entries + slack;
    size_t cap = npy ? OPTINC_NPY_BYTES_MAX : OPTINC_CSV_BYTES_MAX;
    return bytes < cap ? bytes : cap;
}

/* The matrix file rel that node n of matrix m names, read as .npy (npy) or
 * .csv: the one file other than the spec the loader reads, through the
 * resolver of the read options (by default rel relative to the spec's
 * folder, absolute when it starts with '/').  The resolver cannot say
 * which spec node named the file, so its refusal (no such file, not a
 * regular file, too large) is reported here at n, with its message. */
static optinc_status resolve_matrix_file(ctx *c, yaml_node_t *n, const char *rel,
                                         const optinc_spec_matrix *m, int npy, optinc_cmat **a,
                                         int *is_complex)
{
    optinc_blob blob;
    optinc_error why;
    size_t limit = matrix_file_bytes(m, npy);
    optinc_status st = optinc_read_resolve(c->opts, c->path, rel, limit, "matrix file", &blob,
                                           &why);
    if (st) {
        optinc_spec_fail(c, n, "cannot read matrix file '%.200s' of matrix '%s': %.600s; "
                         "paths are relative to the spec's directory", rel, m->name,
                         why.message);
        return st;
    }
    optinc_input in = optinc_blob_input(&blob);
    st = npy ? optinc_npy_parse(&in, a, is_complex, c->err)
             : optinc_csv_parse(&in, a, is_complex, c->err);
    optinc_blob_free(&blob);
    return st;
}

static optinc_status parse_file(ctx *c, yaml_node_t *n, yaml_node_t *shape,
                                optinc_spec_matrix *m)
{
    char what[128];
    snprintf(what, sizeof what, "matrix '%s'", m->name);
    optinc_status st = optinc_spec_want_scalar(c, n, "file", what, "a file name");
    if (st)
        return st;
    const char *rel = scalar_of(n), *dot = strrchr(rel, '.');
    int npy = dot && !strcmp(dot, ".npy");
    if (!npy && !(dot && !strcmp(dot, ".csv")))
        return optinc_spec_fail(c, n, "matrix file '%.200s' of matrix '%s' must end in .csv or "
                                ".npy", rel, m->name);
    optinc_cmat *a;
    int is_complex;
    if ((st = resolve_matrix_file(c, n, rel, m, npy, &a, &is_complex)))
        return st;
    if (a->rows != m->rows || a->cols != m->cols)
        st = optinc_spec_fail(c, shape, "matrix '%s' has shape [%d, %d] but its file '%.200s' "
                              "holds a %d x %d matrix; fix 'shape' or the file", m->name,
                              m->rows, m->cols, rel, a->rows, a->cols);
    else if (is_complex && !m->is_complex)
        st = optinc_spec_fail(c, n, "matrix '%s' has dtype real but its file '%.200s' holds "
                              "complex values; set 'dtype: complex' or store real values",
                              m->name, rel);
    if (st)
        optinc_cmat_free(a);
    else
        take_cmat(m, a);
    return st;
}

static optinc_status parse_generate(ctx *c, yaml_node_t *n, optinc_spec_matrix *m)
{
    static const char *const keys[] = {"kind", "seed", NULL};
    static const char *const kinds[] = {"haar_unitary", "gaussian", NULL};
    static const field fields[] = {{"seed", 'u', 0, 0, 0, 0, 0, NULL},
                                   FIELDS_END};
    char what[128];
    yaml_node_t *kn;
    int kind = 0;
    uint64_t seed = c->spec->settings.seed;
    snprintf(what, sizeof what, "generate of matrix '%s'", m->name);
    optinc_status st;
    if ((st = optinc_spec_check_map(c, n, what, keys)) ||
        (st = optinc_spec_require(c, n, "kind", what, "add 'kind: haar_unitary' or "
                                  "'kind: gaussian'", &kn)) ||
        (st = optinc_spec_read_enum(c, n, "kind", what, kinds, &kind)) ||
        (st = optinc_spec_read_fields(c, n, what, fields, &seed)))
        return st;
    if (kind == 0 && m->rows != m->cols)
        return optinc_spec_fail(c, kn, "haar_unitary makes a square unitary matrix but matrix "
                                "'%s' has shape [%d, %d]; use a square shape or 'kind: "
                                "gaussian'", m->name, m->rows, m->cols);
    if (kind == 0 && !m->is_complex)
        return optinc_spec_fail(c, kn, "haar_unitary makes a complex matrix but matrix '%s' has "
                                "dtype real; set 'dtype: complex'", m->name);
    optinc_rng rng;
    optinc_rng_seed(&rng, seed);
    optinc_cmat *a = kind == 0 ? optinc_cmat_haar(m->rows, &rng)
                               : optinc_cmat_gaussian(m->rows, m->cols, m->is_complex, &rng);
    if (!a)
        return optinc_fail(c->err, OPTINC_ERUN, c->path, 0, 0,
                           "out of memory generating matrix '%s'", m->name);
    take_cmat(m, a);
    return OPTINC_OK;
}

/* ------------------------------------------------------------ a matrix -- */

static optinc_status parse_matrix(ctx *c, yaml_node_t *key, yaml_node_t *def,
                                  optinc_spec_matrix *m)
{
    static const char *const keys[] = {"shape", "dtype", "data", "file", "generate", NULL};
    static const char *const sources[] = {"data", "file", "generate"};
    static const char *const dtypes[] = {"real", "complex", NULL};
    char what[128];
    optinc_status st;
    yaml_node_t *shape, *src = NULL;
    const char *src_name = NULL;
    if ((st = optinc_spec_ident(c, key, "matrix name", "matrices", m->name)))
        return st;
    snprintf(what, sizeof what, "matrix '%s'", m->name);
    m->line = (int)key->start_mark.line + 1;
    m->column = (int)key->start_mark.column + 1;
    if ((st = optinc_spec_check_map(c, def, what, keys)) ||
        (st = optinc_spec_require(c, def, "shape", what, "add 'shape: [rows, cols]'", &shape)) ||
        (st = parse_shape(c, shape, what, &m->rows, &m->cols)) ||
        (st = optinc_spec_read_enum(c, def, "dtype", what, dtypes, &m->is_complex)))
        return st;
    for (yaml_node_pair_t *p = def->data.mapping.pairs.start; p < def->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = node(c, p->key);
        for (int i = 0; i < COUNT_OF(sources); i++) {
            if (strcmp(scalar_of(k), sources[i]) || is_null(node(c, p->value)))
                continue;
            if (src)
                return optinc_spec_fail(c, k, "matrix '%s' gives both '%s' and '%s'; keep "
                                        "exactly one of data, file, generate", m->name,
                                        src_name, sources[i]);
            src = node(c, p->value);
            src_name = sources[i];
        }
    }
    if (!src)
        return optinc_spec_fail(c, def, "matrix '%s' has no values; give exactly one of 'data' "
                                "(inline rows), 'file' (a .csv or .npy file) or 'generate' "
                                "(haar_unitary or gaussian)", m->name);
    if (!(m->data = calloc((size_t)m->rows * m->cols, sizeof *m->data)))
        return optinc_fail(c->err, OPTINC_ERUN, c->path, 0, 0,
                           "out of memory for matrix '%s'", m->name);
    if (src_name[0] == 'd')
        return parse_data(c, src, m);
    if (src_name[0] == 'f')
        return parse_file(c, src, shape, m);
    return parse_generate(c, src, m);
}

/* The entries of all matrices together, before any is read or generated;
 * a shape that is wrong is skipped here (c->err is swapped for a scratch
 * record) and reported by parse_matrix, in file order. */
static optinc_status check_total_entries(ctx *c, yaml_node_t *n)
{
    optinc_error scratch, *err = c->err;
    long long total = 0;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *shape = optinc_spec_get(c, node(c, p->value), "shape");
        const char *name = scalar_of(node(c, p->key));
        int rows, cols;
        c->err = &scratch;
        int ok = shape && !parse_shape(c, shape, "", &rows, &cols);
        c->err = err;
        if (ok && strncmp(name, "x-", 2) &&
            (total += (long long)rows * cols) > OPTINC_MATRIX_ENTRIES_MAX)
            return optinc_spec_fail(c, shape, "with matrix '%.64s' the matrices hold %lld "
                                    "entries in total, more than the limit of %ld (2^26, 1 GiB "
                                    "of complex numbers); put fewer or smaller matrices in one "
                                    "spec", name, total, OPTINC_MATRIX_ENTRIES_MAX);
    }
    return OPTINC_OK;
}

optinc_status optinc_spec_parse_matrices(ctx *c, yaml_node_t *n)
{
    void *matrices;
    optinc_status st = optinc_spec_check_map(c, n, "matrices", NULL);
    if (st || (st = check_total_entries(c, n)) ||
        (st = optinc_spec_entries(c, n, "matrices", map_len(n), OPTINC_LAYERS_MAX,
                                  sizeof *c->spec->matrices, &matrices)))
        return st;
    c->spec->matrices = matrices;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *key = node(c, p->key);
        if (!strncmp(scalar_of(key), "x-", 2))
            continue;
        optinc_spec_matrix *m = &c->spec->matrices[c->spec->n_matrices++];
        if ((st = parse_matrix(c, key, node(c, p->value), m)))
            return st;
    }
    return OPTINC_OK;
}

/*
 * csv.c - the .csv matrix format and the numbers in it (fileio.h).
 *
 * One matrix row per line, entries separated by commas, blanks around them
 * ignored; a line whose first non-blank is '#' is a comment (numpy.savetxt
 * writes its header that way), blank lines before and after the matrix are
 * ignored but one inside it is an error.  Entries are real or NumPy-spelled
 * complex ("1-2j", "(1-2j)" as numpy.savetxt writes them).  Errors give the
 * line and column of the bad field; NaN/Inf entries and sizes beyond
 * OPTINC_MATRIX_DIM_MAX / OPTINC_MATRIX_ENTRIES_MAX are refused.
 *
 * The lines come from the shared line reader of text.h, which refuses a NUL
 * byte with its position (a C-string parser would silently drop the rest of
 * its line); each line is copied once into a NUL-terminated buffer that the
 * field parser cuts in place.  The path version reads a regular file of at
 * most OPTINC_CSV_BYTES_MAX bytes without blocking.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "compiler/core/matrix_file.h"
#include "compiler/core/numtext.h"
#include "optinc/fileio.h"

/* The real at [b, e) in the decimal grammar of numtext.h (no hexadecimal
 * or blanks, which strtod would take): 0, -1 when it is not one, 1 when it
 * is beyond the largest double or spells infinity or NaN as C and NumPy do
 * (inf, infinity, nan, in any case, signed), so that a reader can say why
 * such an entry is refused. */
static int real_at(const char *b, const char *e, double *x)
{
    optinc_num_parse_result r = optinc_num_parse(b, (size_t)(e - b), x);
    if (r == OPTINC_NUM_SYNTAX) {
        b += b < e && (*b == '+' || *b == '-');
        size_t n = (size_t)(e - b);
        static const char *const words[] = {"inf", "infinity", "nan"};
        for (int k = 0; k < 3; k++)
            if (n == strlen(words[k]) && !strncasecmp(b, words[k], n))
                return 1;
    }
    return r == OPTINC_NUM_OK ? 0 : r == OPTINC_NUM_RANGE ? 1 : -1;
}

int optinc_parse_number(const char *s, double complex *z, int *had_imag)
{
    const char *b = s, *e = s + strlen(s);
    if (b < e && *b == '(') {
        if (e - b < 2 || e[-1] != ')')
            return -1;
        b++;
        e--;
    }
    if (b == e)
        return -1;
    /* a 'j' part starts at the last sign that is not an exponent's */
    int imag = e[-1] == 'j' || e[-1] == 'J';
    const char *split = imag ? b : e;
    for (const char *p = b + 1; imag && p < e - 1; p++)
        if ((*p == '+' || *p == '-') && p[-1] != 'e' && p[-1] != 'E')
            split = p;
    double re = 0, im = 0;
    int r = split > b ? real_at(b, split, &re) : 0, ri = imag ? real_at(split, e - 1, &im) : 0;
    if (r < 0 || ri < 0)
        return -1;
    *z = CMPLX(r ? HUGE_VAL : re, ri ? HUGE_VAL : im);
    if (had_imag)
        *had_imag = imag;
    return r || ri;
}

static int blank(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == '\0';
}

/* Parses one data line into *vals (grown as needed); sets *ncols. */
static optinc_status csv_line(char *line, int lineno, const char *name, double complex **vals,
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
                st = optinc_fail(err, OPTINC_EINPUT, name, lineno, col,
                                 "empty field; every entry needs a number between commas");
            else if (r > 0)
                st = optinc_fail(err, OPTINC_EINPUT, name, lineno, col,
                                 "entry '%s' is NaN or infinite; weights must be finite", start);
            else
                st = optinc_fail(err, OPTINC_EINPUT, name, lineno, col,
                                 "entry '%s' is not a number; write reals like -0.25 or 1e-3 "
                                 "and complex values like 1.5-2j", start);
            *stop = saved;
            return st;
        }
        *stop = saved;
        if (++count > OPTINC_MATRIX_DIM_MAX)
            return optinc_matrix_file_dims(err, name, lineno, col, 1, count);
        if (*nvals == *cap) {
            size_t nc = *cap ? *cap * 2 : 256;
            double complex *nv = realloc(*vals, nc * sizeof *nv);
            if (!nv)
                return optinc_matrix_file_no_memory(err, name);
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

/* Line l of the input as a C string in *buf (grown as needed), without the
 * '\r's that end it.  -1 when out of memory. */
static int line_cstr(const optinc_line *l, char **buf, size_t *cap)
{
    size_t len = l->len;
    while (len > 0 && l->s[len - 1] == '\r')
        len--;
    if (len + 1 > *cap) {
        size_t nc = len + 1 > 2 * *cap ? len + 1 : 2 * *cap;
        char *nb = realloc(*buf, nc);
        if (!nb)
            return -1;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf, l->s, len);
    (*buf)[len] = '\0';
    return 0;
}

optinc_status optinc_csv_parse(const optinc_input *in, optinc_cmat **out, int *is_complex,
                               optinc_error *err)
{
    optinc_lines lines;
    optinc_line l;
    char *line = NULL;
    size_t linecap = 0, nvals = 0, cap = 0;
    double complex *vals = NULL;
    long rows = 0, cols = 0;
    int blank_at = 0;
    *out = NULL;
    *is_complex = 0;
    optinc_status st = optinc_lines_init(&lines, in, ".csv file", err);
    while (!st && optinc_lines_next(&lines, &l)) {
        if (line_cstr(&l, &line, &linecap)) {
            st = optinc_matrix_file_no_memory(err, in->name);
            break;
        }
        const char *q = line + strspn(line, " \t");
        if (*q == '#')
            continue;       /* numpy.savetxt header/comment lines */
        if (blank(line)) {
            if (!blank_at)
                blank_at = l.number;
            continue;
        }
        if (blank_at && rows > 0) {
            st = optinc_fail(err, OPTINC_EINPUT, in->name, blank_at, 1,
                             "blank line inside the matrix; remove it (one row per line)");
            break;
        }
        blank_at = 0;
        long n = 0;
        if ((st = csv_line(line, l.number, in->name, &vals, &nvals, &cap, &n, is_complex, err)))
            break;
        if (rows > 0 && n != cols) {
            st = optinc_fail(err, OPTINC_EINPUT, in->name, l.number, 1,
                             "row %ld has %ld entries but the first row has %ld; every row "
                             "needs the same number of columns", rows + 1, n, cols);
            break;
        }
        cols = n;
        st = optinc_matrix_file_dims(err, in->name, l.number, 1, ++rows, cols);
    }
    if (!st && rows == 0)
        st = optinc_fail(err, OPTINC_EINPUT, in->name, 1, 1,
                         "no matrix rows in the file; write one row per line, entries "
                         "separated by commas");
    if (!st && !(*out = optinc_cmat_new((int)rows, (int)cols)))
        st = optinc_matrix_file_no_memory(err, in->name);
    if (!st)
        memcpy((*out)->a, vals, nvals * sizeof *vals);
    free(line);
    free(vals);
    return st;
}

optinc_status optinc_csv_read(const char *path, const optinc_read_opts *opts, optinc_cmat **out,
                              int *is_complex, optinc_error *err)
{
    return optinc_matrix_file_read(path, OPTINC_CSV_BYTES_MAX, opts, optinc_csv_parse, out,
                                   is_complex, err);
}

/*
 * test_fileio.c - atomic output, .npy and .csv matrix files (from memory and
 * from paths: a FIFO, a link to one and a NUL byte are refused), number
 * parsing, SHA-256 and path helpers.
 *
 * Numbers parsed from text are compared with == to C literals of the same
 * decimals: the parser and the compiler both round a decimal to the nearest
 * double, so they are the same double; a .npy file holds the bits (memcmp).
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "optinc/fileio.h"
#include "testutil.h"

static void hex(const unsigned char d[32], char out[65])
{
    for (int i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

/* ------------------------------------------------------------- sha256 -- */

Test(sha256, fips_180_4_vectors)
{
    static const struct { const char *msg, *digest; } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
         "klmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        unsigned char d[32];
        char h[65];
        optinc_sha256(v[i].msg, strlen(v[i].msg), d);
        hex(d, h);
        cr_expect_str_eq(h, v[i].digest, "vector %zu", i);
    }
}

Test(sha256, million_a_and_file, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    size_t n = 1000000;
    char *a = malloc(n + 1);
    memset(a, 'a', n);
    a[n] = '\0';
    unsigned char d[32], e[32];
    char h[65];
    optinc_sha256(a, n, d);
    hex(d, h);
    cr_expect_str_eq(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    cr_assert_eq(tu_write_file(tu_scratch("a.txt"), a), 0);
    optinc_error err = {0};
    cr_assert_eq(optinc_sha256_file(tu_scratch_last(), e, &err), OPTINC_OK, "%s", err.message);
    cr_expect_eq(memcmp(d, e, 32), 0);
    cr_expect_eq(optinc_sha256_file(tu_scratch("missing"), e, &err), OPTINC_EINPUT);
    free(a);
}

/* A FIFO (or a device) is refused at once: hashing one would wait for a
 * writer, or never end. */
Test(sha256, fifo_and_folder_are_refused, .init = tu_scratch_init, .fini = tu_scratch_fini,
     .timeout = 20)
{
    unsigned char d[32];
    optinc_error err = {0};
    cr_assert_eq(mkfifo(tu_scratch("pipe"), 0600), 0);
    cr_expect_eq(optinc_sha256_file(tu_scratch_last(), d, &err), OPTINC_EINPUT);
    cr_expect(strstr(err.message, "is not a regular file"), "%s", err.message);
    cr_expect_eq(optinc_sha256_file(tu_scratch_dir(), d, &err), OPTINC_EINPUT);
    cr_expect(strstr(err.message, "is not a regular file"), "%s", err.message);
}

/* -------------------------------------------------------------- paths -- */

Test(path, dir_and_join)
{
    char out[256];
    optinc_path_dir("specs/net.yaml", out, sizeof out);
    cr_expect_str_eq(out, "specs");
    optinc_path_dir("net.yaml", out, sizeof out);
    cr_expect_str_eq(out, ".");
    optinc_path_dir("/net.yaml", out, sizeof out);
    cr_expect_str_eq(out, "/");
    optinc_path_dir("a/b/c.yaml", out, sizeof out);
    cr_expect_str_eq(out, "a/b");
    optinc_path_join("specs", "w/w1.csv", out, sizeof out);
    cr_expect_str_eq(out, "specs/w/w1.csv");
    optinc_path_join("specs/", "w1.csv", out, sizeof out);
    cr_expect_str_eq(out, "specs/w1.csv");
    optinc_path_join(".", "w1.csv", out, sizeof out);
    cr_expect_str_eq(out, "w1.csv");
    optinc_path_join("specs", "/abs/w1.csv", out, sizeof out);
    cr_expect_str_eq(out, "/abs/w1.csv");
}

/* ------------------------------------------------------------ numbers -- */

Test(number, numpy_spellings)
{
    static const struct { const char *s; double re, im; int imag, r; } v[] = {
        {"1.5", 1.5, 0, 0, 0},        {"-2e-3", -2e-3, 0, 0, 0},   {"2j", 0, 2, 1, 0},
        {"1+2j", 1, 2, 1, 0},         {"1.5-0.5J", 1.5, -0.5, 1, 0}, {"(1-2j)", 1, -2, 1, 0},
        {"-1e+2+3e-1j", -100, 0.3, 1, 0}, {"+0.25", 0.25, 0, 0, 0}, {"nan", 0, 0, 0, 1},
        {"1+infj", 0, 0, 0, 1},       {"", 0, 0, 0, -1},          {" 1", 0, 0, 0, -1},
        {"1 ", 0, 0, 0, -1},          {"1+2", 0, 0, 0, -1},       {"j", 0, 0, 0, -1},
        {"abc", 0, 0, 0, -1},         {"(1+2j", 0, 0, 0, -1},     {"1e", 0, 0, 0, -1},
        {"()", 0, 0, 0, -1},
        /* one decimal grammar: no hexadecimal; inf and nan are named (1), not numbers */
        {"0x1p1", 0, 0, 0, -1},       {"1+0x2j", 0, 0, 0, -1},    {"1e400", 0, 0, 0, 1},
        {"-Infinity", 0, 0, 0, 1},    {"NaN", 0, 0, 0, 1},        {"1e-3j", 0, 1e-3, 1, 0},
        {".5", 0.5, 0, 0, 0},         {"5.", 5, 0, 0, 0},         {"1e-3-2E+1j", 1e-3, -20, 1, 0},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        double complex z = 0;
        int imag = -1;
        int r = optinc_parse_number(v[i].s, &z, &imag);
        cr_expect_eq(r, v[i].r, "'%s' gave %d", v[i].s, r);
        if (r == 0 && v[i].r == 0) {
            cr_expect_eq(creal(z), v[i].re, "'%s'", v[i].s);
            cr_expect_eq(cimag(z), v[i].im, "'%s'", v[i].s);
            cr_expect_eq(imag, v[i].imag, "'%s'", v[i].s);
        }
    }
}

/* ------------------------------------------------------ atomic output -- */

/* The definition optinc_shortest keeps (shortest.c): of printf's %.*g at
 * precisions 1..17, the shortest text strtod reads back as x, the lowest
 * precision on a tie. */
static const char *shortest_by_definition(char buf[OPTINC_SHORTEST_MAX], double x)
{
    char try[OPTINC_SHORTEST_MAX];
    size_t best = 0;
    for (int d = 1; d <= 17; d++) {
        size_t n = (size_t)snprintf(try, sizeof try, "%.*g", d, x);
        if ((!best || n < best) && (strtod(try, NULL) == x || d == 17)) {
            memcpy(buf, try, n + 1);
            best = n;
        }
    }
    return buf;
}

/* The exports' numbers: the same text as the definition, byte for byte, on
 * chosen doubles (subnormals, ties of the 17th digit, integers past 2^53,
 * fixed against exponent forms) and on random bit patterns and phases. */
Test(number, shortest_is_the_definitions_text)
{
    static const double chosen[] = {0.05, 0.1 + 0.2, 20, 800, 1e6, 1.0 / 3, -0.0, 0, 5e-324,
                                    DBL_MAX, 3e-3, 123456789012.0, 123000, 1e21, 1e-5,
                                    0.00123, -2.5e-7, 9.5, 99.5, 2e-308, 1750, 0.0017500000000000001,
                                    0.55647146451882035, 45486998104437288.0, 1e16, 1e17, 100,
                                    1000, 10000, 100000, 120000, 1200000, -1200000, 12e13,
                                    999999999999999, 31750, 127};
    char a[OPTINC_SHORTEST_MAX], b[OPTINC_SHORTEST_MAX];
    for (size_t i = 0; i < sizeof chosen / sizeof chosen[0]; i++)
        cr_expect_str_eq(optinc_shortest(a, chosen[i]), shortest_by_definition(b, chosen[i]),
                         "%.17g", chosen[i]);
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < 40000; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double x = (double)(s >> 11) / 9007199254740992.0 * 6.283185307179586;
        if (i % 2)
            memcpy(&x, &s, sizeof x);
        if (!isfinite(x))
            continue;
        cr_assert_str_eq(optinc_shortest(a, x), shortest_by_definition(b, x), "%.17g", x);
    }
}

Test(out, commit_renames_and_leaves_no_temp, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    optinc_out o;
    optinc_error err = {0};
    cr_assert_eq(optinc_out_open(&o, tu_scratch("x.sp"), &err), OPTINC_OK, "%s", err.message);
    fprintf(o.f, "hello\n");
    cr_expect_eq(access(tu_scratch_last(), F_OK), -1, "target must not exist before commit");
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), 1);
    cr_expect(strstr(o.tmp, "/.x.sp.tmp") != NULL, "temp name %s", o.tmp);
    cr_assert_eq(optinc_out_commit(&o, &err), OPTINC_OK, "%s", err.message);
    char *text = tu_read_file(tu_scratch_last(), NULL);
    cr_expect_str_eq(text, "hello\n");
    free(text);
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), 1);
    struct stat sb;
    mode_t mask = umask(0);
    umask(mask);
    cr_assert_eq(stat(tu_scratch_last(), &sb), 0);
    cr_expect_eq(sb.st_mode & 0777, 0666 & ~mask);
    optinc_out_abort(&o);       /* harmless after commit */
    cr_expect_eq(access(tu_scratch_last(), F_OK), 0);
}

Test(out, abort_removes_temp_and_keeps_old_file, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    optinc_out o;
    optinc_error err = {0};
    cr_assert_eq(tu_write_file(tu_scratch("x.sp"), "old\n"), 0);
    cr_assert_eq(optinc_out_open(&o, tu_scratch_last(), &err), OPTINC_OK);
    fprintf(o.f, "partial");
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), 2);
    optinc_out_abort(&o);
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), 1);
    char *text = tu_read_file(tu_scratch_last(), NULL);
    cr_expect_str_eq(text, "old\n");
    free(text);
}

Test(out, missing_directory_is_an_error, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    optinc_out o;
    optinc_error err = {0};
    cr_expect_eq(optinc_out_open(&o, tu_scratch("nodir/x.sp"), &err), OPTINC_ERUN);
    cr_expect(strstr(err.message, "nodir") != NULL, "%s", err.message);
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), 0);
}

/* ---------------------------------------------------------------- npy -- */

static optinc_cmat *sample(int rows, int cols, int cplx)
{
    optinc_cmat *m = optinc_cmat_new(rows, cols);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            OPTINC_AT(m, r, c) = CMPLX(r - 0.1 * c + 1.0 / 3, cplx ? c * 0.7 - r / 7.0 : 0);
    return m;
}

static void expect_equal(const optinc_cmat *a, const optinc_cmat *b)
{
    cr_assert_eq(a->rows, b->rows);
    cr_assert_eq(a->cols, b->cols);
    cr_expect_eq(memcmp(a->a, b->a, (size_t)a->rows * a->cols * sizeof *a->a), 0,
                 "entries differ");
}

Test(npy, round_trip_real_and_complex, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    for (int cplx = 0; cplx < 2; cplx++) {
        optinc_cmat *m = sample(3, 5, cplx), *back = NULL;
        optinc_error err = {0};
        int is_complex = -1;
        cr_assert_eq(optinc_npy_write(tu_scratch("m.npy"), m, 1, &err), OPTINC_OK, "%s", err.message);
        size_t len;
        char *bytes = tu_read_file(tu_scratch_last(), &len);
        size_t hlen = (unsigned char)bytes[8] | (size_t)(unsigned char)bytes[9] << 8;
        cr_expect_eq((10 + hlen) % 64, 0, "header must be 64-byte aligned");
        cr_expect_eq(bytes[10 + hlen - 1], '\n');
        cr_expect(strstr(bytes + 10, cplx ? "'<c16'" : "'<f8'") != NULL);
        cr_expect(strstr(bytes + 10, "'shape': (3, 5)") != NULL);
        cr_expect_eq(len, 10 + hlen + 15 * (cplx ? 16 : 8));
        free(bytes);
        cr_assert_eq(optinc_npy_read(tu_scratch_last(), NULL, &back, &is_complex, &err),
                     OPTINC_OK, "%s",
                     err.message);
        cr_expect_eq(is_complex, cplx);
        expect_equal(m, back);
        optinc_cmat_free(back);
        /* real_only = 0 always writes complex128 */
        cr_assert_eq(optinc_npy_write(tu_scratch_last(), m, 0, &err), OPTINC_OK);
        cr_assert_eq(optinc_npy_read(tu_scratch_last(), NULL, &back, &is_complex, &err), OPTINC_OK);
        cr_expect_eq(is_complex, 1);
        expect_equal(m, back);
        optinc_cmat_free(back);
        optinc_cmat_free(m);
        cr_expect_eq(tu_dir_count(tu_scratch_dir()), 1);
    }
}

/* Writes a .npy with a hand-made header (version 1 or 2) and raw data. */
static void write_npy(const char *name, int version, const char *dict, const void *data,
                      size_t len)
{
    size_t pre = version == 1 ? 10 : 12, dl = strlen(dict);
    size_t total = (pre + dl + 1 + 63) / 64 * 64, hl = total - pre;
    FILE *f = fopen(tu_scratch(name), "wb");
    fwrite("\x93NUMPY", 1, 6, f);
    fputc(version, f);
    fputc(0, f);
    for (size_t k = 0; k < pre - 8; k++)
        fputc((int)((hl >> (8 * k)) & 0xff), f);
    fprintf(f, "%s%*s\n", dict, (int)(hl - dl - 1), "");
    fwrite(data, 1, len, f);
    fclose(f);
}

/* The writer refuses what the reader would: a NaN or an infinite entry is
 * bad input named after the file, and no file (nor temporary) is left. */
Test(npy, non_finite_entries_are_not_written, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    const double complex bad[] = {NAN, INFINITY, CMPLX(1, -INFINITY), CMPLX(NAN, 0)};
    for (int i = 0; i < 4; i++) {
        optinc_cmat *m = sample(2, 3, 1);
        m->a[4] = bad[i];
        optinc_error err = {0};
        cr_expect_eq(optinc_npy_write(tu_scratch("out.npy"), m, i % 2, &err), OPTINC_EINPUT,
                     "case %d", i);
        cr_expect_str_eq(err.file, tu_scratch_last());
        cr_expect(strstr(err.message, "entry (2, 2) to be written is NaN or infinite"), "%s",
                  err.message);
        cr_expect_eq(tu_dir_count(tu_scratch_dir()), 0, "case %d: nothing written", i);
        optinc_cmat_free(m);
    }
}

Test(npy, version2_and_vector_shape, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    double v[3] = {1.5, -2, 0.25};
    optinc_cmat *m = NULL;
    optinc_error err = {0};
    int cplx;
    write_npy("v.npy", 2, "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (3,)}", v,
              sizeof v);
    cr_assert_eq(optinc_npy_read(tu_scratch_last(), NULL, &m, &cplx, &err),
                 OPTINC_OK, "%s", err.message);
    cr_expect_eq(m->rows, 1);
    cr_expect_eq(m->cols, 3);
    cr_expect_eq(creal(m->a[2]), 0.25);
    cr_expect_eq(cplx, 0);
    optinc_cmat_free(m);
}

Test(npy, bad_files_point_at_the_problem, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    double d[8] = {1, 0, 0, 1, 0, 0, 0, 0}, nan_d[4] = {1, NAN, 0, 1};
    static const struct {
        const char *dict;
        size_t len;
        const char *needle, *fragment;   /* column = offset of needle in the file + 1 */
    } cases[] = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 32, "'<f4'",
         "dtype '<f4' is not supported"},
        {"{'descr': '>f8', 'fortran_order': False, 'shape': (2, 2), }", 32, "'>f8'",
         "dtype '>f8'"},
        {"{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", 32, "True",
         "Fortran"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 2), }", 64, "2), }",
         "more than 2 dimensions"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 8, "), }", "0-d"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), 'x': 1}", 32, "'x'",
         "unknown key 'x'"},
        {"{'descr': '<f8', 'shape': (2, 2), }", 32, "{", "missing"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", 24, NULL, "truncated"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", 40, NULL, "bytes after"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (70000, 2), }", 0, "(70000",
         "1..65536"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_npy("bad.npy", 1, cases[i].dict, d, cases[i].len);
        optinc_cmat *m = NULL;
        optinc_error err = {0};
        int cplx;
        cr_expect_eq(optinc_npy_read(tu_scratch_last(), NULL, &m, &cplx, &err),
                     OPTINC_EINPUT, "case %zu", i);
        cr_expect_null(m);
        cr_expect(strstr(err.message, cases[i].fragment) != NULL, "case %zu: %s", i,
                  err.message);
        cr_expect_eq(err.line, 1, "case %zu", i);
        if (cases[i].needle) {
            char *bytes = tu_read_file(tu_scratch_last(), NULL);
            int col = (int)(strstr(bytes + 10, cases[i].needle) - bytes) + 1;
            cr_expect_eq(err.column, col, "case %zu: column %d, want %d (%s)", i, err.column,
                         col, err.message);
            free(bytes);
        }
    }
    write_npy("nan.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
              nan_d, sizeof nan_d);
    optinc_cmat *m = NULL;
    optinc_error err = {0};
    int cplx;
    cr_expect_eq(optinc_npy_read(tu_scratch_last(), NULL, &m, &cplx, &err), OPTINC_EINPUT);
    cr_expect(strstr(err.message, "entry (1, 2) is NaN") != NULL, "%s", err.message);
    cr_expect_eq(err.column, 128 + 8 + 1, "header 128 bytes, then entry (1, 1)");
    cr_assert_eq(tu_write_file(tu_scratch("text.npy"), "not numpy"), 0);
    cr_expect_eq(optinc_npy_read(tu_scratch_last(), NULL, &m, &cplx, &err), OPTINC_EINPUT);
    cr_expect(strstr(err.message, "not a .npy file") != NULL, "%s", err.message);
    /* the magic is described, not printed: the message is plain text */
    cr_expect(strstr(err.message, "the byte 0x93, then NUMPY"), "%s", err.message);
    for (const char *p = err.message; *p; p++)
        cr_expect((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f, "%s", err.message);
    cr_expect_eq(optinc_npy_read(tu_scratch("missing.npy"), NULL, &m, &cplx, &err), OPTINC_EINPUT);
    cr_expect(strstr(err.message, "cannot open") != NULL, "%s", err.message);
}

/* The bytes of a file in memory, under the name messages give: the parse
 * functions read exactly in->len bytes, and name errors after in->name. */
Test(npy, parse_from_memory, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    optinc_cmat *m = sample(2, 3, 1), *back = NULL;
    optinc_error err = {0};
    int cplx = -1;
    cr_assert_eq(optinc_npy_write(tu_scratch("m.npy"), m, 1, &err), OPTINC_OK, "%s", err.message);
    size_t len = 0;
    char *bytes = tu_read_file(tu_scratch_last(), &len);
    cr_assert_not_null(bytes);
    optinc_input in = {"weights/m.npy", bytes, len};
    cr_assert_eq(optinc_npy_parse(&in, &back, &cplx, &err), OPTINC_OK, "%s", err.message);
    cr_expect_eq(cplx, 1);
    expect_equal(m, back);
    optinc_cmat_free(back);
    in.len = len - 1;
    cr_expect_eq(optinc_npy_parse(&in, &back, &cplx, &err), OPTINC_EINPUT);
    cr_expect_null(back);
    cr_expect_str_eq(err.file, "weights/m.npy");
    cr_expect_eq(err.column, (int)len, "%s", err.message);
    cr_expect(strstr(err.message, "truncated") != NULL, "%s", err.message);
    in.len = 9;
    cr_expect_eq(optinc_npy_parse(&in, &back, &cplx, &err), OPTINC_EINPUT);
    cr_expect(strstr(err.message, "not a .npy file") != NULL, "%s", err.message);
    free(bytes);
    optinc_cmat_free(m);
}

/* ---------------------------------------------------------------- csv -- */

Test(csv, real_complex_blanks_comments, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    optinc_cmat *m = NULL;
    optinc_error err = {0};
    int cplx = -1;
    cr_assert_eq(tu_write_file(tu_scratch("a.csv"), "# written by hand\r\n 1, -0.5 ,2e-1\r\n"
                               "3,4,\t5\n\n\n"), 0);
    cr_assert_eq(optinc_csv_read(tu_scratch_last(), NULL, &m, &cplx, &err),
                 OPTINC_OK, "%s", err.message);
    cr_expect_eq(m->rows, 2);
    cr_expect_eq(m->cols, 3);
    cr_expect_eq(cplx, 0);
    double want[6] = {1, -0.5, 0.2, 3, 4, 5};
    for (int k = 0; k < 6; k++)
        cr_expect_eq(m->a[k], want[k], "entry %d", k);
    optinc_cmat_free(m);
    /* numpy.savetxt writes complex entries as " (re+imj)" */
    cr_assert_eq(tu_write_file(tu_scratch("c.csv"), " (1.0e+00+2.0e+00j), (0-1j)\n2j, 3+0j\n"), 0);
    cr_assert_eq(optinc_csv_read(tu_scratch_last(), NULL, &m, &cplx, &err),
                 OPTINC_OK, "%s", err.message);
    cr_expect_eq(cplx, 1);
    cr_expect_eq(m->a[0], CMPLX(1, 2));
    cr_expect_eq(m->a[1], CMPLX(0, -1));
    cr_expect_eq(m->a[2], CMPLX(0, 2));
    cr_expect_eq(m->a[3], CMPLX(3, 0));
    optinc_cmat_free(m);
    /* an explicit +0j on every entry is still real */
    cr_assert_eq(tu_write_file(tu_scratch("r.csv"), "1+0j,2-0j\n"), 0);
    cr_assert_eq(optinc_csv_read(tu_scratch_last(), NULL, &m, &cplx, &err), OPTINC_OK);
    cr_expect_eq(cplx, 0);
    optinc_cmat_free(m);
}

Test(csv, errors_give_line_and_column, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    static const struct {
        const char *text;
        int line, col;
        const char *fragment;
    } cases[] = {
        {"1,2,3\n4,x5,6\n", 2, 3, "'x5' is not a number"},
        {"1,2,3\n4,5\n", 2, 1, "row 2 has 2 entries but the first row has 3"},
        {"1,2\n\n3,4\n", 2, 1, "blank line inside the matrix"},
        {"1,,2\n", 1, 3, "empty field"},
        {"1, nan\n", 1, 4, "NaN or infinite"},
        {"", 1, 1, "no matrix rows"},
        {"# only a comment\n\n", 1, 1, "no matrix rows"},
        {"1,2\n3,4,\n", 2, 5, "empty field"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        optinc_cmat *m = NULL;
        optinc_error err = {0};
        int cplx;
        cr_assert_eq(tu_write_file(tu_scratch("bad.csv"), cases[i].text), 0);
        cr_expect_eq(optinc_csv_read(tu_scratch_last(), NULL, &m, &cplx, &err),
                     OPTINC_EINPUT, "case %zu", i);
        cr_expect_null(m);
        cr_expect_str_eq(err.file, tu_scratch_last());
        cr_expect_eq(err.line, cases[i].line, "case %zu: %d:%d %s", i, err.line, err.column,
                     err.message);
        cr_expect_eq(err.column, cases[i].col, "case %zu: %d:%d %s", i, err.line, err.column,
                     err.message);
        cr_expect(strstr(err.message, cases[i].fragment) != NULL, "case %zu: %s", i,
                  err.message);
    }
}

Test(csv, too_many_columns_is_refused, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    size_t n = 65537;
    char *text = malloc(2 * n + 2);
    for (size_t k = 0; k < n; k++) {
        text[2 * k] = '1';
        text[2 * k + 1] = k + 1 < n ? ',' : '\n';
    }
    text[2 * n] = '\0';
    cr_assert_eq(tu_write_file(tu_scratch("wide.csv"), text), 0);
    free(text);
    optinc_cmat *m = NULL;
    optinc_error err = {0};
    int cplx;
    cr_expect_eq(optinc_csv_read(tu_scratch_last(), NULL, &m, &cplx, &err), OPTINC_EINPUT);
    cr_expect(strstr(err.message, "1..65536") != NULL, "%s", err.message);
    cr_expect_eq(err.column, 2 * 65536 + 1);
}

/* A UTF-8 byte-order mark (as spreadsheets write it) before the first row
 * is skipped; columns of line 1 count from after it. */
Test(csv, byte_order_mark_is_accepted)
{
    static const char text[] = "\xef\xbb\xbf" "1,2\n3,4\n";
    optinc_input in = {"bom.csv", text, sizeof text - 1};
    optinc_cmat *m = NULL;
    optinc_error err = {0};
    int cplx;
    cr_assert_eq(optinc_csv_parse(&in, &m, &cplx, &err), OPTINC_OK, "%s", err.message);
    cr_expect(m->rows == 2 && m->cols == 2 && m->a[0] == 1 && m->a[3] == 4);
    optinc_cmat_free(m);
    static const char bad[] = "\xef\xbb\xbf" "1,x\n";
    in = (optinc_input){"bom.csv", bad, sizeof bad - 1};
    cr_expect_eq(optinc_csv_parse(&in, &m, &cplx, &err), OPTINC_EINPUT);
    cr_expect(err.line == 1 && err.column == 3, "%d:%d", err.line, err.column);
    cr_expect(strstr(err.message, "entry 'x' is not a number"), "%s", err.message);
}

Test(csv, parse_from_memory_reads_len_bytes)
{
    static const char text[] = "1,2\n3,4x";     /* the 'x' is past in.len */
    optinc_input in = {"weights.csv", text, sizeof text - 2};
    optinc_cmat *m = NULL;
    optinc_error err = {0};
    int cplx = -1;
    cr_assert_eq(optinc_csv_parse(&in, &m, &cplx, &err), OPTINC_OK, "%s", err.message);
    cr_expect_eq(m->rows, 2);
    cr_expect_eq(m->cols, 2);
    cr_expect_eq(m->a[3], 4);
    cr_expect_eq(cplx, 0);
    optinc_cmat_free(m);
    in.len = sizeof text - 1;
    cr_expect_eq(optinc_csv_parse(&in, &m, &cplx, &err), OPTINC_EINPUT);
    cr_expect_null(m);
    cr_expect_str_eq(err.file, "weights.csv");
    cr_expect_eq(err.line, 2);
    cr_expect_eq(err.column, 3);
    cr_expect(strstr(err.message, "entry '4x' is not a number") != NULL, "%s", err.message);
}

/* A NUL byte used to end its line silently (the rest of the row was lost). */
Test(csv, nul_byte_is_refused_where_it_is, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    static const char text[] = "1,2\n3\0,4\n";
    optinc_input in = {"nul.csv", text, sizeof text - 1};
    optinc_cmat *m = NULL;
    optinc_error err = {0};
    int cplx;
    cr_expect_eq(optinc_csv_parse(&in, &m, &cplx, &err), OPTINC_EINPUT);
    cr_expect_null(m);
    cr_expect_eq(err.line, 2);
    cr_expect_eq(err.column, 2);
    cr_expect_str_eq(err.message, "NUL byte: a .csv file is a text file");
    cr_assert_eq(tu_write_bytes(tu_scratch("nul.csv"), text, sizeof text - 1), 0);
    cr_expect_eq(optinc_csv_read(tu_scratch_last(), NULL, &m, &cplx, &err), OPTINC_EINPUT);
    cr_expect_null(m);
    cr_expect_str_eq(err.file, tu_scratch_last());
    cr_expect_eq(err.line, 2);
    cr_expect_eq(err.column, 2);
}

/* A FIFO given as a matrix file used to block the reader until a writer
 * came (and a link to an endless source made it grow without end): the path
 * readers take regular files only, and say so at once. */
Test(matrix_files, fifo_link_and_folder_are_refused_at_once, .init = tu_scratch_init,
     .fini = tu_scratch_fini, .timeout = 20)
{
    char fifo[4400], csv_link[4400], npy_link[4400];
    snprintf(fifo, sizeof fifo, "%s", tu_scratch("pipe"));
    snprintf(csv_link, sizeof csv_link, "%s", tu_scratch("m.csv"));
    snprintf(npy_link, sizeof npy_link, "%s", tu_scratch("m.npy"));
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(symlink(fifo, csv_link), 0);
    cr_assert_eq(symlink(fifo, npy_link), 0);
    const char *paths[] = {fifo, csv_link, npy_link, tu_scratch_dir()};
    for (int i = 0; i < 4; i++)
        for (int npy = 0; npy < 2; npy++) {
            optinc_cmat *m = NULL;
            optinc_error err = {0};
            int cplx;
            optinc_status st = npy ? optinc_npy_read(paths[i], NULL, &m, &cplx, &err)
                                   : optinc_csv_read(paths[i], NULL, &m, &cplx, &err);
            cr_expect_eq(st, OPTINC_EINPUT, "%s (%s)", paths[i], npy ? "npy" : "csv");
            cr_expect_null(m);
            cr_expect(strstr(err.message, "is not a regular file") != NULL, "%s", err.message);
        }
}

/* The path readers hold a file to the input limit of their read options
 * (OPTINC_MAX_INPUT_BYTES on the command line): a limit below the file's
 * size refuses it before it is read, naming the limit; none reads it. */
Test(fileio, path_readers_honour_the_input_limit, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    optinc_limits lim;
    optinc_limits_init(&lim);
    cr_assert_eq(optinc_limits_set(&lim, OPTINC_LIMIT_INPUT_BYTES, "16"), 0);
    const optinc_read_opts small = {&lim, NULL, NULL, NULL};
    double v[4] = {1, 2, 3, 4};
    write_npy("m.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", v,
              sizeof v);
    char npy[4500];
    snprintf(npy, sizeof npy, "%s", tu_scratch_last());
    cr_assert_eq(tu_write_file(tu_scratch("m.csv"), "1.5, 2.5\n3.5, 4.5\n0.5, 0.25\n"), 0);
    for (int csv = 0; csv < 2; csv++) {
        const char *path = csv ? tu_scratch_last() : npy;
        optinc_cmat *m = NULL;
        optinc_error err = {0};
        int cplx;
        optinc_status st = csv ? optinc_csv_read(path, &small, &m, &cplx, &err)
                               : optinc_npy_read(path, &small, &m, &cplx, &err);
        cr_expect_eq(st, OPTINC_EINPUT, "%s", path);
        cr_expect_null(m);
        cr_expect(strstr(err.message, "larger than the limit of 16 (OPTINC_MAX_INPUT_BYTES)"),
                  "%s", err.message);
        st = csv ? optinc_csv_read(path, NULL, &m, &cplx, &err)
                 : optinc_npy_read(path, NULL, &m, &cplx, &err);
        cr_expect_eq(st, OPTINC_OK, "%s: %s", path, err.message);
        optinc_cmat_free(m);
    }
}

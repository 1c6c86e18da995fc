/*
 * test_text.c - the inputs of text.h: lines (final newline or not, CRLF,
 * empty input), positions of offsets, NUL bytes, tokens and their
 * converters, files read whole (a regular file, a missing one, a folder, a
 * FIFO that must not block, the byte limit) and resolving a file named
 * inside an input (paths refused, not cut, when too long; the folders an
 * include may read from).  Every file lives in the test's scratch folder.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "optinc/text.h"
#include "testutil.h"

static optinc_input input(const char *name, const char *text)
{
    return (optinc_input){name, text, strlen(text)};
}

/* Every line of text as "number:offset:content|". */
static void all_lines(const char *text, size_t len, char *out, size_t size)
{
    optinc_input in = {"t", text, len};
    optinc_lines r;
    optinc_line l;
    size_t n = 0;
    out[0] = '\0';
    cr_assert_eq(optinc_lines_init(&r, &in, "test input", NULL), OPTINC_OK);
    while (optinc_lines_next(&r, &l))
        n += (size_t)snprintf(out + n, size - n, "%d:%zu:%.*s|", l.number, l.off, (int)l.len,
                              l.s);
}

/* The tokens of the first line of text (blank-separated, no comments). */
static int first_line_tokens(const char *text, optinc_token *t, int max)
{
    optinc_input in = input("t", text);
    optinc_lines r;
    optinc_line l;
    cr_assert_eq(optinc_lines_init(&r, &in, "test input", NULL), OPTINC_OK);
    cr_assert(optinc_lines_next(&r, &l));
    return optinc_tokens(&l, 0, t, max);
}

/* ------------------------------------------------------------------ lines */

Test(lines, with_and_without_a_final_newline)
{
    char got[256];
    all_lines("ab\ncd\n", 6, got, sizeof got);
    cr_expect_str_eq(got, "1:0:ab|2:3:cd|");
    all_lines("ab\ncd", 5, got, sizeof got);
    cr_expect_str_eq(got, "1:0:ab|2:3:cd|");
    all_lines("ab\n\n\ncd", 7, got, sizeof got);
    cr_expect_str_eq(got, "1:0:ab|2:3:|3:4:|4:5:cd|");
}

Test(lines, empty_input_and_blank_lines)
{
    char got[256];
    all_lines("", 0, got, sizeof got);
    cr_expect_str_eq(got, "");
    all_lines("\n", 1, got, sizeof got);
    cr_expect_str_eq(got, "1:0:|");
    all_lines("\n\n", 2, got, sizeof got);
    cr_expect_str_eq(got, "1:0:|2:1:|");
    optinc_input in = {"none", NULL, 0};
    optinc_lines r;
    optinc_line l;
    cr_assert_eq(optinc_lines_init(&r, &in, "test input", NULL), OPTINC_OK);
    cr_expect_eq(optinc_lines_next(&r, &l), 0);
    cr_expect_eq(optinc_lines_next(&r, &l), 0, "the end stays the end");
}

/* A '\r' before '\n' stays in the line, as a blank for the tokenizer. */
Test(lines, crlf)
{
    char got[256];
    all_lines("ab\r\ncd\r\n", 8, got, sizeof got);
    cr_expect_str_eq(got, "1:0:ab\r|2:4:cd\r|");
    optinc_token t[4];
    cr_assert_eq(first_line_tokens("x y\r\n", t, 4), 2);
    cr_expect(optinc_token_is(&t[1], "y"));
}

Test(lines, the_rest_of_the_input_is_not_read_past_len)
{
    char got[256];
    all_lines("ab\ncdEF", 5, got, sizeof got);
    cr_expect_str_eq(got, "1:0:ab|2:3:cd|");
}

/* A UTF-8 byte-order mark that starts the input is skipped; one further on
 * is text like any other. */
Test(lines, byte_order_mark_is_skipped_at_the_start_only)
{
    char got[256];
    all_lines("\xef\xbb\xbf" "ab\ncd", 8, got, sizeof got);
    cr_expect_str_eq(got, "1:3:ab|2:6:cd|");
    all_lines("\xef\xbb\xbf", 3, got, sizeof got);
    cr_expect_str_eq(got, "", "a mark alone is an empty input");
    all_lines("\xef\xbb\xbf\n", 4, got, sizeof got);
    cr_expect_str_eq(got, "1:3:|");
    all_lines("a\xef\xbb\xbf", 4, got, sizeof got);
    cr_expect_str_eq(got, "1:0:a\xef\xbb\xbf|");
    all_lines("\xef\xbb" "a", 3, got, sizeof got);
    cr_expect_str_eq(got, "1:0:\xef\xbb" "a|", "two bytes of a mark are not one");
    /* the tokens of line 1 count their columns from after the mark */
    optinc_token t[4];
    cr_assert_eq(first_line_tokens("\xef\xbb\xbf" "x  y\n", t, 4), 2);
    cr_expect(optinc_token_is(&t[0], "x"));
    cr_expect_eq(t[0].col, 1);
    cr_expect_eq(t[1].col, 4);
    /* a NUL byte right after the mark is at line 1, column 1 */
    optinc_error err = {0};
    optinc_lines r;
    optinc_input in = {"nul", "\xef\xbb\xbf\0", 4};
    cr_expect_eq(optinc_lines_init(&r, &in, "netlist", &err), OPTINC_EINPUT);
    cr_expect_eq(err.line, 1);
    cr_expect_eq(err.column, 1);
}

/* -------------------------------------------------------------- positions */

Test(position, of_offsets_including_the_end)
{
    static const struct { const char *text; size_t off; int line, col; } v[] = {
        {"ab\ncd", 0, 1, 1}, {"ab\ncd", 1, 1, 2}, {"ab\ncd", 2, 1, 3}, {"ab\ncd", 3, 2, 1},
        {"ab\ncd", 5, 2, 3}, {"ab\n", 3, 2, 1},   {"", 0, 1, 1},       {"\n\n\tx", 3, 3, 2},
        {"a\r\nb", 3, 2, 1},
        /* columns of line 1 count from after a byte-order mark */
        {"\xef\xbb\xbf" "ab\ncd", 3, 1, 1}, {"\xef\xbb\xbf" "ab\ncd", 4, 1, 2},
        {"\xef\xbb\xbf" "ab\ncd", 6, 2, 1}, {"\xef\xbb\xbf", 0, 1, 1},
        {"x\xef\xbb\xbf" "a", 4, 1, 5},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        optinc_input in = input("t", v[i].text);
        int line = -1, col = -1;
        optinc_text_position(&in, v[i].off, &line, &col);
        cr_expect_eq(line, v[i].line, "case %zu: line %d", i, line);
        cr_expect_eq(col, v[i].col, "case %zu: column %d", i, col);
    }
}

Test(lines, nul_byte_is_refused_with_its_position)
{
    static const char text[] = "ab\ncd\n e\0f\n";
    optinc_input in = {"dir/x.pnl.sp", text, sizeof text - 1};
    optinc_lines r;
    optinc_error err = {0};
    cr_expect_eq(optinc_lines_init(&r, &in, "netlist", &err), OPTINC_EINPUT);
    cr_expect_str_eq(err.file, "dir/x.pnl.sp");
    cr_expect_eq(err.line, 3);
    cr_expect_eq(err.column, 3);
    cr_expect_str_eq(err.message, "NUL byte: a netlist is a text file");
    in = (optinc_input){"y", "\0", 1};
    cr_expect_eq(optinc_lines_init(&r, &in, "netlist", &err), OPTINC_EINPUT);
    cr_expect_eq(err.line, 1);
    cr_expect_eq(err.column, 1);
}

/* --------------------------------------------------------------- messages */

/* What a terminal would not show is written out in a message, and in the
 * file name a formatted error prints; valid UTF-8 stays. */
Test(messages, unprintable_bytes_are_escaped)
{
    optinc_error err = {0};
    static const struct { const char *in, *out; } v[] = {
        {"plain text", "plain text"},
        {"tab\there, newline\nthere", "tab\\x09here, newline\\x0athere"},
        {"bell \a esc \x1b del \x7f", "bell \\x07 esc \\x1b del \\x7f"},
        {"not utf-8: \x93NUMPY", "not utf-8: \\x93NUMPY"},
        {"mark \xef\xbb\xbf*", "mark <U+FEFF>*"},
        {"zero width \xe2\x80\x8b, right-to-left \xe2\x80\xae", "zero width <U+200B>, "
         "right-to-left <U+202E>"},
        {"C1 \xc2\x85", "C1 <U+0085>"},
        {"Greek \xce\xbb, euro \xe2\x82\xac, \xf0\x9f\x98\x80", "Greek \xce\xbb, euro "
         "\xe2\x82\xac, \xf0\x9f\x98\x80"},
        {"overlong \xc0\xaf, surrogate \xed\xa0\x80, cut \xe2\x82", "overlong \\xc0\\xaf, "
         "surrogate \\xed\\xa0\\x80, cut \\xe2\\x82"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        optinc_fail(&err, OPTINC_EINPUT, "f", 1, 1, "%s", v[i].in);
        cr_expect_str_eq(err.message, v[i].out, "case %zu", i);
        /* escaped once: a message quoting the message is unchanged */
        char again[1100];
        snprintf(again, sizeof again, "%s", err.message);
        optinc_fail(&err, OPTINC_EINPUT, "f", 1, 1, "%s", again);
        cr_expect_str_eq(err.message, v[i].out, "case %zu twice", i);
    }
    /* err->file keeps the name; the formatted line escapes it */
    optinc_fail(&err, OPTINC_EINPUT, "dir\nname.yaml", 3, 4, "bad");
    cr_expect_str_eq(err.file, "dir\nname.yaml");
    char line[4096];
    cr_expect_str_eq(optinc_error_format(&err, line, sizeof line),
                     "dir\\x0aname.yaml:3:4: error: bad");
    /* a message that does not fit is cut before an escape, not inside one */
    char big[1100];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memcpy(big + 1020, "\x01", 1);
    optinc_fail(&err, OPTINC_EINPUT, "f", 1, 1, "%s", big);
    cr_expect_eq(strlen(err.message), 1020);
}

/* ----------------------------------------------------------------- tokens */

static optinc_line one_line(const char *s)
{
    return (optinc_line){s, strlen(s), 0, 1};
}

Test(tokens, blanks_and_comments)
{
    optinc_line l = one_line("  mzi\tX1 \f\v a=1\r # rest is a comment");
    optinc_token t[8];
    int n = optinc_tokens(&l, '#', t, 8);
    cr_assert_eq(n, 3);
    cr_expect(optinc_token_is(&t[0], "mzi"));
    cr_expect_eq(t[0].col, 3);
    cr_expect(optinc_token_is(&t[1], "X1"));
    cr_expect_eq(t[1].col, 7);
    cr_expect(optinc_token_is(&t[2], "a=1"));
    cr_expect_eq(t[2].col, 13);
    /* without a comment character '#' is text like any other */
    cr_expect_eq(optinc_tokens(&l, 0, t, 8), 8);
    l = one_line("#only a comment");
    cr_expect_eq(optinc_tokens(&l, '#', t, 8), 0);
    l = one_line(" \t\r ");
    cr_expect_eq(optinc_tokens(&l, '#', t, 8), 0);
    l = one_line("");
    cr_expect_eq(optinc_tokens(&l, '#', t, 8), 0);
    l = one_line("a#b");
    cr_expect_eq(optinc_tokens(&l, '#', t, 8), 1);
    cr_expect(optinc_token_is(&t[0], "a"));
}

Test(tokens, more_than_max_are_counted_not_stored)
{
    optinc_line l = one_line("a b c d e");
    optinc_token t[3] = {{0}};
    cr_expect_eq(optinc_tokens(&l, 0, t, 2), 5);
    cr_expect(optinc_token_is(&t[0], "a"));
    cr_expect(optinc_token_is(&t[1], "b"));
    cr_expect_null(t[2].s, "only max tokens are stored");
}

static optinc_token tok(const char *s)
{
    return (optinc_token){s, (int)strlen(s), 1};
}

Test(tokens, is_and_cstr)
{
    optinc_token t = tok("abc");
    char buf[4];
    cr_expect(optinc_token_is(&t, "abc"));
    cr_expect(!optinc_token_is(&t, "ab"));
    cr_expect(!optinc_token_is(&t, "abcd"));
    cr_expect_eq(optinc_token_cstr(&t, buf, 4), 0);
    cr_expect_str_eq(buf, "abc");
    cr_expect_eq(optinc_token_cstr(&t, buf, 3), -1, "no room for the '\\0'");
    /* a token is a slice of its line: only len bytes count */
    optinc_token part = {"abcdef", 2, 1};
    cr_expect(optinc_token_is(&part, "ab"));
    cr_expect_eq(optinc_token_cstr(&part, buf, 4), 0);
    cr_expect_str_eq(buf, "ab");
}

Test(tokens, long_edge_cases)
{
    static const struct { const char *s; int r; long v; } v[] = {
        {"42", 0, 42},
        {"-7", 0, -7},
        {"+3", 0, 3},
        {"0", 0, 0},
        {"9223372036854775807", 0, 9223372036854775807L},
        {"9223372036854775808", -1, 0},       /* overflow */
        {"-99999999999999999999", -1, 0},
        {"12x", -1, 0},                       /* trailing junk */
        {"1.5", -1, 0},
        {"x", -1, 0},
        {"", -1, 0},
        {"000000000000000000000000000000001", -1, 0},   /* longer than any long */
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        optinc_token t = tok(v[i].s);
        long got = -12345;
        int r = optinc_token_long(&t, &got);
        cr_expect_eq(r, v[i].r, "'%s' gave %d", v[i].s, r);
        if (v[i].r == 0)
            cr_expect_eq(got, v[i].v, "'%s' gave %ld", v[i].s, got);
    }
}

/* == on the values: the converter and the compiler both round a decimal to
 * the nearest double, so they are the same double. */
Test(tokens, double_edge_cases)
{
    static const struct { const char *s; int r; double v; } v[] = {
        {"1.5", 0, 1.5},
        {"-2e-3", 0, -2e-3},
        {"0.1", 0, 0.1},
        {"1e308", 0, 1e308},
        {"1e999", -1, 0},                     /* overflow */
        {"-1e999", -1, 0},
        {"inf", -1, 0},
        {"-inf", -1, 0},
        {"Infinity", -1, 0},
        {"nan", -1, 0},
        {"NaN", -1, 0},
        {"1.5x", -1, 0},                      /* trailing junk */
        {"0.5rad", -1, 0},
        {"", -1, 0},
        {".", -1, 0},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        optinc_token t = tok(v[i].s);
        double got = -12345;
        int r = optinc_token_double(&t, &got);
        cr_expect_eq(r, v[i].r, "'%s' gave %d", v[i].s, r);
        if (v[i].r == 0)
            cr_expect_eq(got, v[i].v, "'%s' gave %.17g", v[i].s, got);
    }
}

/* ------------------------------------------------------------------ files */

Test(blob, regular_file_read_whole, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    cr_assert_eq(tu_write_file(tu_scratch("a.txt"), "hello\nworld"), 0);
    optinc_blob b;
    optinc_error err = {0};
    cr_assert_eq(optinc_blob_read(tu_scratch_last(), 100, "test file", &b, &err), OPTINC_OK,
                 "%s", err.message);
    cr_expect_eq(b.len, 11);
    cr_expect_eq(memcmp(b.data, "hello\nworld", 11), 0);
    cr_expect_eq(b.data[11], '\0', "an extra NUL after the bytes");
    cr_expect_str_eq(b.name, tu_scratch_last());
    optinc_input in = optinc_blob_input(&b);
    cr_expect_eq(in.name, b.name);
    cr_expect_eq(in.data, b.data);
    cr_expect_eq(in.len, 11);
    optinc_blob_free(&b);
    cr_expect_null(b.data);
    cr_expect_eq(b.len, 0);
    optinc_blob_free(&b);   /* harmless twice */
    cr_assert_eq(tu_write_file(tu_scratch("empty"), ""), 0);
    cr_assert_eq(optinc_blob_read(tu_scratch_last(), 100, "test file", &b, &err), OPTINC_OK);
    cr_expect_eq(b.len, 0);
    cr_expect_str_eq(b.data, "");
    optinc_blob_free(&b);
}

Test(blob, missing_file_and_folder_are_bad_input, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    optinc_blob b;
    optinc_error err = {0};
    cr_expect_eq(optinc_blob_read(tu_scratch("missing"), 100, "netlist", &b, &err),
                 OPTINC_EINPUT);
    cr_expect_null(b.data);
    cr_expect_str_eq(err.file, tu_scratch_last());
    char want[4600];
    snprintf(want, sizeof want, "cannot open netlist '%s': No such file or directory",
             tu_scratch_last());
    cr_expect_str_eq(err.message, want);
    cr_expect_eq(optinc_blob_read(tu_scratch("missing/below"), 100, "netlist", &b, &err),
                 OPTINC_EINPUT);
    cr_expect_eq(optinc_blob_read(tu_scratch_dir(), 100, "netlist", &b, &err), OPTINC_EINPUT);
    cr_expect_null(b.data);
    snprintf(want, sizeof want, "netlist '%s' is not a regular file; give the path of a file",
             tu_scratch_dir());
    cr_expect_str_eq(err.message, want);
}

/* Opening a FIFO for reading blocks until a writer comes, and reading it
 * blocks until the writer writes: blob_read must do neither. */
Test(blob, fifo_does_not_block, .init = tu_scratch_init, .fini = tu_scratch_fini,
     .timeout = 20)
{
    char fifo[4400];
    snprintf(fifo, sizeof fifo, "%s", tu_scratch("pipe"));
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(symlink(fifo, tu_scratch("link")), 0);
    const char *paths[] = {fifo, tu_scratch_last()};
    for (int i = 0; i < 2; i++) {
        optinc_blob b;
        optinc_error err = {0};
        cr_expect_eq(optinc_blob_read(paths[i], 100, "spec", &b, &err), OPTINC_EINPUT, "%s",
                     paths[i]);
        cr_expect_null(b.data);
        cr_expect(strstr(err.message, "is not a regular file") != NULL, "%s", err.message);
    }
}

Test(blob, byte_limit, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    optinc_blob b;
    optinc_error err = {0};
    cr_assert_eq(tu_write_file(tu_scratch("ten"), "0123456789"), 0);
    cr_expect_eq(optinc_blob_read(tu_scratch_last(), 10, "spec", &b, &err), OPTINC_OK);
    optinc_blob_free(&b);
    cr_expect_eq(optinc_blob_read(tu_scratch_last(), 9, "spec", &b, &err), OPTINC_EINPUT);
    cr_expect_null(b.data);
    char want[4600];
    snprintf(want, sizeof want, "spec '%s' is larger than 9 bytes, the reader's limit",
             tu_scratch_last());
    cr_expect_str_eq(err.message, want);
    cr_expect_eq(optinc_blob_read(tu_scratch_last(), 0, "spec", &b, &err), OPTINC_EINPUT);
}

/* The input limit of the caller's limits holds a file to less than the
 * reader's own limit, and its message names the variable that raises it. */
Test(blob, input_limit, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    optinc_blob b;
    optinc_error err = {0};
    optinc_limits lim;
    optinc_limits_init(&lim);
    cr_expect_eq(optinc_limits_get(&lim, OPTINC_LIMIT_INPUT_BYTES), 256L << 20);
    cr_expect_str_eq(optinc_limit_name(OPTINC_LIMIT_INPUT_BYTES), "OPTINC_MAX_INPUT_BYTES");
    cr_assert_eq(tu_write_file(tu_scratch("ten"), "0123456789"), 0);
    cr_assert_eq(optinc_limits_set(&lim, OPTINC_LIMIT_INPUT_BYTES, "10"), 0);
    cr_expect_eq(optinc_blob_read_limited(tu_scratch_last(), 100, &lim, "spec", &b, &err),
                 OPTINC_OK, "%s", err.message);
    optinc_blob_free(&b);
    cr_assert_eq(optinc_limits_set(&lim, OPTINC_LIMIT_INPUT_BYTES, "9"), 0);
    cr_expect_eq(optinc_blob_read_limited(tu_scratch_last(), 100, &lim, "spec", &b, &err),
                 OPTINC_EINPUT);
    cr_expect_null(b.data);
    char want[4600];
    snprintf(want, sizeof want, "spec '%s' is larger than the limit of 9 "
             "(OPTINC_MAX_INPUT_BYTES); to go past it set the environment variable "
             "OPTINC_MAX_INPUT_BYTES (at most 4294967296)", tu_scratch_last());
    cr_expect_str_eq(err.message, want);
    /* the reader's own limit, when it is the smaller, is what the message names */
    cr_expect_eq(optinc_blob_read_limited(tu_scratch_last(), 8, &lim, "spec", &b, &err),
                 OPTINC_EINPUT);
    cr_expect(strstr(err.message, "is larger than 8 bytes, the reader's limit"), "%s",
              err.message);
    /* NULL limits are the default, 256 MiB */
    cr_expect_eq(optinc_blob_read_limited(tu_scratch_last(), 100, NULL, "spec", &b, &err),
                 OPTINC_OK);
    optinc_blob_free(&b);
    cr_expect_eq(optinc_input_size_check("mem", "netlist", 10, 100, &lim, &err),
                 OPTINC_EINPUT);
    cr_expect_str_eq(err.file, "mem");
    cr_expect(strstr(err.message, "netlist 'mem' is larger than the limit of 9"), "%s",
              err.message);
    cr_expect_eq(optinc_input_size_check("mem", "netlist", 9, 100, &lim, &err), OPTINC_OK);
    cr_expect_eq(optinc_input_size_check("mem", "netlist", 9, 8, &lim, &err), OPTINC_EINPUT);
}

/* A stream reader opens the regular file at once and refuses a FIFO
 * without waiting for a writer. */
Test(blob, open_regular, .init = tu_scratch_init, .fini = tu_scratch_fini, .timeout = 20)
{
    int fd = -1;
    uint64_t size = 0;
    optinc_error err = {0};
    cr_assert_eq(tu_write_file(tu_scratch("ten"), "0123456789"), 0);
    cr_assert_eq(optinc_open_regular(tu_scratch_last(), "file", &fd, &size, &err), OPTINC_OK,
                 "%s", err.message);
    cr_expect_geq(fd, 0);
    cr_expect_eq(size, 10);
    close(fd);
    cr_assert_eq(mkfifo(tu_scratch("pipe"), 0600), 0);
    cr_expect_eq(optinc_open_regular(tu_scratch_last(), "file", &fd, &size, &err),
                 OPTINC_EINPUT);
    cr_expect_eq(fd, -1);
    cr_expect(strstr(err.message, "is not a regular file"), "%s", err.message);
    cr_expect_eq(optinc_open_regular(tu_scratch("missing"), "file", &fd, &size, &err),
                 OPTINC_EINPUT);
    /* an empty path names no file: the message says so */
    cr_expect_eq(optinc_open_regular("", "calibration file", &fd, &size, &err), OPTINC_EINPUT);
    cr_expect_eq(fd, -1);
    cr_expect_str_eq(err.message, "the path of the calibration file is empty; give the path of "
                     "a file");
}

/* -------------------------------------------------------------- resolving */

Test(resolve, relative_to_the_folder_of_the_naming_file, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    char sub[4400], main_file[4500], inc[4500];
    snprintf(sub, sizeof sub, "%s", tu_scratch("sub"));
    cr_assert_eq(mkdir(sub, 0700), 0);
    snprintf(inc, sizeof inc, "%s/inc", sub);
    cr_assert_eq(mkdir(inc, 0700), 0);
    snprintf(main_file, sizeof main_file, "%s/main.sp", sub);
    snprintf(inc, sizeof inc, "%s/inc/cells.inc", sub);
    cr_assert_eq(tu_write_file(inc, "cells\n"), 0);
    cr_assert_eq(tu_write_file(tu_scratch("top.inc"), "top\n"), 0);
    optinc_blob b;
    optinc_error err = {0};
    cr_assert_eq(optinc_resolve_file(NULL, main_file, "inc/cells.inc", 100, "included file", &b,
                                     &err), OPTINC_OK, "%s", err.message);
    cr_expect_str_eq(b.data, "cells\n");
    cr_expect_str_eq(b.name, inc, "messages name the file by the joined path");
    optinc_blob_free(&b);
    cr_assert_eq(optinc_resolve_file(NULL, main_file, "../top.inc", 100, "included file", &b,
                                     &err), OPTINC_OK, "%s", err.message);
    cr_expect_str_eq(b.data, "top\n");
    optinc_blob_free(&b);
    /* an absolute name is taken as it is */
    cr_assert_eq(optinc_resolve_file(NULL, main_file, tu_scratch("top.inc"), 100,
                                     "included file", &b, &err), OPTINC_OK, "%s", err.message);
    cr_expect_str_eq(b.data, "top\n");
    optinc_blob_free(&b);
    /* the folder of the naming file, not the working directory */
    cr_expect_eq(optinc_resolve_file(NULL, main_file, "top.inc", 100, "included file", &b, &err),
                 OPTINC_EINPUT);
    char want[4600];
    snprintf(want, sizeof want, "%s/top.inc", sub);
    cr_expect_str_eq(err.file, want);
    /* optinc_read_resolve without options is the default resolver */
    cr_assert_eq(optinc_read_resolve(NULL, main_file, "inc/cells.inc", 100, "included file", &b,
                                     &err), OPTINC_OK, "%s", err.message);
    cr_expect_str_eq(b.data, "cells\n");
    optinc_blob_free(&b);
}

static optinc_status from_memory(void *ctx, const char *from, const char *rel,
                                 size_t max_bytes, const char *what, optinc_blob *out,
                                 optinc_error *err)
{
    int *calls = ctx;
    ++*calls;
    memset(out, 0, sizeof *out);
    if (strcmp(from, "mem/top.sp") || strcmp(rel, "cells.inc") || max_bytes != 77
        || strcmp(what, "included file"))
        return optinc_fail(err, OPTINC_EINPUT, from, 0, 0, "unexpected request");
    out->data = strdup("* cells\n");
    out->len = strlen(out->data);
    snprintf(out->name, sizeof out->name, "mem:%s", rel);
    return OPTINC_OK;
}

Test(resolve, options_choose_the_resolver_and_the_limits)
{
    int calls = 0;
    optinc_limits lim;
    optinc_limits_init(&lim);
    optinc_read_opts opts = {&lim, from_memory, &calls, NULL};
    optinc_blob b;
    optinc_error err = {0};
    cr_assert_eq(optinc_read_resolve(&opts, "mem/top.sp", "cells.inc", 77, "included file", &b,
                                     &err), OPTINC_OK, "%s", err.message);
    cr_expect_eq(calls, 1);
    cr_expect_str_eq(b.name, "mem:cells.inc");
    cr_expect_str_eq(b.data, "* cells\n");
    optinc_blob_free(&b);
    cr_expect_eq(optinc_read_limits(&opts), &lim);
    /* what a resolver of the caller's hands back is held to the input limit */
    cr_assert_eq(optinc_limits_set(&lim, OPTINC_LIMIT_INPUT_BYTES, "7"), 0);
    cr_expect_eq(optinc_read_resolve(&opts, "mem/top.sp", "cells.inc", 77, "included file", &b,
                                     &err), OPTINC_EINPUT);
    cr_expect_null(b.data);
    cr_expect_str_eq(err.file, "mem:cells.inc");
    cr_expect(strstr(err.message, "included file 'mem:cells.inc' is larger than the limit of 7 "
                     "(OPTINC_MAX_INPUT_BYTES)"), "%s", err.message);
    cr_expect_null(optinc_read_limits(NULL));
    optinc_read_opts defaults = {NULL, NULL, NULL, NULL};
    cr_expect_null(optinc_read_limits(&defaults));
}

/* A path that would not fit is refused, never cut: cut, it names another
 * file (a folder's name up to where the cut falls). */
Test(resolve, paths_too_long_are_refused_not_cut, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    char rel[1100], main_file[4500];
    memset(rel, 'x', sizeof rel - 1);
    rel[sizeof rel - 1] = '\0';
    snprintf(main_file, sizeof main_file, "%s", tu_scratch("main.sp"));
    optinc_blob b;
    optinc_error err = {0};
    cr_expect_eq(optinc_resolve_file(NULL, main_file, rel, 100, "included file", &b, &err),
                 OPTINC_EINPUT);
    cr_expect_null(b.data);
    cr_expect(strstr(err.message, "is longer than 1023 bytes"), "%s", err.message);
    cr_expect_eq(optinc_read_resolve(NULL, main_file, rel, 100, "included file", &b, &err),
                 OPTINC_EINPUT);
    cr_expect(strstr(err.message, "is longer than 1023 bytes"), "%s", err.message);
    /* and a file named by a path that long is not read under a cut name */
    cr_expect_eq(optinc_blob_read(rel, 100, "netlist", &b, &err), OPTINC_EINPUT);
    cr_expect(strstr(err.message, "path of the netlist is longer than 1023 bytes"), "%s",
              err.message);
    char dir[16], out[8];
    cr_expect_eq(optinc_path_dir("a/b/c.sp", dir, sizeof dir), 0);
    cr_expect_str_eq(dir, "a/b");
    cr_expect_eq(optinc_path_dir("abcdefgh/ijklmnopq/c.sp", dir, sizeof dir), -1);
    cr_expect_eq(optinc_path_join("a", "b.sp", out, sizeof out), 0);
    cr_expect_eq(optinc_path_join("abc", "defg.sp", out, sizeof out), -1);
}

/* optinc_read_within: the files of the top input's folder and of the
 * allowed folders pass, with ".." and links resolved; what lies elsewhere is
 * refused before it is opened (a FIFO outside gives the folder's message,
 * not the FIFO's); a name the file system does not hold passes. */
Test(resolve, includes_stay_in_the_folder_of_the_top_input, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    char net[4400], top[4500], sub_file[4500], out_dir[4400], abs_out[4500], allow[9000];
    snprintf(net, sizeof net, "%s", tu_scratch("net"));
    snprintf(out_dir, sizeof out_dir, "%s", tu_scratch("outside"));
    cr_assert_eq(mkdir(net, 0700), 0);
    cr_assert_eq(mkdir(out_dir, 0700), 0);
    snprintf(top, sizeof top, "%s/sub", net);
    cr_assert_eq(mkdir(top, 0700), 0);
    snprintf(top, sizeof top, "%s/top.sp", net);
    snprintf(sub_file, sizeof sub_file, "%s/sub/a.inc", net);
    snprintf(abs_out, sizeof abs_out, "%s/x.inc", out_dir);
    cr_assert_eq(tu_write_file(sub_file, "* a\n"), 0);
    cr_assert_eq(tu_write_file(tu_scratch("net/b.inc"), "* b\n"), 0);
    cr_assert_eq(tu_write_file(abs_out, "* x\n"), 0);
    cr_assert_eq(mkfifo(tu_scratch("outside/fifo.inc"), 0600), 0);
    cr_assert_eq(symlink("../outside/x.inc", tu_scratch("net/link.inc")), 0);
    cr_assert_eq(symlink("..", tu_scratch("net/sub/up")), 0);
    optinc_error err = {0};
    static const char *const pass[] = {"sub/a.inc", "./sub/../b.inc", "b.inc", "missing.inc",
                                       "../outside/missing.inc"};
    for (size_t i = 0; i < sizeof pass / sizeof *pass; i++)
        cr_expect_eq(optinc_read_within(NULL, top, top, pass[i], "included file", &err),
                     OPTINC_OK, "%s: %s", pass[i], err.message);
    /* a nested include may reach the whole folder of the top input */
    cr_expect_eq(optinc_read_within(NULL, top, sub_file, "../b.inc", "included file", &err),
                 OPTINC_OK, "%s", err.message);
    cr_expect_eq(optinc_read_within(NULL, top, sub_file, "up/b.inc", "included file", &err),
                 OPTINC_OK, "%s", err.message);
    static const char *const refused[] = {"../outside/x.inc", "link.inc", "sub/up/../outside/x.inc",
                                          "../outside/fifo.inc", "/"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        cr_expect_eq(optinc_read_within(NULL, top, top, refused[i], "included file", &err),
                     OPTINC_EINPUT, "%s", refused[i]);
        cr_expect(strstr(err.message, "lies outside '") && strstr(err.message, "OPTINC_INCLUDE_PATH"),
                  "%s: %s", refused[i], err.message);
    }
    cr_expect_eq(optinc_read_within(NULL, top, top, abs_out, "included file", &err),
                 OPTINC_EINPUT);
    cr_expect_eq(optinc_read_within(NULL, top, sub_file, "../../outside/x.inc",
                                    "included file", &err), OPTINC_EINPUT);
    /* the folders of include_path allow; empty entries and missing folders hold nothing,
     * and a folder of the list that only names the top's folder allows no more */
    optinc_read_opts opts = {NULL, NULL, NULL, allow};
    snprintf(allow, sizeof allow, "::%s/nothing:%s/../net", tu_scratch_dir(), out_dir);
    cr_expect_eq(optinc_read_within(&opts, top, top, "link.inc", "included file", &err),
                 OPTINC_EINPUT);
    snprintf(allow, sizeof allow, "%s/nothing::%s/../outside/", tu_scratch_dir(), net);
    cr_expect_eq(optinc_read_within(&opts, top, top, "link.inc", "included file", &err),
                 OPTINC_OK, "%s", err.message);
    cr_expect_eq(optinc_read_within(&opts, top, top, abs_out, "included file", &err), OPTINC_OK,
                 "%s", err.message);
    opts.include_path = "/";
    cr_expect_eq(optinc_read_within(&opts, top, top, "../outside/x.inc", "included file", &err),
                 OPTINC_OK, "%s", err.message);
}

/*
 * test_cli.c - the optinc command line as a user meets it: the dispatcher,
 * `optinc compile` (summary, JSON, netlist output, exit codes, no partial
 * output on bad input), and the counts it prints checked against the
 * formulas, not against output recorded once; the option tables (ranges,
 * messages, --help) and the man pages that document them; JSON numbers.
 *
 * The option parser and the JSON formatter are compiled in from cli/, so
 * they are tested directly as well as through the program.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "cli/json.c"
#include "cli/options.c"

#define ARGS(...) ((const char *[]){__VA_ARGS__, NULL})

Test(cli, dispatcher)
{
    tu_run r = tu_optinc(ARGS("--help"));
    cr_assert_eq(r.status, 0);
    const char *cmds[] = {"compile", "draw", "simulate", "onn", "train"};
    for (int i = 0; i < 5; i++)
        cr_expect(strstr(r.out, cmds[i]), "--help lists %s", cmds[i]);
    tu_run_free(&r);

    r = tu_optinc(ARGS("--version"));
    cr_assert_eq(r.status, 0);
    cr_assert(!strncmp(r.out, "optinc ", 7));
    /* what a bug report needs to tell machines apart: the BLAS and its kernel */
    cr_assert(strstr(r.out, "\nlinear algebra: "), "%s", r.out);
    tu_run_free(&r);

    r = tu_optinc(ARGS("frobnicate"));
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "unknown command 'frobnicate'"));
    tu_run_free(&r);

    r = tu_optinc((const char *[]){NULL});
    cr_assert_eq(r.status, 2);
    tu_run_free(&r);

    /* Every command answers --help on stdout with exit 0. */
    for (int i = 0; i < 5; i++) {
        r = tu_optinc(ARGS(cmds[i], "--help"));
        cr_expect_eq(r.status, 0, "%s --help", cmds[i]);
        cr_expect(strstr(r.out, "usage: optinc"), "%s --help prints a usage", cmds[i]);
        tu_run_free(&r);
    }
}

Test(cli, compile_bad_command_lines, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    const char *const *cases[] = {
        ARGS("compile"),
        ARGS("compile", "specs/real4.yaml", "specs/reck8.yaml"),
        ARGS("compile", "specs/real4.yaml", "--no-such-option"),
        ARGS("compile", "specs/real4.yaml", "-o"),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = tu_optinc(cases[i]);
        cr_expect_eq(r.status, 2, "case %zu: status %d", i, r.status);
        cr_expect(strstr(r.err, "optinc compile: error:"), "case %zu: %s", i, r.err);
        cr_expect_eq(r.out[0], '\0');
        tu_run_free(&r);
    }
    /* A missing spec is bad input with the file named; nothing is written. */
    tu_run r = tu_optinc(ARGS("compile", "no/such/spec.yaml", "-o", tu_scratch("x.sp")));
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "no/such/spec.yaml"), "%s", r.err);
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), 0);
    tu_run_free(&r);
}

/* Options that exclude each other are a bad command line like any other:
 * status 2, the command named, the way to --help, and nothing read (the
 * operands here do not exist) or written. */
Test(cli, options_that_exclude_each_other)
{
    static const struct {
        const char *cmd, *args[10];
    } cases[] = {
        {"onn verify", {"onn", "verify", "no.sp", "--calibrate", NULL}},
        {"onn export", {"onn", "export", "no.sp", "--chip", "no.yaml", "--sigma", "0.1",
                        "--hist", "h", NULL}},
        {"onn cascade", {"onn", "cascade", "a.sp", "b.sp", "--chip", "no.yaml",
                         "--programmed", NULL}},
        {"train", {"train", "--allreduce", "optinc", "--onn", "exact", "--inject-errors", "onn",
                   NULL}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char head[64], tail[64];
        snprintf(head, sizeof head, "optinc %s: error: ", cases[i].cmd);
        snprintf(tail, sizeof tail, "\nTry 'optinc %s --help'.\n", cases[i].cmd);
        tu_run r = tu_optinc(cases[i].args);
        cr_expect_eq(r.status, 2, "%s: status %d", cases[i].cmd, r.status);
        cr_expect(!strncmp(r.err, head, strlen(head)), "%s", r.err);
        size_t n = strlen(r.err);
        cr_expect(n > strlen(tail) && !strcmp(r.err + n - strlen(tail), tail), "%s", r.err);
        cr_expect_eq(r.out[0], '\0', "%s wrote %s", cases[i].cmd, r.out);
        tu_run_free(&r);
    }
}

/* Parses "key": number out of a JSON text, from position p on. */
static double json_num(const char *text, const char *key, const char **p)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *at = strstr(*p, pat);
    cr_assert(at, "key %s in %s", key, text);
    *p = at + strlen(pat);
    return strtod(*p, NULL);
}

/* The JSON summary of a generated spec: counts follow the formulas of an
 * M x N layer (V^H mesh on N modes, U mesh on M modes, min(M,N) attenuators). */
Test(cli, compile_json_counts, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    static const int shapes[][2] = {{5, 3}, {3, 5}, {12, 12}, {1, 1}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        int m = shapes[i][0], n = shapes[i][1];
        char spec[1024];
        snprintf(spec, sizeof spec,
                 "schema_version: 1\nname: s\nmatrices:\n  W: {shape: [%d, %d], dtype: complex,"
                 " generate: {kind: gaussian, seed: %zu}}\nlayers:\n"
                 "  - {name: A, matrix: W, mesh: %s}\n",
                 m, n, i + 1, i % 2 ? "reck" : "clements");
        cr_assert_eq(tu_write_file(tu_scratch("s.yaml"), spec), 0);
        const char *path = tu_scratch("s.yaml");
        tu_run r = tu_optinc(ARGS("compile", path, "--json"));
        cr_assert_eq(r.status, 0, "%s", r.err);
        const char *p = r.out;
        cr_expect_eq(json_num(r.out, "rows", &p), m);
        cr_expect_eq(json_num(r.out, "cols", &p), n);
        cr_expect_eq(json_num(r.out, "mzis", &p), m * (m - 1) / 2 + n * (n - 1) / 2);
        double cols = json_num(r.out, "columns", &p);
        int mesh_cols = i % 2 ? (n > 1 ? 2 * n - 3 : 0) + (m > 1 ? 2 * m - 3 : 0)
                              : (n > 2 ? n : n - 1) + (m > 2 ? m : m - 1);
        cr_expect_eq(cols, mesh_cols + 1, "%dx%d: columns %g", m, n, cols);
        cr_expect_eq(json_num(r.out, "attenuator_count", &p), m < n ? m : n);
        cr_expect_gt(json_num(r.out, "gain", &p), 0);
        /* measured 1.8e-15 over OpenBLAS's Cooperlake, Haswell and
         * Sandybridge kernels and the reference BLAS: a factor 560; the
         * counts above are whole numbers, exact in a double */
        cr_expect_leq(json_num(r.out, "reconstruction_error", &p), 1e-12);
        tu_run_free(&r);
    }
}

/* -o writes a netlist; --reproducible reruns are byte-identical; the text
 * summary names each layer. */
Test(cli, compile_writes_netlist, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    char a[4400], b[4400];
    snprintf(a, sizeof a, "%s", tu_scratch("a.pnl.sp"));
    snprintf(b, sizeof b, "%s", tu_scratch("b.pnl.sp"));
    tu_run r = tu_optinc(ARGS("compile", "specs/twolayer.yaml", "-o", a, "--reproducible"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "hidden") && strstr(r.out, "out"), "%s", r.out);
    tu_run_free(&r);
    r = tu_optinc(ARGS("compile", "specs/twolayer.yaml", "--output", b, "--reproducible",
                       "--quiet"));
    cr_assert_eq(r.status, 0);
    cr_expect_eq(r.out[0], '\0', "--quiet prints nothing");
    tu_run_free(&r);
    size_t la = 0, lb = 1;
    char *x = tu_read_file(a, &la), *y = tu_read_file(b, &lb);
    cr_assert(x && y);
    cr_expect(la == lb && !memcmp(x, y, la), "reruns are byte-identical");
    cr_expect(strstr(x, ".end"));
    free(x);
    free(y);
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), 2, "no temporary files are left");
}

/* ---- the option tables ---------------------------------------------------- */

typedef struct parsed {
    int flag, set, i, n_ints, ints[4], e, given;
    long l;
    uint64_t u;
    double d;
    const char *str;
    char path[8];
} parsed;

static const char *const test_words[] = {"alpha", "beta", NULL};

/* Runs cli_parse on a table of every type, with args after the command's
 * name; returns what it returns. */
static int parse_test(parsed *p, const char *const *args, const char *operand[CLI_MAX_OPERANDS])
{
    char *argv[32] = {"test"};
    int argc = 1;
    for (; args[argc - 1]; argc++)
        argv[argc] = (char *)args[argc - 1];
    const cli_opt opts[] = {
        CLI_OPT_FLAG("flag", &p->flag, "a flag"),
        {"one", 0, CLI_SET, CLI_DST(int, &p->set), NULL, "set 1", .set = 1},
        {"two", 0, CLI_SET, CLI_DST(int, &p->set), NULL, "set 2", .set = 2},
        {"int", 'i', CLI_INT, CLI_DST(int, &p->i), "N", "an int", .min = 2, .max = 10,
         .flags = CLI_EVEN, .given = &p->given},
        {"long", 0, CLI_LONG, CLI_DST(long, &p->l), "N", "a long", .min = 0, .max = 5},
        CLI_OPT_SEED(&p->u, NULL, NULL, "a seed"),
        {"double", 0, CLI_DOUBLE, CLI_DST(double, &p->d), "X", "a double", .lo = 0, .hi = 1,
         .flags = CLI_ABOVE | CLI_BELOW},
        CLI_OPT_STRING("string", 's', &p->str, "S", "a string"),
        {"path", 0, CLI_PATH, CLI_DST(char, p->path), "P", "a path", .size = sizeof p->path},
        {"enum", 0, CLI_ENUM, CLI_DST(int, &p->e), NULL, "an enum", .words = test_words,
         .flags = CLI_OPTIONAL},
        {"ints", 0, CLI_INTS, CLI_DST(int, p->ints), "LIST", "ints", .min = 1, .max = 9, .size = 4,
         .count = &p->n_ints},
        CLI_OPT_END};
    const cli_cmd cmd = {"test", "A [B]", NULL, "A test."};
    return cli_parse(&cmd, opts, argc, argv, operand);
}

Test(cli, option_table_parses_every_type)
{
    parsed p = {0};
    const char *operand[CLI_MAX_OPERANDS];
    int rc = parse_test(&p, ARGS("--flag", "--two", "x", "-i", "8", "--long=5", "--seed",
                                 "18446744073709551615", "--double", "0.25", "-s", "str",
                                 "--path", "1234567", "--enum", "--ints", "1,9,3", "--one",
                                 "--", "-y"), operand);
    cr_assert_eq(rc, -1);
    cr_expect(p.flag && p.set == 1 && p.i == 8 && p.given && p.l == 5);
    cr_expect_eq(p.u, UINT64_MAX);
    cr_expect_eq(p.d, 0.25);     /* a parsed decimal: the literal's double */
    cr_expect_str_eq(p.str, "str");
    cr_expect_str_eq(p.path, "1234567");
    cr_expect_eq(p.e, 0, "--enum alone is the first word");
    cr_expect(p.n_ints == 3 && p.ints[0] == 1 && p.ints[1] == 9 && p.ints[2] == 3);
    cr_expect_str_eq(operand[0], "x");
    cr_expect_str_eq(operand[1], "-y", "after --, everything is an operand");
    memset(&p, 0, sizeof p);
    cr_assert_eq(parse_test(&p, ARGS("a", "--enum=beta", "--dou", "0.5"), operand), -1,
                 "a unique prefix stands for its option");
    cr_expect(p.e == 1 && p.d == 0.5 && !operand[1]);
}

Test(cli, option_table_refuses_out_of_range, .init = cr_redirect_stderr)
{
    static const char *const bad[][3] = {
        {"--int", "7"},    {"--int", "12"},    {"--int", "x"},        {"--long", "-1"},
        {"--long", "6"},   {"--seed", "-1"},   {"--seed", "18446744073709551616"},
        {"--double", "0"}, {"--double", "1"},  {"--double", "nan"},   {"--double", "1e999"},
        {"--double", "0x1p-2"}, {"--double", " 0.5"}, {"--double", "(0.5)"}, {"--double", "0.5j"},
        {"--double", "1e-400"}, {"--long", " 2"},
        {"--path", "12345678"}, {"--enum=gamma"}, {"--ints", "1,10"}, {"--ints", "1,2,3,4,5"},
        {"--nope"},        {"--int"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        parsed p = {0};
        const char *operand[CLI_MAX_OPERANDS];
        const char *args[5] = {"a", bad[i][0], bad[i][1], NULL};
        cr_expect_eq(parse_test(&p, args, operand), 2, "%s %s", bad[i][0],
                     bad[i][1] ? bad[i][1] : "");
        cr_expect(!p.given, "a refused value leaves the option not given");
    }
    const char *operand[CLI_MAX_OPERANDS];
    parsed p = {0};
    cr_expect_eq(parse_test(&p, ARGS("--flag"), operand), 2, "missing operand A");
    cr_expect_eq(parse_test(&p, ARGS("a", "b", "c"), operand), 2, "one operand too many");
    fflush(stderr);
    cr_assert_stderr_neq_str("");
}

/* The messages say the option, its range and the value refused. */
Test(cli, option_messages)
{
    static const struct { const char *const args[6]; const char *err; } cases[] = {
        {{"simulate", "x.yaml", "--seed", "-1"},
         "optinc simulate: error: --seed takes an integer from 0 to 2^64-1, not '-1'\n"},
        {{"onn", "cascade", "a", "b", "--seed", "-1"},
         "optinc onn cascade: error: --seed takes an integer from 0 to 2^64-1, not '-1'\n"},
        {{"simulate", "x.yaml", "--monte-carlo", "0"},
         "optinc simulate: error: --monte-carlo takes a chip count from 1 to 1000000, not '0'\n"},
        {{"train", "--bits", "7"},
         "optinc train: error: --bits takes an even integer from 2 to 16, not '7'\n"},
        {{"onn", "train", "--margin", "0.5"},
         "optinc onn train: error: --margin takes a number in [0, 0.5), not '0.5'\n"},
        {{"train", "--allreduce", "tree"},
         "optinc train: error: --allreduce takes ring, optinc, exact or quantized, not 'tree'\n"},
        {{"draw", "x.yaml"}, "optinc draw: error: missing -o DIR (the directory to draw into)\n"},
        {{"onn", "cascade"}, "optinc onn cascade: error: missing UNIT or LEVEL1\n"},
        {{"compile", "a", "b"}, "optinc compile: error: one SPEC only, got 'b' too\n"},
    };
    tu_run r[sizeof cases / sizeof cases[0]];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        r[i] = tu_optinc_start(cases[i].args);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_wait(&r[i]);
        cr_expect_eq(r[i].status, 2, "case %zu", i);
        cr_expect(!strncmp(r[i].err, cases[i].err, strlen(cases[i].err)), "case %zu: %s", i,
                  r[i].err);
        cr_expect_eq(r[i].out[0], '\0');
        tu_run_free(&r[i]);
    }
}

/* --help shows each option's default as it was before the options on the
 * same command line changed it. */
Test(cli, help_shows_the_defaults)
{
    tu_run r = tu_optinc(ARGS("train", "--lr", "0.5", "--hidden", "7", "--help"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "(> 0; default 0.05)"), "%s", r.out);
    cr_expect(strstr(r.out, "default 256,128"), "%s", r.out);
    cr_expect(strstr(r.out, "(0..2^64-1; default 1)"), "%s", r.out);
    tu_run_free(&r);
}

/* ---- man pages ------------------------------------------------------------- */

/* A set of option names is a string " a b c ": every name between spaces. */
static int in_set(const char *set, const char *name)
{
    char entry[80];
    snprintf(entry, sizeof entry, " %.70s ", name);
    return strstr(set, entry) != NULL;
}

static void set_add(char *set, size_t size, const char *name, size_t n)
{
    char entry[80];
    snprintf(entry, sizeof entry, "%.*s", (int)(n < 70 ? n : 70), name);
    if (!*set)
        snprintf(set, size, " ");
    if (!in_set(set, entry) && strlen(set) + strlen(entry) + 2 < size) {
        strcat(set, entry);
        strcat(set, " ");
    }
}

/* Adds to set each name that follows `mark` in text ("--" in --help, "Fl -"
 * in a man page). */
static void collect_options(const char *text, const char *mark, char *set, size_t size)
{
    size_t m = strlen(mark);
    for (const char *p = text; (p = strstr(p, mark)); p += m) {
        size_t n = strspn(p + m, "abcdefghijklmnopqrstuvwxyz0123456789-");
        if (n && p[m] != '-')
            set_add(set, size, p + m, n);
    }
}

/* The lines of page from the first line that starts with head up to the
 * next line starting with ".Sh" (or ".Ss" too when stop_ss); NULL when
 * there is none.  free() the result. */
static char *man_region(const char *page, const char *head, int stop_ss)
{
    const char *at = page;
    size_t hl = strlen(head);
    while (at && strncmp(at, head, hl))
        at = (at = strchr(at, '\n')) ? at + 1 : NULL;
    if (!at)
        return NULL;
    const char *end = strchr(at, '\n');
    while (end && end[1] && strncmp(end + 1, ".Sh", 3) && (!stop_ss || strncmp(end + 1, ".Ss", 3)))
        end = strchr(end + 1, '\n');
    size_t n = end ? (size_t)(end - at) : strlen(at);
    char *r = malloc(n + 1);
    memcpy(r, at, n);
    r[n] = '\0';
    return r;
}

/* Whether page has an item line (.It) naming --name ("Fl -name" followed by
 * anything but a letter, digit or '-'). */
static int man_item(const char *page, const char *name)
{
    char want[80];
    snprintf(want, sizeof want, "Fl -%s", name);
    for (const char *line = page; line; line = (line = strchr(line, '\n')) ? line + 1 : NULL) {
        if (strncmp(line, ".It ", 4))
            continue;
        const char *eol = strchr(line, '\n'), *p = line;
        while ((p = strstr(p, want)) && (!eol || p < eol)) {
            char next = p[strlen(want)];
            if (!(next >= 'a' && next <= 'z') && !(next >= '0' && next <= '9') && next != '-')
                return 1;
            p += strlen(want);
        }
    }
    return 0;
}

/* Checks one command (or subcommand) against its page: every option of
 * --help has an item in the page, and every option the page's OPTIONS
 * section (the subcommand's subsection of optinc-onn(1)) names is in --help. */
static void check_page(const char *const *args, const char *label, const char *page_path,
                       const char *region_head, int stop_ss)
{
    char *page = tu_read_file(page_path, NULL);
    cr_assert(page, "%s exists", page_path);
    tu_run r = tu_optinc(args);
    cr_assert_eq(r.status, 0, "%s --help: %s", label, r.err);
    char help[4096] = "", documented[4096] = "", copy[4096], *save;
    collect_options(r.out, "--", help, sizeof help);
    cr_expect(*help, "%s --help lists options", label);
    snprintf(copy, sizeof copy, "%s", help);
    for (char *name = strtok_r(copy, " ", &save); name; name = strtok_r(NULL, " ", &save))
        cr_expect(man_item(page, name), "%s: --%s of --help has no .It Fl -%s in %s", label,
                  name, name, page_path);
    char *region = man_region(page, region_head, stop_ss);
    cr_assert(region, "%s has a '%s' part", page_path, region_head);
    collect_options(region, "Fl -", documented, sizeof documented);
    snprintf(copy, sizeof copy, "%s", documented);
    for (char *name = strtok_r(copy, " ", &save); name; name = strtok_r(NULL, " ", &save))
        cr_expect(in_set(help, name), "%s: '%s' of %s names --%s, which --help does not list",
                  label, region_head, page_path, name);
    free(region);
    tu_run_free(&r);
    free(page);
}

/* Every command and subcommand against its man page: they come from the
 * dispatcher's --help (its list of commands) and each command's usage lines
 * (a lower-case word after "optinc CMD" is a subcommand). */
Test(cli, man_pages_cover_help)
{
    check_page(ARGS("--help"), "optinc", "man/optinc.1", ".Sh OPTIONS", 0);
    tu_run top = tu_optinc(ARGS("--help"));
    cr_assert_eq(top.status, 0);
    const char *list = strstr(top.out, "commands:\n");
    cr_assert(list);
    int commands = 0, subcommands = 0;
    for (const char *line = strchr(list, '\n') + 1; !strncmp(line, "  ", 2);
         line = strchr(line, '\n') + 1) {
        char cmd[32], page[64], label[80], prefix[64];
        sscanf(line, "%31s", cmd);
        snprintf(page, sizeof page, "man/optinc-%s.1", cmd);
        tu_run h = tu_optinc(ARGS(cmd, "--help"));
        cr_assert_eq(h.status, 0, "%s --help", cmd);
        snprintf(prefix, sizeof prefix, "optinc %s ", cmd);
        int subs = 0;
        for (const char *p = h.out; (p = strstr(p, prefix)); p += strlen(prefix)) {
            char sub[32];
            if (sscanf(p + strlen(prefix), "%31[a-z]", sub) != 1)
                continue;
            char head[48];
            snprintf(label, sizeof label, "%s %s", cmd, sub);
            snprintf(head, sizeof head, ".Ss %s", sub);
            check_page(ARGS(cmd, sub, "--help"), label, page, head, 1);
            subs++;
        }
        if (!subs)
            check_page(ARGS(cmd, "--help"), cmd, page, ".Sh OPTIONS", 0);
        subcommands += subs;
        commands++;
        tu_run_free(&h);
    }
    tu_run_free(&top);
    cr_expect_geq(commands, 5);
    cr_expect_geq(subcommands, 4);
}

/* Every man page passes mandoc's linter. */
Test(cli, man_pages_lint)
{
    DIR *d = opendir("man");
    cr_assert(d);
    struct dirent *e;
    int pages = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[512];
        snprintf(path, sizeof path, "man/%s", e->d_name);
        tu_run r = tu_start((char *[]){"/usr/bin/mandoc", "-T", "lint", "-W", "warning", path, NULL});
        tu_wait(&r);
        cr_expect_eq(r.status, 0, "mandoc -T lint %s: %s%s", path, r.out, r.err);
        tu_run_free(&r);
        pages++;
    }
    closedir(d);
    cr_expect_geq(pages, 8);
}

/* ---- JSON numbers ------------------------------------------------------------ */

Test(cli, json_numbers_are_shortest)
{
    static const struct { double x; const char *text; } cases[] = {
        {0.05, "0.05"}, {0.1 + 0.2, "0.30000000000000004"}, {20, "20"}, {800, "800"},
        {1e6, "1e+06"}, {1.0 / 3, "0.3333333333333333"}, {-0.0, "-0"}, {0, "0"},
        {5e-324, "5e-324"}, {DBL_MAX, "1.7976931348623157e+308"}, {3e-3, "0.003"},
        {123456789012, "123456789012"},
    };
    char buf[CLI_SHORTEST_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_str_eq(cli_shortest(buf, cases[i].x), cases[i].text, "%.17g", cases[i].x);
    /* random doubles read back exactly, in no more characters than %.17g */
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < 100000; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double x;
        memcpy(&x, &s, sizeof x);
        if (!isfinite(x))
            continue;
        char full[40];
        cli_shortest(buf, x);
        cr_assert_eq(strtod(buf, NULL), x, "%s", buf);
        cr_assert_leq(strlen(buf), (size_t)snprintf(full, sizeof full, "%.17g", x));
    }
    /* NaN and infinity are not JSON */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cli_json_number(f, NAN);
    fputc(' ', f);
    cli_json_number(f, -INFINITY);
    fputc(' ', f);
    cli_json_number(f, 0.05);
    fclose(f);
    cr_expect_str_eq(text, "null null 0.05");
    free(text);
}

/* Through the program: a value given on the command line comes back short. */
Test(cli, json_output_is_short)
{
    tu_run r = tu_optinc(ARGS("onn", "verify", "specs/onn4x8.yaml", "--sigma", "0.05", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"phase_sigma_rad\": 0.05,"), "%s", r.out);
    cr_expect(!strstr(r.out, "00000000"), "no padded digits: %s", r.out);
    tu_run_free(&r);
}

/* ---- JSON strings ------------------------------------------------------------- */

/* A path is bytes, JSON is UTF-8: well-formed sequences pass through, every
 * other byte (a stray continuation, an overlong form, a surrogate, a cut
 * sequence, a byte no UTF-8 has) becomes U+FFFD, control characters and the
 * two JSON specials are escaped. */
Test(cli, json_strings_are_utf8)
{
    static const struct { const char *in, *out; } cases[] = {
        {"plain/path.yaml", "\"plain/path.yaml\""},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""},
        {"chip_\xff.yaml", "\"chip_\\ufffd.yaml\""},
        {"\x80x", "\"\\ufffdx\""},
        {"\xc0\xaf", "\"\\ufffd\\ufffd\""},                  /* overlong '/' */
        {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""},       /* a surrogate */
        {"\xe2\x82", "\"\\ufffd\\ufffd\""},                  /* cut at the end */
        {"\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""},   /* above U+10FFFF */
        {"a\"b\\c\n", "\"a\\\"b\\\\c\\u000a\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        cli_json_string(f, cases[i].in);
        fclose(f);
        cr_expect_str_eq(text, cases[i].out, "case %zu", i);
        free(text);
    }
}

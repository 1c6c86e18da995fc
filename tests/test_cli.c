/*
 * test_cli.c - the optinc command line as a user meets it: the dispatcher,
 * `optinc compile` (summary, JSON, netlist output, exit codes, no partial
 * output on bad input), and the counts it prints checked against the
 * formulas, not against output recorded once.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

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

/* Every option a command's --help names is documented in its man page, and
 * every man page passes mandoc's linter. */
Test(cli, man_pages_cover_help)
{
    const char *cmds[] = {"compile", "draw", "simulate", "onn", "train"};
    for (int i = 0; i < 5; i++) {
        char page[256];
        snprintf(page, sizeof page, "man/optinc-%s.1", cmds[i]);
        char *man = tu_read_file(page, NULL);
        cr_assert(man, "%s exists", page);
        tu_run r = tu_optinc(ARGS(cmds[i], "--help"));
        cr_assert_eq(r.status, 0);
        for (const char *p = r.out; (p = strstr(p, "--")); ) {
            char opt[64];
            size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
            if (n == 0 || n >= sizeof opt - 1) {
                p += 2;
                continue;
            }
            memcpy(opt, p + 2, n);
            opt[n] = '\0';
            if (!strcmp(opt, "help")) {     /* the usage line itself */
                p += 2 + n;
                continue;
            }
            /* mdoc writes --name as "Fl -name". */
            char want[80];
            snprintf(want, sizeof want, "Fl -%s", opt);
            cr_expect(strstr(man, want), "%s: option --%s of --help is not in %s", cmds[i], opt,
                      page);
            p += 2 + n;
        }
        tu_run_free(&r);
        free(man);
    }
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

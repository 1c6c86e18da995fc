/*
 * test_netlist_page.c - what optinc-netlist(1) promises of `optinc netlist`:
 * the rewrite of every golden netlist in netlists/ is byte-identical to it;
 * each converts to the --flatten, --expand-mzi and combined forms, whose
 * rewrite in the same form is stable and whose rewrite without options is
 * the golden file again (so every form reads back to the same circuit); and
 * bad command lines, bad netlists and an output that is the input fail
 * with status 2 before anything is written.  (The page optinc-netlist(5)
 * itself is checked by python/tests/test_netlist_page.py.)
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define ARGS(...) ((const char *[]){__VA_ARGS__, NULL})

/* Runs `optinc netlist in -o out [opts]`, which must succeed. */
static void rewrite(const char *in, const char *out, const char *opt1, const char *opt2)
{
    tu_run r = tu_optinc(ARGS("netlist", in, "-o", out, opt1, opt2));
    cr_assert_eq(r.status, 0, "optinc netlist %s %s %s: %s", in, opt1 ? opt1 : "",
                 opt2 ? opt2 : "", r.err);
    tu_run_free(&r);
}

/* 1 when the two files hold the same bytes. */
static int same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    char *x = tu_read_file(a, &na), *y = tu_read_file(b, &nb);
    int same = x && y && na == nb && !memcmp(x, y, na);
    free(x);
    free(y);
    return same;
}

/* Exact on any machine, though the golden netlists were computed on
 * another: `optinc netlist` reads the numbers and prints them back in
 * shortest round-trip text, computing none (cmd_netlist.c). */
Test(netlist_cmd, golden_netlists_rewrite_to_themselves, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    glob_t g;
    cr_assert_eq(glob("netlists/*.sp", 0, NULL, &g), 0);
    cr_assert_geq(g.gl_pathc, 7);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char out[4400];
        snprintf(out, sizeof out, "%s", tu_scratch("again.sp"));
        rewrite(g.gl_pathv[i], out, NULL, NULL);
        cr_expect(same_file(g.gl_pathv[i], out), "optinc netlist changes %s", g.gl_pathv[i]);
    }
    globfree(&g);
}

/* Runs `optinc netlist in[k] -o out[k] opt1 opt2` for k < n, in parallel. */
static void rewrite_all(char (*in)[512], char (*out)[512], size_t n, const char *opt1,
                        const char *opt2)
{
    tu_run r[16];
    for (size_t k = 0; k < n; k++)
        r[k] = tu_optinc_start(ARGS("netlist", in[k], "-o", out[k], opt1, opt2));
    for (size_t k = 0; k < n; k++) {
        tu_wait(&r[k]);
        cr_expect_eq(r[k].status, 0, "optinc netlist %s %s %s: %s", in[k], opt1 ? opt1 : "",
                     opt2 ? opt2 : "", r[k].err);
        tu_run_free(&r[k]);
    }
}

Test(netlist_cmd, forms_convert_and_read_back, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    static const char *const forms[][2] = {
        {"--flatten", NULL}, {"--expand-mzi", NULL}, {"--flatten", "--expand-mzi"}};
    glob_t g;
    cr_assert_eq(glob("netlists/*.sp", 0, NULL, &g), 0);
    size_t n = g.gl_pathc < 16 ? g.gl_pathc : 16;
    char golden[16][512], form[16][512], again[16][512], back[16][512];
    for (size_t k = 0; k < n; k++) {
        snprintf(golden[k], sizeof golden[k], "%.511s", g.gl_pathv[k]);
        snprintf(form[k], sizeof form[k], "%.511s", tu_scratch(strrchr(golden[k], '/') + 1));
        strcpy(again[k], form[k]);
        strcpy(back[k], form[k]);
        memcpy(strrchr(again[k], '.'), ".a", 3);
        memcpy(strrchr(back[k], '.'), ".b", 3);
    }
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        const char *o1 = forms[f][0], *o2 = forms[f][1] ? forms[f][1] : "";
        rewrite_all(golden, form, n, forms[f][0], forms[f][1]);
        rewrite_all(form, again, n, forms[f][0], forms[f][1]);
        /* --hierarchical undoes a --flatten given before it. */
        rewrite_all(form, back, n, "--flatten", "--hierarchical");
        for (size_t k = 0; k < n; k++) {
            cr_expect(!same_file(golden[k], form[k]), "%s %s: no change", golden[k], o1);
            cr_expect(same_file(form[k], again[k]), "%s in the form %s %s is not stable",
                      golden[k], o1, o2);
            cr_expect(same_file(golden[k], back[k]), "%s does not come back from the form "
                      "%s %s", golden[k], o1, o2);
        }
    }
    globfree(&g);
}

Test(netlist_cmd, refuses_before_writing, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    char copy[4400];
    snprintf(copy, sizeof copy, "%s", tu_scratch("real4.sp"));
    char *text = tu_read_file("netlists/real4.pnl.sp", NULL);
    cr_assert(text && !tu_write_file(copy, text));
    free(text);

    tu_run r = tu_optinc(ARGS("netlist", copy));
    cr_expect_eq(r.status, 2, "no -o");
    cr_expect(strstr(r.err, "missing -o OUT.sp"), "%s", r.err);
    tu_run_free(&r);

    r = tu_optinc(ARGS("netlist", copy, "-o", copy));
    cr_expect_eq(r.status, 2, "output = input");
    cr_expect(strstr(r.err, "this run reads"), "%s", r.err);
    tu_run_free(&r);

    r = tu_optinc(ARGS("netlist", "tests/bad/netlist/capped_count.pnl.sp", "-o",
                       tu_scratch("out.sp")));
    cr_expect_eq(r.status, 2, "a bad netlist");
    cr_expect(strstr(r.err, "capped_count.pnl.sp:3:4: error: "), "%s", r.err);
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), 1, "nothing written");
    tu_run_free(&r);
}

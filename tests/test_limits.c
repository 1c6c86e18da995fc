/*
 * test_limits.c - resource limits (optinc-limits(7)): inputs that would need
 * absurd memory or time are refused before the work starts, with the
 * position of what asks for it and a message that names the limit and how to
 * raise it or get under it.
 *
 * Each case builds the input (most are too big or too repetitive to keep as
 * files) in a scratch directory and checks the status, LINE:COL and message
 * fragments from the library; the small fixtures under tests/bad/limits/ go
 * through the program too (exit 2, "FILE:LINE:COL: error:", no output file).
 * Soft limits are set in the optinc_limits the readers get (set_limit());
 * Criterion runs every test in its own process, so a change never leaks into
 * another test.  The program fills its limits from the environment, which
 * the test through the program checks.  The .timeout of a
 * test is only a guard against a limit that stopped working (the parsers'
 * time then grows with the square of the input): the cases finish in well
 * under a second each.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include "optinc/allreduce.h"
#include "optinc/calibration.h"
#include "optinc/limits.h"
#include "optinc/netlist.h"
#include "optinc/spec.h"
#include "testutil.h"

/* A growing text buffer for the generated inputs. */
typedef struct text { char *s; size_t n, cap; } text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    while (t->n + (size_t)need + 1 > t->cap) {
        t->cap = t->cap ? 2 * t->cap : 4096;
        t->s = realloc(t->s, t->cap);
        cr_assert_not_null(t->s);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
    va_end(ap);
    t->n += (size_t)need;
}

/* Writes t (nothing added: an empty file) to the scratch file name and
 * frees it; returns the path. */
static const char *save(text *t, const char *name)
{
    cr_assert_eq(tu_write_file(tu_scratch(name), t->s ? t->s : ""), 0);
    free(t->s);
    *t = (text){0};
    return tu_scratch_last();
}

/* The expected failure: status, position (0 = not checked) and up to three
 * fragments of the message. */
static void expect_fail(optinc_status st, const optinc_error *err, int line, int col,
                        const char *f1, const char *f2, const char *f3)
{
    cr_expect_eq(st, OPTINC_EINPUT, "status %d: %s", st, err->message);
    if (line)
        cr_expect(err->line == line && err->column == col, "at %d:%d, want %d:%d: %s",
                  err->line, err->column, line, col, err->message);
    const char *frag[3] = {f1, f2, f3};
    for (int i = 0; i < 3; i++)
        if (frag[i])
            cr_expect(strstr(err->message, frag[i]), "message lacks '%s': %s", frag[i],
                      err->message);
}

/* The soft limits the readers get: the defaults until a test sets one. */
static optinc_limits lim;
static int lim_set;

static const optinc_read_opts *opts(void)
{
    static optinc_read_opts o;
    if (!lim_set) {
        optinc_limits_init(&lim);
        lim_set = 1;
    }
    o.limits = &lim;
    return &o;
}

static void set_limit(optinc_limit_id id, const char *value)
{
    opts();
    cr_assert_eq(optinc_limits_set(&lim, id, value), 0, "'%s'", value);
}

static optinc_status load_spec(const char *path, optinc_error *err)
{
    optinc_spec *s = (optinc_spec *)1;
    optinc_status st = optinc_spec_load(path, opts(), &s, err);
    if (st)
        cr_expect_null(s, "no spec on failure");
    optinc_spec_free(st ? NULL : s);
    return st;
}

static optinc_status load_netlist(const char *path, optinc_error *err)
{
    optinc_circuit *c = (optinc_circuit *)1;
    optinc_status st = optinc_netlist_read(path, opts(), &c, err);
    if (st)
        cr_expect_null(c, "no circuit on failure");
    optinc_circuit_free(st ? NULL : c);
    return st;
}

static const char spec_head[] = "schema_version: 1\nname: limits\n";

/* ---------------------------------------------------------------- soft limits -- */

Test(limits, soft_limits_are_set_from_their_text)
{
    optinc_limits l;
    optinc_limits_init(&l);
    cr_expect_eq(optinc_limits_get(&l, OPTINC_LIMIT_MODES), OPTINC_MODES_DEFAULT);
    cr_expect_eq(optinc_limits_get(NULL, OPTINC_LIMIT_CARDS), OPTINC_CARDS_DEFAULT);
    cr_expect_str_eq(optinc_limit_name(OPTINC_LIMIT_MODES), "OPTINC_MAX_MODES");
    cr_expect_str_eq(optinc_limit_name(OPTINC_LIMIT_CARDS), "OPTINC_MAX_CARDS");
    cr_expect_str_eq(optinc_limit_name(OPTINC_LIMIT_INCLUDES), "OPTINC_MAX_INCLUDES");
    cr_expect_eq(optinc_limits_get(&l, OPTINC_LIMIT_INCLUDES), OPTINC_INCLUDES_DEFAULT);
    cr_expect_eq(optinc_limits_set(&l, OPTINC_LIMIT_MODES, "4096"), 0);
    cr_expect_eq(optinc_limits_get(&l, OPTINC_LIMIT_MODES), 4096);
    /* Not a whole number in 1..cap: refused, and the value in force stays. */
    const char *bad[] = {"", "0", "-5", "12x", "65537", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_expect_eq(optinc_limits_set(&l, OPTINC_LIMIT_MODES, bad[i]), -1, "'%s'", bad[i]);
        cr_expect_eq(optinc_limits_get(&l, OPTINC_LIMIT_MODES), 4096, "'%s'", bad[i]);
    }
    cr_expect_eq(optinc_limits_set(&l, OPTINC_LIMIT_MODES, NULL), -1);
    cr_expect_eq(optinc_limits_set(&l, OPTINC_LIMIT_MODES, "65536"), 0);
    cr_expect_eq(optinc_limits_get(&l, OPTINC_LIMIT_MODES), OPTINC_MODES_CAP);
    char buf[200];
    cr_expect_eq(optinc_limits_set(&l, OPTINC_LIMIT_CARDS, "12345"), 0);
    cr_expect_str_eq(optinc_limits_text(&l, OPTINC_LIMIT_CARDS, buf, sizeof buf),
                     "the limit of 12345 (OPTINC_MAX_CARDS); to go past it set the environment "
                     "variable OPTINC_MAX_CARDS (at most 268435456)");
}

/* ----------------------------------------------------------------------- spec -- */

Test(limits, mesh_of_a_million_modes, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    optinc_error err = {0};
    text t = {0};
    add(&t, "%smatrices:\n  W:\n    shape: [1000000, 1000000]\n"
            "    generate: {kind: haar_unitary}\n", spec_head);
    optinc_status st = load_spec(save(&t, "m.yaml"), &err);
    expect_fail(st, &err, 5, 13, "has 1000000 rows", "OPTINC_MAX_MODES", "at most 65536");
    /* Columns past the limit point at the columns. */
    add(&t, "%smatrices:\n  W: {shape: [2, 1025], generate: {kind: gaussian}}\n", spec_head);
    st = load_spec(save(&t, "c.yaml"), &err);
    expect_fail(st, &err, 4, 18, "has 1025 columns", "limit of 1024 (OPTINC_MAX_MODES)", NULL);
}

Test(limits, modes_limit_is_raised_by_its_setting, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    optinc_error err = {0};
    text t = {0};
    add(&t, "%smatrices:\n  W: {shape: [2048, 3], generate: {kind: gaussian}}\n", spec_head);
    const char *path = save(&t, "w.yaml");
    expect_fail(load_spec(path, &err), &err, 4, 15, "2048 rows", "limit of 1024", NULL);
    set_limit(OPTINC_LIMIT_MODES, "2048");
    cr_expect_eq(load_spec(path, &err), OPTINC_OK, "%s", err.message);
    set_limit(OPTINC_LIMIT_MODES, "16");
    add(&t, "%smatrices:\n  W: {shape: [17, 3], generate: {kind: gaussian}}\n", spec_head);
    expect_fail(load_spec(save(&t, "s.yaml"), &err), &err, 4, 15, "17 rows", "limit of 16",
                NULL);
}

Test(limits, huge_generate_refused_before_generating, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    /* 65 generated 1024 x 1024 matrices: 1.1 GiB in all.  The total is
     * checked before the first is generated, at the shape that crosses it. */
    optinc_error err = {0};
    text t = {0};
    add(&t, "%smatrices:\n", spec_head);
    for (int i = 0; i < 65; i++)
        add(&t, "  W%d: {shape: [1024, 1024], generate: {kind: haar_unitary}}\n", i);
    expect_fail(load_spec(save(&t, "g.yaml"), &err), &err, 3 + 65, 16, "with matrix 'W64'",
                "68157440 entries in total", "limit of 67108864");
    /* One matrix alone past the entry limit keeps its own message. */
    add(&t, "%smatrices:\n  W: {shape: [65536, 1025], generate: {kind: gaussian}}\n",
        spec_head);
    expect_fail(load_spec(save(&t, "one.yaml"), &err), &err, 4, 14, "67174400 entries",
                "more than the limit of 67108864 (2^26)", NULL);
}

Test(limits, circuit_cards, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    /* Eight 1024 x 1024 layers: 8 * (2 * 524800 + 1024) = 8404992 cards. */
    optinc_error err = {0};
    text t = {0};
    add(&t, "%smatrices:\n  W: {shape: [1024, 1024], generate: {kind: gaussian}}\nlayers:\n",
        spec_head);
    for (int i = 1; i <= 8; i++)
        add(&t, "  - {name: L%d, matrix: W}\n", i);
    expect_fail(load_spec(save(&t, "c.yaml"), &err), &err, 13, 24, "with layer 'L8'",
                "8404992 cards", "limit of 8388608 (OPTINC_MAX_CARDS)");
    /* A lower limit from the environment, counted per attenuator position:
     * 4x4 none = 10, input = 14, middle 2x4 = 3 + 10 + 2. */
    set_limit(OPTINC_LIMIT_CARDS, "38");
    add(&t, "%smatrices:\n  A: {shape: [4, 4], generate: {kind: gaussian}}\n"
            "  B: {shape: [2, 4], generate: {kind: gaussian}}\nlayers:\n"
            "  - {name: L1, matrix: A, attenuators: none}\n"
            "  - {name: L2, matrix: A, attenuators: input}\n"
            "  - {name: L3, matrix: B}\n", spec_head);
    const char *path = save(&t, "s.yaml");
    expect_fail(load_spec(path, &err), &err, 9, 24, "39 cards", "limit of 38", NULL);
    set_limit(OPTINC_LIMIT_CARDS, "39");
    cr_expect_eq(load_spec(path, &err), OPTINC_OK, "%s", err.message);
}

Test(limits, too_many_layers_or_matrices, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    optinc_error err = {0};
    text t = {0};
    add(&t, "%smatrices:\n  W: {shape: [1, 1], data: [[1]]}\nlayers:\n", spec_head);
    for (int i = 0; i <= OPTINC_LAYERS_MAX; i++)
        add(&t, "  - {name: L%d, matrix: W}\n", i);
    expect_fail(load_spec(save(&t, "l.yaml"), &err), &err, 6, 3, "'layers' has 4097 entries",
                "OPTINC_LAYERS_MAX", NULL);
    add(&t, "%smatrices:\n", spec_head);
    for (int i = 0; i <= OPTINC_LAYERS_MAX; i++)
        add(&t, "  W%d: {shape: [1, 1], data: [[1]]}\n", i);
    expect_fail(load_spec(save(&t, "m.yaml"), &err), &err, 4, 3, "'matrices' has 4097 entries",
                "limit of 4096", NULL);
}

/* --------------------------------------------------------------------- YAML -- */

Test(limits, yaml_nesting_every_way, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    /* Flow mappings, block mappings, compact block lists and flow lists one
     * level too deep: the root is level 1, x-deep's value level 2.  Keys are
     * nodes too, so the first node at level 65 is the key of the 63rd flow
     * mapping. */
    optinc_error err = {0};
    text t = {0};
    add(&t, "%sx-deep: ", spec_head);
    for (int k = 0; k < 64; k++)
        add(&t, "{a: ");
    expect_fail(load_spec(save(&t, "fm.yaml"), &err), &err, 3, 9 + 62 * 4 + 1,
                "nested more than 64 levels deep", "OPTINC_SPEC_DEPTH_MAX", NULL);
    add(&t, "%sx-deep:\n", spec_head);
    for (int k = 0; k < 64; k++)
        add(&t, "%*sk:\n", k + 1, "");
    expect_fail(load_spec(save(&t, "bm.yaml"), &err), &err, 3 + 63, 64, "64 levels", NULL,
                NULL);
    add(&t, "%sx-deep:\n", spec_head);
    for (int k = 0; k < 64; k++)
        add(&t, "- ");
    expect_fail(load_spec(save(&t, "bs.yaml"), &err), &err, 4, 1 + 2 * 63, "64 levels", NULL,
                NULL);
    /* A scalar counts as a level of its own. */
    add(&t, "%sx-deep: ", spec_head);
    for (int k = 0; k < 63; k++)
        add(&t, "[");
    add(&t, "1");
    for (int k = 0; k < 63; k++)
        add(&t, "]");
    expect_fail(load_spec(save(&t, "sc.yaml"), &err), &err, 3, 9 + 63, "64 levels", NULL, NULL);
}

Test(limits, yaml_bombs, .init = tu_scratch_init, .fini = tu_scratch_fini, .timeout = 60)
{
    optinc_error err = {0};
    text t = {0};
    /* 100,000 '[': libyaml alone takes time quadratic in this (49 s). */
    add(&t, "%sx-deep: ", spec_head);
    for (int k = 0; k < 100000; k++)
        add(&t, "[");
    expect_fail(load_spec(save(&t, "flow.yaml"), &err), &err, 3, 9 + 63, "64 levels", NULL,
                NULL);
    /* 1025 anchors: libyaml checks each against all before it (quadratic). */
    add(&t, "%sx-list:\n", spec_head);
    for (int k = 0; k <= OPTINC_SPEC_ANCHORS_MAX; k++)
        add(&t, "  - &a%d %d\n", k, k);
    expect_fail(load_spec(save(&t, "anchors.yaml"), &err), &err, 4 + OPTINC_SPEC_ANCHORS_MAX, 5,
                "more than 1024 anchors", "OPTINC_SPEC_ANCHORS_MAX", NULL);
    /* 65537 aliases of one anchor. */
    add(&t, "%sx-one: &a 1\nx-list: [", spec_head);
    for (int k = 0; k <= OPTINC_SPEC_ALIASES_MAX; k++)
        add(&t, "*a,");
    add(&t, "*a]\n");
    expect_fail(load_spec(save(&t, "aliases.yaml"), &err), &err, 4,
                10 + 3 * OPTINC_SPEC_ALIASES_MAX, "more than 65536 aliases",
                "OPTINC_SPEC_ALIASES_MAX", NULL);
    /* An alias bomb stays cheap: each level refers to the one before ten
     * times (10^9 values if expanded), and the schema walk never expands. */
    add(&t, "%sx-l0: &l0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n", spec_head);
    for (int k = 1; k < 9; k++)
        add(&t, "x-l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", k,
            k, k - 1, k - 1, k - 1, k - 1, k - 1, k - 1, k - 1, k - 1, k - 1, k - 1);
    cr_expect_eq(load_spec(save(&t, "lol.yaml"), &err), OPTINC_OK, "%s", err.message);
}

Test(limits, yaml_node_count, .init = tu_scratch_init, .fini = tu_scratch_fini, .timeout = 60)
{
    /* One flow list of 4194305 values: the document would take ~750 MB. */
    optinc_error err = {0};
    text t = {0};
    add(&t, "%sx-flat: [", spec_head);
    for (long k = 0; k < OPTINC_SPEC_NODES_MAX; k++)
        add(&t, "1,");
    add(&t, "1]\n");
    /* The root mapping, its 3 keys and 2 scalar values are 6 nodes and the
     * list the 7th, so value k (0-based) is node 8 + k: the limit falls on
     * value OPTINC_SPEC_NODES_MAX - 7, at column 10 + 2k. */
    expect_fail(load_spec(save(&t, "flat.yaml"), &err), &err, 3,
                (int)(10 + 2 * (OPTINC_SPEC_NODES_MAX - 7)), "more than 4194304 nodes",
                "OPTINC_SPEC_NODES_MAX", "'file:'");
}

/* ------------------------------------------------------------------- netlist -- */

static const char net_head[] = "*! layer.L1 = rows=1 cols=1 gain=1 attenuators=none\n";

Test(limits, netlist_hierarchy_that_multiplies_out, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    /* 10 levels of 10 instances: 10^9 cards from 1.5 kB, refused before
     * anything is flattened; also cells with nothing in them (10^9 cell
     * instances, no card). */
    optinc_error err = {0};
    for (int empty = 0; empty < 2; empty++) {
        text t = {0};
        add(&t, "%s", net_head);
        if (empty)
            add(&t, ".subckt c0\n.ends\n");
        else
            add(&t, ".subckt c0 in0 out0\nP in0 out0 ps phase_rad=0\n.ends\n");
        for (int k = 1; k < 10; k++) {
            add(&t, empty ? ".subckt c%d\n" : ".subckt c%d in0 out0\n", k);
            for (int j = 0; j < 10; j++)
                if (empty)
                    add(&t, "E%d c%d\n", j, k - 1);
                else
                    add(&t, "X%d %s%d %s%d c%d\n", j, j ? "n" : "in", j, j == 9 ? "out" : "n",
                        j == 9 ? 0 : j + 1, k - 1);
            add(&t, ".ends\n");
        }
        add(&t, empty ? "top c9\n.end\n" : "top in0 out0 c9\n.end\n");
        /* header 1 line, c0 2 or 3, then 12 lines per level */
        expect_fail(load_netlist(save(&t, "bomb.sp"), &err), &err, empty ? 112 : 113,
                    empty ? 5 : 14,
                    "'c9' flattens to over 268435456 cards and cell instances",
                    "limit of 8388608 (OPTINC_MAX_CARDS)", "set the environment variable");
    }
    /* Parameters copied into every instance count too: 4000 x 4000. */
    set_limit(OPTINC_LIMIT_CARDS, "16000000");
    text t = {0};
    add(&t, "%s.subckt c0 in0 out0", net_head);
    for (int p = 0; p < 4000; p++)
        add(&t, " p%d=1", p);
    add(&t, "\nP in0 out0 ps phase_rad=p0\n.ends\n.subckt c1 in0 out0\n");
    for (int j = 0; j < 4000; j++)
        add(&t, "X%d %s%d %s%d c0\n", j, j ? "n" : "in", j, j == 3999 ? "out" : "n",
            j == 3999 ? 0 : j + 1);
    add(&t, ".ends\ntop in0 out0 c1\n.end\n");
    expect_fail(load_netlist(save(&t, "params.sp"), &err), &err, 4007, 14,
                "'c1' flattens to 16008000 cards", "limit of 16000000", NULL);
}

Test(limits, netlist_cells_nested_too_deep, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    /* A chain of cells, the innermost defined first or last: either way the
     * error is at the instance that makes level 65. */
    optinc_error err = {0};
    for (int order = 0; order < 2; order++) {
        for (int levels = 64; levels <= 65; levels++) {
            text t = {0};
            add(&t, "%s", net_head);
            for (int i = 0; i < levels; i++) {
                int k = order ? levels - 1 - i : i;
                if (k == levels - 1)
                    add(&t, ".subckt c%d in0 out0\nP in0 out0 ps phase_rad=0\n.ends\n", k);
                else
                    add(&t, ".subckt c%d in0 out0\nX in0 out0 c%d\n.ends\n", k, k + 1);
            }
            add(&t, "top in0 out0 c0\n.end\n");
            optinc_status st = load_netlist(save(&t, "chain.sp"), &err);
            if (levels == 64) {
                cr_expect_eq(st, OPTINC_OK, "64 levels are fine: %s", err.message);
                continue;
            }
            /* order 0: c63's instance of c64 is on line 2 + 3 * 63 + 1. */
            int line = order ? 2 + 3 * 1 + 1 : 2 + 3 * 63 + 1;
            expect_fail(st, &err, line, 12, "cells nest more than 64 levels deep",
                        "OPTINC_NETLIST_NEST_MAX", NULL);
        }
    }
}

Test(limits, netlist_parameters_and_ports, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    optinc_error err = {0};
    text t = {0};
    /* 4097 globals on one .param line (their duplicate check is quadratic). */
    add(&t, "%s.param", net_head);
    for (int p = 0; p <= OPTINC_NETLIST_PARAMS_MAX; p++)
        add(&t, " p%d=1", p);
    add(&t, "\n.end\n");
    expect_fail(load_netlist(save(&t, "g.sp"), &err), &err, 2,
                8 + 5 * 10 + 6 * 90 + 7 * 900 + 8 * 3096, "more than 4096 parameters",
                "OPTINC_NETLIST_PARAMS_MAX", NULL);
    /* An instance with 4097 overrides, spread over '+' lines. */
    add(&t, "%s.subckt c in0 out0 w=1\nP in0 out0 ps phase_rad=w\n.ends\n"
            ".subckt top in0 out0\nX in0 out0 c\n", net_head);
    for (int p = 0; p <= OPTINC_NETLIST_PARAMS_MAX; p++)
        add(&t, "+ w=%d\n", p);
    add(&t, ".ends\ntop in0 out0 top\n.end\n");
    expect_fail(load_netlist(save(&t, "o.sp"), &err), &err, 7 + OPTINC_NETLIST_PARAMS_MAX, 3,
                "more than 4096 parameters", NULL, NULL);
    /* A cell with more ports than two meshes' worth of modes. */
    add(&t, "%s.subckt wide", net_head);
    for (int p = 0; p < 2049; p++)
        add(&t, " p%d", p);
    add(&t, "\n.ends\n.end\n");
    expect_fail(load_netlist(save(&t, "p.sp"), &err), &err, 2, 9, "'wide' has 2049 ports",
                "more than twice the limit of 1024 (OPTINC_MAX_MODES)", NULL);
}

Test(limits, netlist_header, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    optinc_error err = {0};
    text t = {0};
    add(&t, "*! layer.L1 = rows=1 cols=70000 gain=1 attenuators=none\n"
            ".subckt t in0 out0\nP in0 out0 ps phase_rad=0\n.ends\nt in0 out0 t\n.end\n");
    expect_fail(load_netlist(save(&t, "m.sp"), &err), &err, 1, 27, "70000 columns",
                "OPTINC_MAX_MODES", NULL);
    for (int i = 0; i <= OPTINC_LAYERS_MAX; i++)
        add(&t, "*! layer.L%d = rows=1 cols=1 gain=1 attenuators=none\n", i);
    add(&t, ".subckt t in0 out0\nP in0 out0 ps phase_rad=0\n.ends\nt in0 out0 t\n.end\n");
    expect_fail(load_netlist(save(&t, "l.sp"), &err), &err, 0, 0, "more than 4096 layers",
                "OPTINC_LAYERS_MAX", NULL);
}

/* ------------------------------------------------------------- input bytes -- */

/* OPTINC_MAX_INPUT_BYTES holds every file a reader reads whole to it: a
 * spec, its matrix files, a netlist with its includes together, a
 * calibration file, an error histogram; each message names the limit. */
Test(limits, input_bytes_in_every_reader, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    static const char *const limit = "the limit of 200 (OPTINC_MAX_INPUT_BYTES)";
    optinc_error err = {0};
    text t = {0};
    set_limit(OPTINC_LIMIT_INPUT_BYTES, "200");
    add(&t, "%s# %0200d\n", spec_head, 0);
    expect_fail(load_spec(save(&t, "big.yaml"), &err), &err, 0, 0, "spec '", "is larger than",
                limit);
    /* a matrix file is refused at the spec node that names it */
    add(&t, "# %0200d\n1,0\n0,1\n", 0);
    save(&t, "w.csv");
    add(&t, "%smatrices:\n  W: {shape: [2, 2], file: w.csv}\n"
        "layers:\n  - {name: L1, matrix: W}\n", spec_head);
    expect_fail(load_spec(save(&t, "s.yaml"), &err), &err, 4, 28, "matrix file 'w.csv'",
                limit, NULL);
    /* a netlist alone, and with its includes together */
    add(&t, "* %0200d\n.end\n", 0);
    expect_fail(load_netlist(save(&t, "big.sp"), &err), &err, 0, 0, "netlist '", limit, NULL);
    add(&t, "* %0100d\n", 0);
    save(&t, "a.inc");
    add(&t, ".include \"a.inc\"\n.end\n");
    expect_fail(load_netlist(save(&t, "inc.sp"), &err), &err, 1, 10,
                "with '", "a.inc' the netlist grows past the limit of 200", NULL);
    /* calibration files and histograms, through the options they are read with */
    optinc_read_opts o = {&lim, NULL, NULL, NULL};
    add(&t, "# %0200d\noptinc-calibration 1\n", 0);
    optinc_circuit *c = optinc_circuit_new("c", 1);
    optinc_calibration *cal = NULL;
    expect_fail(optinc_calibration_read(save(&t, "c.cal"), c, &o, &cal, &err), &err, 0, 0,
                "calibration file '", limit, NULL);
    cr_expect_null(cal);
    optinc_circuit_free(c);
    add(&t, "# %0200d\n0 10\n1 1\n", 0);
    optinc_err_hist *h = NULL;
    expect_fail(optinc_err_hist_load(save(&t, "h.txt"), &o, &h, &err), &err, 0, 0,
                "histogram file '", limit, NULL);
    cr_expect_null(h);
    /* a netlist in memory is held to it too */
    char big[300];
    snprintf(big, sizeof big, "* %0250d\n.end\n", 0);
    optinc_input in = {"mem.sp", big, strlen(big)};
    cr_expect_eq(optinc_netlist_parse(&in, opts(), &c, &err), OPTINC_EINPUT);
    cr_expect(strstr(err.message, limit), "%s", err.message);
}

/* ---------------------------------------------------------------- includes -- */

/* n lines of .include "name". */
static void add_includes(text *t, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        add(t, ".include \"%s\"\n", name);
}

static const char net_body[] = ".subckt t in0 out0\nP in0 out0 ps phase_rad=0\n.ends\n"
                               "t in0 out0 t\n.end\n";

/* OPTINC_MAX_INCLUDES counts every .include followed, in every file, each
 * time its file is read. */
Test(limits, includes_are_counted_with_repeats, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    optinc_error err = {0};
    text t = {0};
    set_limit(OPTINC_LIMIT_INCLUDES, "3");
    save(&t, "e.inc");
    add(&t, "%s.include \"e.inc\"\n.include e.inc\n.include \"e.inc\"\n%s", net_head, net_body);
    cr_expect_eq(load_netlist(save(&t, "three.sp"), &err), OPTINC_OK, "%s", err.message);
    add(&t, "%s.include \"e.inc\"\n.include e.inc\n.include \"e.inc\"\n.include \"e.inc\"\n%s",
        net_head, net_body);
    expect_fail(load_netlist(save(&t, "four.sp"), &err), &err, 5, 10,
                ".include number 4 of the netlist (an .include counts each time its file is read)",
                "is past the limit of 3 (OPTINC_MAX_INCLUDES); to go past it set the environment "
                "variable OPTINC_MAX_INCLUDES (at most 1048576)", NULL);
    /* includes of includes: a.inc read twice is 2 x (1 + 2) */
    add(&t, ".include \"e.inc\"\n.include \"e.inc\"\n");
    save(&t, "a.inc");
    add(&t, "%s.include \"a.inc\"\n.include \"a.inc\"\n%s", net_head, net_body);
    expect_fail(load_netlist(save(&t, "nested.sp"), &err), &err, 3, 10, ".include number 4",
                "OPTINC_MAX_INCLUDES", NULL);
    cr_expect(strstr(err.file, "nested.sp"), "%s", err.file);
}

/* An inclusion counts as at least OPTINC_NETLIST_INCLUDE_BYTES_MIN towards
 * the input limit, so that empty files add up too. */
Test(limits, empty_includes_count_towards_the_input_limit, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    optinc_error err = {0};
    text t = {0};
    char value[32];
    save(&t, "e.inc");
    add(&t, "%s.include \"e.inc\"\n.include \"e.inc\"\n.include \"e.inc\"\n%s", net_head,
        net_body);
    size_t main_bytes = t.n;
    const char *path = save(&t, "three.sp");
    snprintf(value, sizeof value, "%zu", main_bytes + 3 * OPTINC_NETLIST_INCLUDE_BYTES_MIN);
    set_limit(OPTINC_LIMIT_INPUT_BYTES, value);
    cr_expect_eq(load_netlist(path, &err), OPTINC_OK, "%s", err.message);
    snprintf(value, sizeof value, "%zu", main_bytes + 3 * OPTINC_NETLIST_INCLUDE_BYTES_MIN - 1);
    set_limit(OPTINC_LIMIT_INPUT_BYTES, value);
    char limit[96];
    snprintf(limit, sizeof limit, "past the limit of %s (OPTINC_MAX_INPUT_BYTES)", value);
    expect_fail(load_netlist(path, &err), &err, 4, 10, "e.inc' the netlist grows", limit,
                "every inclusion of a file counts its bytes again, and at least 4096");
}

/* The two bombs of the report, built as they were and read by the program
 * with its default limits: 1,000 .includes of a file of 1,000 .includes of
 * an empty file (a million reads; the report: 60 s and 3.2 GB), and a
 * million .includes of an empty file (9 s and 1.24 GB).  Each stops at the
 * 10,001st include, with exit 2 and its position, having written nothing;
 * the timeout is only a guard (each takes a fraction of a second). */
Test(limits, include_bombs_through_the_program, .init = tu_scratch_init,
     .fini = tu_scratch_fini, .timeout = 60)
{
    text t = {0};
    mkdir(tu_scratch("fan"), 0777);
    mkdir(tu_scratch("flat"), 0777);
    add(&t, "* bomb\n.include \"a.inc\"\n.end\n");
    save(&t, "fan/top.sp");
    add_includes(&t, 1000, "b.inc");
    save(&t, "fan/a.inc");
    add_includes(&t, 1000, "c.inc");
    save(&t, "fan/b.inc");
    save(&t, "fan/c.inc");
    save(&t, "flat/e.inc");
    add(&t, "* bomb\n");
    add_includes(&t, 1000000, "e.inc");
    add(&t, ".end\n");
    save(&t, "flat/top.sp");
    static const char *const want[2][2] = {
        {"fan/b.inc:990:10: error: .include number 10001 ", "fan/top.sp"},
        {"flat/top.sp:10002:10: error: .include number 10001 ", "flat/top.sp"}};
    static const char *const tail = "is past the limit of 10000 (OPTINC_MAX_INCLUDES); to go "
                                    "past it set the environment variable OPTINC_MAX_INCLUDES";
    tu_run runs[2];
    char top[2][4400], out[2][4400];
    unsetenv("OPTINC_MAX_INCLUDES");
    for (int i = 0; i < 2; i++) {
        snprintf(top[i], sizeof top[i], "%s", tu_scratch(want[i][1]));
        snprintf(out[i], sizeof out[i], "%s", tu_scratch(i ? "flat/out.sp" : "fan/out.sp"));
        runs[i] = tu_optinc_start((const char *[]){"netlist", top[i], "-o", out[i], NULL});
    }
    for (int i = 0; i < 2; i++) {
        tu_wait(&runs[i]);
        cr_expect_eq(runs[i].status, 2, "%s: exit %d: %s", want[i][1], runs[i].status,
                     runs[i].err);
        cr_expect(runs[i].err && strstr(runs[i].err, want[i][0]) && strstr(runs[i].err, tail)
                  && !strchr(strchr(runs[i].err, '\n') + 1, '\n'), "%s: stderr '%s', want "
                  "'...%s...%s', one line", want[i][1], runs[i].err, want[i][0], tail);
        cr_expect(access(out[i], F_OK) != 0, "%s: an output was written", want[i][1]);
        tu_run_free(&runs[i]);
    }
    /* the program takes the limit from its environment */
    add(&t, "%s.include \"e.inc\"\n.include \"e.inc\"\n%s", net_head, net_body);
    const char *two = save(&t, "flat/two.sp");
    setenv("OPTINC_MAX_INCLUDES", "1", 1);
    tu_run r = tu_optinc((const char *[]){"netlist", two, "-o", out[1], NULL});
    unsetenv("OPTINC_MAX_INCLUDES");
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "two.sp:3:10: error: .include number 2 ") &&
              strstr(r.err, "the limit of 1 (OPTINC_MAX_INCLUDES)"), "%s", r.err);
    tu_run_free(&r);
    r = tu_optinc((const char *[]){"netlist", two, "-o", out[1], NULL});
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    tu_run_free(&r);
}

/* ---------------------------------------------------------- the program -- */

/* tests/bad/limits/: each fixture through the program; X.expect holds
 * "FILE:LINE:COL: fragment" as for the netlist fixtures. */
/* The program takes its soft limits from the environment variables of their
 * names; a value that is not a whole number in 1..cap leaves the default. */
Test(limits, the_program_reads_the_environment, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    text t = {0};
    add(&t, "%smatrices:\n  W: {shape: [17, 3], generate: {kind: gaussian}}\n"
        "layers:\n  - {name: L1, matrix: W}\n", spec_head);
    const char *path = strdup(save(&t, "s.yaml"));
    const char *values[] = {"16", "16x", NULL};
    const int want[] = {2, 0, 0};
    for (int i = 0; i < 3; i++) {
        if (values[i])
            setenv("OPTINC_MAX_MODES", values[i], 1);
        else
            unsetenv("OPTINC_MAX_MODES");
        tu_run r = tu_optinc_start((const char *[]){"compile", path, NULL});
        tu_wait(&r);
        cr_expect_eq(r.status, want[i], "OPTINC_MAX_MODES=%s: exit %d: %s", values[i],
                     r.status, r.err);
        if (want[i])
            cr_expect(strstr(r.err, "4:15: error: ") && strstr(r.err, "limit of 16 "
                      "(OPTINC_MAX_MODES)"), "%s", r.err);
        tu_run_free(&r);
    }
    unsetenv("OPTINC_MAX_MODES");
    /* the input limit */
    setenv("OPTINC_MAX_INPUT_BYTES", "50", 1);
    tu_run r = tu_optinc((const char *[]){"compile", path, NULL});
    unsetenv("OPTINC_MAX_INPUT_BYTES");
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "s.yaml: error: spec '") && strstr(r.err, "is larger than the "
              "limit of 50 (OPTINC_MAX_INPUT_BYTES)"), "%s", r.err);
    tu_run_free(&r);
    free((char *)path);
}

Test(limits, fixtures_through_the_program, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    static const char *const names[] = {
        "mesh_million_modes.yaml", "mesh_2048_modes.yaml", "generate_total.yaml",
        "circuit_cards.yaml",      "hierarchy_bomb.pnl.sp", "nested_cells.pnl.sp",
        "header_modes.pnl.sp",     "include_bomb.pnl.sp",
    };
    enum { N = sizeof names / sizeof names[0] };
    tu_run runs[N];
    char out[N][4400];
    for (int i = 0; i < N; i++) {
        char path[256];
        snprintf(path, sizeof path, "tests/bad/limits/%s", names[i]);
        snprintf(out[i], sizeof out[i], "%s/out%d.npy", tu_scratch_dir(), i);
        int is_spec = strstr(names[i], ".yaml") != NULL;
        runs[i] = is_spec ? tu_optinc_start((const char *[]){"compile", path, "-o", out[i], NULL})
                          : tu_optinc_start((const char *[]){"simulate", path, "--matrix",
                                                             out[i], NULL});
    }
    for (int i = 0; i < N; i++) {
        tu_wait(&runs[i]);
        char exp_path[256], want[512], head[300];
        snprintf(exp_path, sizeof exp_path, "tests/bad/limits/%.*s.expect",
                 (int)strcspn(names[i], "."), names[i]);
        char *exp = tu_read_file(exp_path, NULL);
        cr_assert_not_null(exp, "%s has no .expect file", names[i]);
        cr_assert_eq(sscanf(exp, "%299[^ ] %511[^\n]", head, want), 2, "%s", exp_path);
        free(exp);
        char full[400];
        snprintf(full, sizeof full, "tests/bad/limits/%s error: ", head);
        cr_expect_eq(runs[i].status, 2, "%s: exit %d: %s", names[i], runs[i].status,
                     runs[i].err);
        cr_expect(runs[i].err && !strncmp(runs[i].err, full, strlen(full)) &&
                  strstr(runs[i].err, want), "%s: stderr '%s', want '%s...%s'", names[i],
                  runs[i].err, full, want);
        cr_expect(access(out[i], F_OK) != 0, "%s: an output file was written", names[i]);
        tu_run_free(&runs[i]);
    }
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), 0, "nothing left behind");
}

/*
 * test_onn_screen.c - the verifier's screen (runtime/onn/onn_screen.c)
 * changes no result: the same reports, tables and listed points as the full
 * complex evaluation of every point, on any thread count; what the decoder's
 * margin is; and the points the verifier lists and the trainer focuses on
 * (onn verify --misses and --points, onn train --focus) through the library
 * and the command line.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "optinc/circuit.h"
#include "optinc/onn.h"
#include "testutil.h"

/* ---- the decoder's margin -------------------------------------------------- */

Test(screen, decode_margin)
{
    optinc_onn_task t;
    cr_assert_eq(optinc_onn_task_unit(&t, 4, 8, OPTINC_P_DIGIT_SUMS, OPTINC_ROUND_HALF_EVEN,
                                      NULL), OPTINC_OK);
    /* binary code, digits least significant first: levels 0, 1, 3, 3 */
    double amp[4] = {0.3, -1.45, 2.9, 3.7}, m;
    cr_assert_eq(optinc_onn_decode_margin(&t, 1.0, amp, &m), 0u + 1 * 4 + 3 * 16 + 3 * 64);
    cr_assert_float_eq(m, 0.05, 1e-15, "1.45 is 0.05 from 1.5: %.17g", m);
    amp[1] = 1.0;
    cr_assert_eq(optinc_onn_decode_margin(&t, 1.0, amp, &m), 0u + 1 * 4 + 3 * 16 + 3 * 64);
    cr_assert_float_eq(m, 0.2, 1e-15, "0.3 is 0.2 from 0.5; 3.7 is past the last threshold");
    amp[2] = 2.0;         /* the scale: amplitude 4 of level 2 is 2 levels */
    double half[4] = {0.6, 2, 4, 7.4};
    cr_assert_eq(optinc_onn_decode_margin(&t, 2.0, half, &m), 0u + 1 * 4 + 2 * 16 + 3 * 64);
    cr_assert_float_eq(m, 0.2, 1e-15, "%.17g", m);
    amp[3] = NAN;
    optinc_onn_decode_margin(&t, 1.0, amp, &m);
    cr_assert(isnan(m), "a NaN amplitude leaves no margin");
    /* the offset code reads only the outputs its lower digits select */
    t.code = OPTINC_CODE_OFFSET;
    double off[7] = {1.2, 2.0, 1.0, 1.1, 0.5, 0.5, 0.5};   /* read: 0..3; 0.5 is no margin */
    cr_assert_eq(optinc_onn_decode_margin(&t, 1.0, off, &m), 1u + 2 * 4 + 1 * 16 + 1 * 64);
    cr_assert_float_eq(m, 0.3, 1e-15, "only the read outputs count: %.17g", m);
}

/* ---- the screen against the full evaluation ------------------------------------ */

/* The points a verification lists, with what it says of each. */
typedef struct listed_point {
    int p[OPTINC_ONN_MAX_DIGITS];
    uint64_t got, want;
    double margin;
} listed_point;

typedef struct listed {
    int n, cap, np;
    listed_point *at;
} listed;

static void collect(void *ctx, const int *p, uint64_t got, uint64_t want, double margin)
{
    listed *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        cr_assert((l->at = realloc(l->at, sizeof *l->at * (size_t)l->cap)));
    }
    listed_point *x = &l->at[l->n++];
    memset(x, 0, sizeof *x);
    memcpy(x->p, p, sizeof *p * (size_t)l->np);
    x->got = got;
    x->want = want;
    x->margin = margin;
}

/* b lists the same points as a, the full evaluation, in the same order,
 * and a point the screen left to the full evaluation has its margin from
 * there, the same bits. */
static void same_points(const listed *a, const listed *b, double near)
{
    cr_assert_eq(b->n, a->n);
    for (int i = 0; i < a->n; i++) {
        const listed_point *x = &a->at[i], *y = &b->at[i];
        cr_assert(!memcmp(x->p, y->p, sizeof x->p) && x->got == y->got && x->want == y->want);
        if (x->got == x->want)
            cr_assert_eq(x->margin, y->margin);
        cr_assert(x->got != x->want || x->margin <= near);
    }
}

static void same_report(const optinc_onn_report *a, const optinc_onn_report *b)
{
    optinc_onn_report x = *a, y = *b;
    x.screened = y.screened = 0;
    cr_assert(!memcmp(&x, &y, sizeof x), "the reports differ: %llu/%llu against %llu/%llu",
              (unsigned long long)a->correct, (unsigned long long)a->checked,
              (unsigned long long)b->correct, (unsigned long long)b->checked);
}

/* One circuit on one chip three ways: every point the full way, screened on
 * one thread and on three, each listing the points wrong or within near of
 * a threshold.  Returns the screened share; *listed the points listed. */
static double three_ways(const char *path, const optinc_onn_devices *dev, uint64_t sample,
                         double near, int *n_listed)
{
    listed full = {0}, fast = {0}, fast3 = {0};
    optinc_circuit *c;
    optinc_onn_meta m;
    optinc_error err;
    cr_assert_eq(optinc_onn_load(path, NULL, &c, &m, &err), OPTINC_OK, "%s", err.message);
    optinc_onn_domain d;
    cr_assert_eq(optinc_onn_domain_init(&d, &m.task, &err), OPTINC_OK);
    uint32_t *ca = calloc(d.size, sizeof *ca), *cb = calloc(d.size, sizeof *cb);
    uint32_t *cc = calloc(d.size, sizeof *cc);
    optinc_onn_verify_opts o;
    optinc_onn_report ra, rb, rc;
    optinc_onn_verify_opts_default(&o);
    o.full = 1;
    o.near = near;
    o.point = collect;
    o.ctx = &full;
    full.np = fast.np = fast3.np = optinc_onn_task_inputs(&m.task);
    int table = d.size <= 1000000;
    cr_assert_eq(optinc_onn_verify_with(c, &m, dev, sample, &o, &ra, table ? ca : NULL, &err),
                 OPTINC_OK, "%s", err.message);
    cr_assert_eq(ra.screened, 0);
    o.full = 0;
    o.ctx = &fast;
    cr_assert_eq(optinc_onn_verify_with(c, &m, dev, sample, &o, &rb, table ? cb : NULL, &err),
                 OPTINC_OK, "%s", err.message);
    o.ctx = &fast3;
    o.threads = 3;
    cr_assert_eq(optinc_onn_verify_with(c, &m, dev, sample, &o, &rc, table ? cc : NULL, &err),
                 OPTINC_OK, "%s", err.message);
    same_report(&ra, &rb);
    same_report(&ra, &rc);
    cr_assert_eq(rb.screened, rc.screened);
    cr_assert(!memcmp(ca, cb, sizeof *ca * d.size) && !memcmp(ca, cc, sizeof *ca * d.size),
              "the tables differ");
    same_points(&full, &fast, near);
    same_points(&full, &fast3, near);
    *n_listed = full.n;
    double share = (double)rb.screened / (double)rb.checked;
    free(full.at);
    free(fast.at);
    free(fast3.at);
    free(ca);
    free(cb);
    free(cc);
    optinc_onn_domain_free(&d);
    optinc_circuit_free(c);
    return share;
}

/* The shipped 8-bit unit on an ideal chip, exhaustively: the screen decides
 * all but the points within its bound (3.2e-6 levels at most) of a threshold,
 * which are none; the points within 0.3 levels of one are listed alike. */
Test(screen, changes_no_result_of_the_shipped_unit, .timeout = 120)
{
    optinc_onn_devices ideal = {.ideal = 1, .chip_seed = 1};
    int n;
    double share = three_ways("netlists/onn4x8.pnl.sp", &ideal, 0, 0, &n);
    cr_assert_eq(share, 1.0, "screened %g of the points", share);
    cr_assert_eq(n, 0, "exact, and no point near enough to need the full evaluation");
    share = three_ways("netlists/onn4x8.pnl.sp", &ideal, 0, 0.3, &n);
    cr_assert(n > 0, "some points lie within 0.3 levels of a threshold");
    cr_assert(share <= 1 - n / 28561.0, "those are evaluated the full way: %g", share);
}

/* The 16-bit ONN, 20,000 random points, where the listed points are those
 * within 0.25 of a threshold. */
Test(screen, changes_no_result_of_the_sixteen_bit_onn, .timeout = 120)
{
    optinc_onn_devices ideal = {.ideal = 1, .chip_seed = 3};
    int n;
    double share = three_ways("netlists/onn4x16.pnl.sp", &ideal, 20000, 0.25, &n);
    cr_assert(share > 0.99 && share <= 1 - n / 20000.0, "screened %g of the points", share);
}

/* A chip with phase errors is complex: the screen's bound would cover every
 * point, so the verifier evaluates them all the full way, as before (2,000
 * random P outputs). */
Test(screen, stands_aside_on_a_chip_with_errors, .timeout = 120)
{
    optinc_onn_devices bad = {.ideal = 0, .phase_sigma_rad = 0.02, .chip_seed = 5};
    int n;
    double share = three_ways("netlists/onn4x8.pnl.sp", &bad, 2000, 0, &n);
    cr_assert_eq(share, 0.0);
    cr_assert(n > 0, "this chip decodes some points wrong");
}

/* ---- focus points ---------------------------------------------------------- */

/* The tiny network of test_onn.c, trained on 2 random points an epoch: on
 * its own it stops as soon as those fit, short of exact; with every P output
 * as a focus point it trains on (and stops only when it meets the margin on)
 * all 49 of them, and is exact. */
Test(screen, focus_points_are_trained_on, .timeout = 120)
{
    optinc_onn_task t;
    optinc_onn_task_unit(&t, 2, 4, OPTINC_P_DIGIT_SUMS, OPTINC_ROUND_HALF_EVEN, NULL);
    int all[49][2];
    for (int i = 0; i < 49; i++) {
        all[i][0] = i % 7;
        all[i][1] = i / 7;
    }
    uint64_t exact[2] = {0, 0};
    for (int focus = 0; focus < 2; focus++) {
        optinc_onn net;
        int hidden[2] = {15, 16}, seg[6] = {3, 3, 16, 16, 0, 0};
        cr_assert_eq(optinc_onn_alloc(&net, &t, hidden, 2, seg, NULL), OPTINC_OK);
        optinc_onn_train_opts o;
        optinc_onn_train_defaults(&o);
        o.batch = 16;
        o.max_epochs = 800;
        o.lr = 1e-2;
        o.sample = 2;
        o.eval_every = 1;
        if (focus) {
            o.focus = &all[0][0];
            o.n_focus = 49;
        }
        optinc_onn_train_result res;
        cr_assert_eq(optinc_onn_train(&net, &o, 0, &res, NULL), OPTINC_OK);
        optinc_onn_report r;
        cr_assert_eq(optinc_onn_check(&net, 0, &r, NULL), OPTINC_OK);
        cr_assert_eq(r.checked, 49);
        exact[focus] = r.correct;
        optinc_onn_free(&net);
    }
    cr_assert(exact[0] < 49, "2 points an epoch alone: %llu of 49 exact",
              (unsigned long long)exact[0]);
    cr_assert_eq(exact[1], 49);
}

/* --misses writes the listed points of 3,000 random P outputs as a .csv,
 * which --points checks again and lists alike. */
static int misses_csv(const char *csv)
{
    tu_run r = tu_optinc((const char *[]){"onn", "verify", "netlists/onn4x8.pnl.sp", "--misses",
                                          csv, "--near", "0.3", "--sample", "3000", "--json",
                                          NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    double screened = tu_json_number(r.out, "screened");
    tu_run_free(&r);
    char *text = tu_read_file(csv, NULL);
    cr_assert(text && !strncmp(text, "# optinc onn verify --misses", 28), "%s", text);
    cr_assert(strstr(text, "# p0, p1, p2, p3, decoded, true, margin\n"), "%s", text);
    int rows = 0;
    for (char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        int p[4];
        unsigned long long got, want;
        double margin;
        if (line[1] == '#')
            continue;
        cr_assert_eq(sscanf(line + 1, "%d,%d,%d,%d,%llu,%llu,%lf", &p[0], &p[1], &p[2], &p[3],
                            &got, &want, &margin), 7, "%s", line + 1);
        cr_assert_eq(got, want);
        cr_assert(margin >= 0 && margin <= 0.3, "%g", margin);
        rows++;
    }
    cr_assert(rows > 0 && screened > 0 && screened <= 3000 - rows, "%d rows, %g screened",
              rows, screened);
    free(text);
    return rows;
}

Test(screen, misses_and_points_on_the_command_line, .init = tu_scratch_init,
     .fini = tu_scratch_fini, .timeout = 120)
{
    char csv[4400], again[4400];
    snprintf(csv, sizeof csv, "%s", tu_scratch("near.csv"));
    snprintf(again, sizeof again, "%s", tu_scratch("again.csv"));
    int rows = misses_csv(csv);
    tu_run r = tu_optinc((const char *[]){"onn", "verify", "netlists/onn4x8.pnl.sp", "--points",
                                          csv, "--misses", again, "--near", "0.3", "--json",
                                          NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_float_eq(tu_json_number(r.out, "inputs_checked"), rows, 0, "%s", r.out);
    cr_assert(strstr(r.out, "\"exhaustive\": false"), "%s", r.out);
    tu_run_free(&r);
    char *text = tu_read_file(csv, NULL), *text2 = tu_read_file(again, NULL);
    cr_assert(text && text2 && !strcmp(strchr(strchr(text, '\n') + 1, '\n'),
                                        strchr(strchr(text2, '\n') + 1, '\n')),
              "the same rows after the header:\n%s\n%s", text, text2);
    free(text2);
    free(text);
    r = tu_optinc((const char *[]){"onn", "verify", "netlists/onn4x8.pnl.sp", "--points", csv,
                                   "--sigma", "0.01", "--chips", "2", NULL});
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "--points is for one chip"), "%s", r.err);
    tu_run_free(&r);
}

/* The trainer reads a --misses file back (an epoch of 1,000 random points
 * and the focus points, resumed) and names it in the spec. */
Test(screen, focus_file_on_the_command_line, .init = tu_scratch_init, .fini = tu_scratch_fini,
     .timeout = 120)
{
    char csv[4400], out[4400];
    snprintf(csv, sizeof csv, "%s", tu_scratch("near.csv"));
    snprintf(out, sizeof out, "%s", tu_scratch("focus.yaml"));
    misses_csv(csv);
    tu_run r = tu_optinc((const char *[]){"onn", "train", "--resume", "specs/onn4x8.yaml",
                                          "--focus", csv, "--epochs", "1", "--sample", "1000",
                                          "--restarts", "0", "--quiet", "-o", out, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tu_run_free(&r);
    char *text = tu_read_file(out, NULL);
    cr_assert(text && strstr(text, ", focus ") && strstr(text, "near.csv"),
              "the spec names its focus file: %s", text);
    free(text);
}

/* What --focus refuses, at the line and column of the entry, before any
 * training. */
Test(screen, focus_file_refused, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    char csv[4400], out[4400];
    snprintf(csv, sizeof csv, "%s", tu_scratch("near.csv"));
    snprintf(out, sizeof out, "%s", tu_scratch("focus.yaml"));
    static const struct { const char *body, *says; } bad[] = {
        {"# p0, p1, p2, p3\n1,2,3,4\n# again\n13,0,0,0\n", "near.csv:4:1: error: p0 = 13 is not"},
        {"1,2, 3.5,4\n", "near.csv:1:6: error: p2 = 3.5 is not a P output"},
        {"\n1,2,3\n", "near.csv:2:1: error: a file of points has a row of at least 4 real"},
        {"1,2,x,4\n", "near.csv:1:5"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tu_write_file(csv, bad[i].body);
        tu_run r = tu_optinc((const char *[]){"onn", "train", "--resume", "specs/onn4x8.yaml",
                                              "--focus", csv, "--epochs", "1", "-o", out, NULL});
        cr_assert_eq(r.status, 2, "%s", bad[i].body);
        cr_assert(strstr(r.err, bad[i].says), "%s -> %s", bad[i].body, r.err);
        cr_assert_eq(access(out, F_OK), -1, "nothing written");
        tu_run_free(&r);
    }
    tu_run r = tu_optinc((const char *[]){"onn", "verify", "netlists/onn4x8.pnl.sp", "--misses",
                                          csv, "--sigma", "0.01", "--chips", "2", NULL});
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "--misses is for one chip"), "%s", r.err);
    tu_run_free(&r);
}

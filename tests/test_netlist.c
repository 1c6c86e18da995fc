/*
 * test_netlist.c - the PNL netlist writer and reader.
 *
 * For every spec in specs/ and for random specs (fixed seeds; random shapes,
 * mesh kinds, attenuator positions, quantization, gains, layer counts):
 * spec -> netlist -> read -> netlist is byte-identical, the matrix rebuilt
 * from the read netlist (gain . T) matches the spec's matrix within
 * 1e-12 . gain when nothing is quantized, and the --flatten / --expand-mzi
 * forms read back to the same transfer matrices.  The checked-in golden
 * netlists must equal what the writer produces now.  A hand-written netlist
 * is checked against the MZI convention computed here from its definition,
 * and read again from memory through a resolver of the test's own.  The
 * `*! onn` line round-trips, and gives an ONN's meta without its spec.  The
 * card table keeps the dialect's rules, and the header's device ranges are
 * the spec loader's, bound for bound.  Every bad-netlist fixture in
 * tests/bad/netlist/ must fail with the FILE:LINE:COL and message fragment
 * of its .expect file, and the reader's resource limits must hold.  The
 * number text the netlist is written and read with (compiler/core/numtext.h)
 * gives printf's %.17g bytes and strtod's doubles on a million random
 * doubles and on the cases where rounding is hard, and refuses what is
 * outside the number grammar.
 */
#include <criterion/criterion.h>
#include <complex.h>
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "compiler/core/numtext.h"
#include "optinc/fileio.h"
#include "optinc/netlist.h"
#include "optinc/onn.h"
#include "optinc/spec.h"
#include "testutil.h"

/* ------------------------------------------------------------------ helpers */

static optinc_circuit *load(const char *path)
{
    optinc_error err = {0};
    optinc_circuit *c = NULL;
    char buf[2300];
    optinc_status st = optinc_circuit_load(path, NULL, &c, &err);
    cr_assert_eq(st, OPTINC_OK, "%s: %s", path, optinc_error_format(&err, buf, sizeof buf));
    return c;
}

static char *write_mem(const optinc_circuit *c, const optinc_netlist_options *o, size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    optinc_error err = {0};
    char buf[2300];
    optinc_status st = optinc_netlist_write_stream(c, f, o, &err);
    fclose(f);
    cr_assert_eq(st, OPTINC_OK, "write: %s", optinc_error_format(&err, buf, sizeof buf));
    if (len)
        *len = n;
    return text;
}

/* Writes c with options o to dir/name, reads it back. */
static optinc_circuit *through_file(const optinc_circuit *c, const optinc_netlist_options *o,
                                    const char *dir, const char *name, char **text)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    optinc_error err = {0};
    char buf[2300];
    cr_assert_eq(optinc_netlist_write(c, path, o, &err), OPTINC_OK, "%s",
                 optinc_error_format(&err, buf, sizeof buf));
    if (text)
        *text = tu_read_file(path, NULL);
    return load(path);
}

/* The first line where two texts differ, for failure messages. */
static int first_diff_line(const char *a, const char *b)
{
    int line = 1;
    for (; *a && *a == *b; a++, b++)
        line += *a == '\n';
    return line;
}

static void assert_same_text(const char *a, const char *b, const char *what)
{
    cr_assert(a && b, "%s: missing text", what);
    cr_assert(!strcmp(a, b), "%s: texts differ from line %d", what, first_diff_line(a, b));
}

/* max over layers of |g_a T_a - g_b T_b| / g_a */
static double transfer_diff(const optinc_circuit *a, const optinc_circuit *b)
{
    cr_assert_eq(a->n_layers, b->n_layers);
    double worst = 0;
    for (int i = 0; i < a->n_layers; i++) {
        const optinc_layer *La = &a->layers[i], *Lb = &b->layers[i];
        optinc_cmat *Ta = optinc_layer_transfer(La), *Tb = optinc_layer_transfer(Lb);
        cr_assert(Ta && Tb);
        cr_assert_eq(Ta->rows, Tb->rows);
        cr_assert_eq(Ta->cols, Tb->cols);
        for (int k = 0; k < Ta->rows * Ta->cols; k++) {
            double d = cabs(La->gain * Ta->a[k] - Lb->gain * Tb->a[k]) / La->gain;
            cr_assert(isfinite(d));
            worst = d > worst ? d : worst;
        }
        optinc_cmat_free(Ta);
        optinc_cmat_free(Tb);
    }
    return worst;
}

static int quantized(const optinc_layer *L)
{
    return L->components.phase_shifter.bits > 0 || L->components.attenuator.bits > 0;
}

/* ONN records are built in zeroed memory, so equal records are equal bytes. */
static void assert_same_onn(const optinc_circuit_onn *a, const optinc_circuit_onn *b)
{
    cr_assert(!memcmp(a, b, sizeof *a), "the ONN records differ");
}

/* Everything the reader rebuilds must equal the compiled circuit. */
static void assert_same_circuit(const optinc_circuit *c, const optinc_circuit *r)
{
    cr_assert_str_eq(r->name, c->name);
    cr_assert_str_eq(r->spec_path, c->spec_path);
    cr_assert(!memcmp(r->spec_sha256, c->spec_sha256, 32));
    cr_assert_eq(r->seed, c->seed);
    cr_assert_eq(r->wavelength_um, c->wavelength_um);
    assert_same_onn(&c->onn, &r->onn);
    cr_assert_eq(r->n_layers, c->n_layers);
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *A = &c->layers[i], *B = &r->layers[i];
        cr_assert_str_eq(B->name, A->name);
        cr_assert_eq(B->rows, A->rows);
        cr_assert_eq(B->cols, A->cols);
        cr_assert_eq(B->gain, A->gain);
        cr_assert_eq(B->mesh_kind, A->mesh_kind);
        cr_assert_eq(B->attenuators, A->attenuators);
        cr_assert_eq(B->activation, A->activation);
        cr_assert(!memcmp(&B->components, &A->components, sizeof A->components),
                  "layer %s: components differ", A->name);
        cr_assert_null(B->target);
        cr_assert_eq(B->reconstruction_error, -1);
        cr_assert_eq(B->seg_rows, A->seg_rows);
        cr_assert_eq(B->seg_cols, A->seg_cols);
        cr_assert_eq(B->pass_through, A->pass_through);
        cr_assert_eq(!B->input_scale, !A->input_scale);
        if (A->input_scale)
            cr_assert(!memcmp(B->input_scale, A->input_scale,
                              sizeof *A->input_scale * (size_t)(A->cols - A->pass_through)),
                      "layer %s: input scales differ", A->name);
        cr_assert_eq(B->n_stages, A->n_stages);
        for (int s = 0; s < A->n_stages; s++) {
            const optinc_stage *x = &A->stage[s], *y = &B->stage[s];
            cr_assert_eq(y->kind, x->kind);
            cr_assert_eq(y->tag, x->tag);
            cr_assert_eq(y->modes_in, x->modes_in);
            cr_assert_eq(y->modes_out, x->modes_out);
            if (x->kind == OPTINC_STAGE_SPLIT || x->kind == OPTINC_STAGE_COMBINE) {
                cr_assert_eq(y->fan, x->fan);
                cr_assert_eq(y->block, x->block);
                continue;
            }
            if (x->kind == OPTINC_STAGE_ATT) {
                cr_assert_eq(y->n_att, x->n_att);
                cr_assert(!memcmp(y->att, x->att, sizeof *x->att * (size_t)x->n_att),
                          "layer %s: attenuators differ", A->name);
                continue;
            }
            const optinc_mesh *m = x->mesh, *n = y->mesh;
            cr_assert_eq(n->modes, m->modes);
            cr_assert_eq(n->n_mzi, m->n_mzi);
            cr_assert_eq(n->n_columns, m->n_columns);
            cr_assert(!memcmp(n->mzi, m->mzi, sizeof *m->mzi * (size_t)m->n_mzi),
                      "layer %s stage %c: MZIs differ", A->name, x->tag);
            cr_assert(!memcmp(n->screen, m->screen, sizeof *m->screen * (size_t)m->modes),
                      "layer %s stage %c: screens differ", A->name, x->tag);
        }
    }
}

/* The whole acceptance check for one compiled circuit. */
static void check_round_trips(const optinc_circuit *c, const char *dir)
{
    optinc_netlist_options plain = {.reproducible = 1};
    char *text = NULL;
    optinc_circuit *r = through_file(c, &plain, dir, "plain.pnl.sp", &text);
    char *again = write_mem(r, &plain, NULL);
    assert_same_text(text, again, c->name);
    assert_same_circuit(c, r);
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        if (quantized(L) || L->approximation_error > 1e-13 || L->n_warnings_capped)
            continue;       /* programmed values, a form W only approximates, or capped */
        optinc_cmat *T = optinc_layer_transfer(&r->layers[i]);
        double worst = 0;
        for (int k = 0; k < T->rows * T->cols; k++) {
            double d = cabs(r->layers[i].gain * T->a[k] - L->target->a[k]);
            worst = d > worst ? d : worst;
        }
        optinc_cmat_free(T);
        cr_assert_leq(worst, 1e-12 * L->gain, "%s layer %s: max|W - s.T| = %g (s = %g)",
                      c->name, L->name, worst, L->gain);
    }
    free(text);
    free(again);
    optinc_circuit_free(r);

    static const optinc_netlist_options variants[] = {
        {.flatten = 1, .reproducible = 1},
        {.expand_mzi = 1, .reproducible = 1},
        {.flatten = 1, .expand_mzi = 1, .reproducible = 1},
    };
    for (size_t v = 0; v < 3; v++) {
        const optinc_netlist_options *o = &variants[v];
        r = through_file(c, o, dir, "variant.pnl.sp", &text);
        double d = transfer_diff(c, r);
        cr_assert_leq(d, 1e-12, "%s flatten=%d expand=%d: transfer differs by %g", c->name,
                      o->flatten, o->expand_mzi, d);
        /* Every form keeps codes and targets, so every one round-trips exactly. */
        assert_same_circuit(c, r);
        again = write_mem(r, o, NULL);
        assert_same_text(text, again, c->name);
        free(again);
        free(text);
        optinc_circuit_free(r);
    }
}

/* ------------------------------------------------------------------ specs/ */

Test(netlist, shipped_specs_round_trip)
{
    glob_t g;
    cr_assert_eq(glob("specs/*.yaml", 0, NULL, &g), 0, "no specs/*.yaml (run from the root)");
    cr_assert_geq(g.gl_pathc, 5);
    char *dir = tu_tempdir();
    int with_layers = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        optinc_circuit *c = load(g.gl_pathv[i]);
        if (c->n_layers) {      /* a training-only spec has no circuit */
            check_round_trips(c, dir);
            with_layers++;
        }
        optinc_circuit_free(c);
    }
    cr_assert_geq(with_layers, 5);
    tu_rmtree(dir);
    free(dir);
    globfree(&g);
}

/* How far a real value of a golden netlist may move between BLAS libraries.
 * The netlists come from SVDs, and OpenBLAS's kernels and the reference
 * BLAS/LAPACK round differently: against the golden files (written on the
 * Haswell kernel, which Zen's reproduces bit for bit) the SkylakeX and
 * Sandybridge kernels and the reference BLAS moved values by at most 3.8e-12
 * (a phase of the 128-mode layers of onn4x8; 2.8e-14 for 16 modes or fewer),
 * as singular vectors move by eps . |W| / (the gap to the next singular
 * value), and no code.  1e-9, relative to max(1, |value|), leaves 260 times
 * that, and is 2.5e7 times below the step of an 8-bit phase driver.  The
 * 16-bit unit's 192-mode layers are closer to degenerate: its netlist,
 * written on the Cooperlake kernel, moved by at most 6.4e-7 with the
 * reference BLAS (a theta_target of L3), and no code; 1e-5 leaves 15 times
 * that and is 2,400 times below an 8-bit phase step. */
static const struct golden_tol {
    const char *netlist;
    double tol;
} GOLDEN_TOLS[] = {{"netlists/onn4x16.pnl.sp", 1e-5}, {NULL, 1e-9}};

static double golden_tol(const char *netlist)
{
    const struct golden_tol *t = GOLDEN_TOLS;
    while (t->netlist && strcmp(t->netlist, netlist))
        t++;
    return t->tol;
}

/* A decimal integer: a code, a count, a size or a seed. */
static int is_integer(const char *s, size_t n)
{
    size_t i = n && (*s == '-' || *s == '+');
    if (i == n)
        return 0;
    for (; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* The real number that is all of s[0..n), or NAN. */
static double real_of(const char *s, size_t n)
{
    char buf[64], *end;
    if (n == 0 || n >= sizeof buf)
        return NAN;
    memcpy(buf, s, n);
    buf[n] = '\0';
    double v = strtod(buf, &end);
    return *end ? NAN : v;
}

/* Compares netlist text got with the golden want, token by token: the same
 * lines, cards, names, nets, keys, integers (codes, counts) and strings,
 * and every other number within tol.  Returns 0, or the first line that
 * differs with the two tokens in msg. */
static int golden_cmp(const char *want, const char *got, double tol, char *msg, size_t cap)
{
    int line = 1;
    for (;;) {
        while (*want == ' ' && *got == ' ')
            want++, got++;
        if (!*want && !*got)
            return 0;
        size_t a = strcspn(want, " \n"), b = strcspn(got, " \n");
        const char *ea = memchr(want, '=', a), *eb = memchr(got, '=', b);
        size_t ka = ea ? (size_t)(ea - want) + 1 : 0, kb = eb ? (size_t)(eb - got) + 1 : 0;
        int same = a == b && !memcmp(want, got, a);
        if (!same && ka && ka == kb && !memcmp(want, got, ka)
            && !(is_integer(want + ka, a - ka) && is_integer(got + kb, b - kb))) {
            double x = real_of(want + ka, a - ka), y = real_of(got + kb, b - kb);
            same = fabs(x - y) <= tol * fmax(1, fmax(fabs(x), fabs(y)));
        }
        if (!same || want[a] != got[b]) {
            snprintf(msg, cap, "line %d: '%.*s' in the golden file, '%.*s' now", line,
                     (int)(a < 200 ? a : 200), want, (int)(b < 200 ? b : 200), got);
            return line;
        }
        line += want[a] == '\n';
        want += a + (want[a] != 0);
        got += b + (got[b] != 0);
    }
}

Test(netlist, golden_cmp_tells_what_may_differ)
{
    char msg[512];
    const char *g = "MZ_a in0 in1 o0 o1 mzi theta_rad=0.5868051922523953 theta_code=24\n";
    cr_assert_eq(golden_cmp(g, g, 1e-9, msg, sizeof msg), 0);
    cr_assert_eq(golden_cmp(g, "MZ_a in0 in1 o0 o1 mzi theta_rad=0.58680519225239536 "
                               "theta_code=24\n", 1e-9, msg, sizeof msg), 0, "an ulp: %s", msg);
    cr_assert_eq(golden_cmp(g, "MZ_a in0 in1 o0 o1 mzi theta_rad=0.5868051932523953 "
                               "theta_code=24\n", 1e-9, msg, sizeof msg), 1, "1e-9 rad apart");
    cr_assert_eq(golden_cmp(g, "MZ_a in0 in1 o0 o1 mzi theta_rad=0.5868051922523953 "
                               "theta_code=25\n", 1e-9, msg, sizeof msg), 1, "a code");
    cr_assert(strstr(msg, "theta_code=24") && strstr(msg, "theta_code=25"), "%s", msg);
    cr_assert_eq(golden_cmp(g, "MZ_b in0 in1 o0 o1 mzi theta_rad=0.5868051922523953 "
                               "theta_code=24\n", 1e-9, msg, sizeof msg), 1, "a name");
    cr_assert_eq(golden_cmp("x\nAT a b att att_dB=2 t_target=0.5\n",
                            "x\nAT a b att att_dB=2\n", 1e-9, msg, sizeof msg), 2, "a missing key");
    cr_assert_eq(golden_cmp("*! x = gain=4.8062887826448426\n",
                            "*! x = gain=4.8062887826448462\n", 1e-9, msg, sizeof msg), 0,
                 "relative to the value");
    cr_assert_eq(golden_tol("netlists/onn4x8.pnl.sp"), 1e-9);
    cr_assert_eq(golden_tol("netlists/onn4x16.pnl.sp"), 1e-5, "the 16-bit unit's own");
}

/* A checked-in netlist that differs from what the compiler writes now means
 * either a regression or a deliberate change that needs `make netlists`:
 * the same cards, names, nets and codes, and real values within golden_tol()
 * (the golden files were written with one BLAS; this may run on another).
 * Specs without layers (training-only) have no netlist. */
Test(netlist, golden_netlists_are_current)
{
    optinc_linalg_deterministic();      /* as the optinc program that wrote them */
    glob_t g;
    cr_assert_eq(glob("specs/*.yaml", 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        optinc_circuit *c = load(g.gl_pathv[i]);
        if (!c->n_layers) {
            optinc_circuit_free(c);
            continue;
        }
        char golden[4200], name[1024];
        snprintf(name, sizeof name, "%s", strrchr(g.gl_pathv[i], '/') + 1);
        name[strlen(name) - 5] = '\0';
        snprintf(golden, sizeof golden, "netlists/%s.pnl.sp", name);
        size_t glen = 0, len = 0;
        char *want = tu_read_file(golden, &glen);
        cr_assert_not_null(want, "%s is missing: run 'make netlists'", golden);
        optinc_netlist_options o = {.reproducible = 1};
        char *got = write_mem(c, &o, &len), msg[512];
        cr_assert(strlen(want) == glen && strlen(got) == len);
        cr_assert_eq(golden_cmp(want, got, golden_tol(golden), msg, sizeof msg), 0,
                     "%s differs from what the compiler writes now, %s; if the change is "
                     "deliberate, run 'make netlists' and commit the result", golden, msg);
        free(want);
        free(got);
        optinc_circuit_free(c);
    }
    globfree(&g);
}

/* ------------------------------------------------------------------ random specs */

static void put_matrix(FILE *f, const optinc_cmat *W, int is_complex)
{
    fprintf(f, "    data:\n");
    for (int r = 0; r < W->rows; r++) {
        fprintf(f, "      - [");
        for (int c = 0; c < W->cols; c++) {
            double complex z = OPTINC_AT(W, r, c);
            if (is_complex)
                fprintf(f, "%s[%.17g, %.17g]", c ? ", " : "", creal(z), cimag(z));
            else
                fprintf(f, "%s%.17g", c ? ", " : "", creal(z));
        }
        fprintf(f, "]\n");
    }
}

/* A matrix of the form the attenuator position realizes exactly. */
static optinc_cmat *random_matrix(int rows, int cols, optinc_att_position att, int *is_complex,
                                  optinc_rng *rng)
{
    if (att == OPTINC_ATT_MIDDLE) {
        *is_complex = (int)optinc_rng_below(rng, 2);
        return optinc_cmat_gaussian(rows, cols, *is_complex, rng);
    }
    *is_complex = 1;
    optinc_cmat *U = optinc_cmat_haar(rows, rng);
    double sigma[16];
    for (int k = 0; k < rows; k++)
        sigma[k] = att == OPTINC_ATT_NONE ? 1.75 : 0.3 + 2 * optinc_rng_uniform(rng);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            OPTINC_AT(U, r, c) *= sigma[att == OPTINC_ATT_INPUT ? c : r];
    return U;
}

static void write_random_spec(const char *path, uint64_t seed)
{
    static const char *const att_words[] = {"middle", "none", "input", "output"};
    optinc_rng rng;
    optinc_rng_seed(&rng, seed);
    int nl = 1 + (int)optinc_rng_below(&rng, 3);
    int dims[4];
    for (int i = 0; i <= nl; i++)       /* half the layers square */
        dims[i] = i && optinc_rng_below(&rng, 2) ? dims[i - 1] : 1 + (int)optinc_rng_below(&rng, 9);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "schema_version: 1\nname: rnd%llu\nsettings:\n  seed: %llu\n"
            "  wavelength_um: %.17g\nmatrices:\n", (unsigned long long)seed,
            (unsigned long long)(seed * 7919), 1.3 + 0.01 * (double)optinc_rng_below(&rng, 40));
    optinc_att_position att[3];
    for (int i = 0; i < nl; i++) {
        int rows = dims[i + 1], cols = dims[i], cx;
        att[i] = rows == cols ? (optinc_att_position)optinc_rng_below(&rng, 4) : OPTINC_ATT_MIDDLE;
        optinc_cmat *W = random_matrix(rows, cols, att[i], &cx, &rng);
        fprintf(f, "  W%d:\n    shape: [%d, %d]\n    dtype: %s\n", i, rows, cols,
                cx ? "complex" : "real");
        put_matrix(f, W, cx);
        optinc_cmat_free(W);
    }
    fprintf(f, "layers:\n");
    for (int i = 0; i < nl; i++) {
        fprintf(f, "  - name: L%d_%llu\n    matrix: W%d\n    mesh: %s\n    attenuators: %s\n"
                "    activation: %s\n", i, (unsigned long long)seed, i,
                optinc_rng_below(&rng, 2) ? "reck" : "clements", att_words[att[i]],
                optinc_activation_names[optinc_rng_below(&rng, 3)]);
        if (att[i] == OPTINC_ATT_MIDDLE && optinc_rng_below(&rng, 4) == 0)
            fprintf(f, "    gain: 12.5\n");
        if (optinc_rng_below(&rng, 3) == 0)
            fprintf(f, "    components:\n      phase_shifter: {bits: %d, range_rad: [-1.5, 5.0]}\n"
                    "      attenuator: {bits: %d, max_attenuation_dB: 35}\n"
                    "      mzi: {insertion_loss_dB: 0.125}\n",
                    3 + (int)optinc_rng_below(&rng, 8), (int)optinc_rng_below(&rng, 12));
    }
    fclose(f);
}

Test(netlist, random_specs_round_trip, .timeout = 60)
{
    char *dir = tu_tempdir();
    for (uint64_t seed = 1; seed <= 60; seed++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/rnd%llu.yaml", dir, (unsigned long long)seed);
        write_random_spec(path, seed);
        optinc_circuit *c = load(path);
        check_round_trips(c, dir);
        optinc_circuit_free(c);
    }
    tu_rmtree(dir);
    free(dir);
}

/* Large enough that MZIs fed only by unlit modes exist (pulled by the
 * reader) in both mesh kinds, and in several layers of one flat file. */
Test(netlist, unlit_modes_in_wide_layers)
{
    char *dir = tu_tempdir();
    static const char *const kinds[] = {"clements", "reck"};
    for (int k = 0; k < 2; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/wide.yaml", dir);
        FILE *f = fopen(path, "w");
        fprintf(f, "schema_version: 1\nname: wide\nsettings: {mesh: %s}\nmatrices:\n"
                "  A: {shape: [17, 3], dtype: real, generate: {kind: gaussian, seed: 5}}\n"
                "  B: {shape: [23, 17], dtype: complex, generate: {kind: gaussian, seed: 6}}\n"
                "  C: {shape: [2, 23], dtype: real, generate: {kind: gaussian, seed: 7}}\n"
                "layers:\n  - {name: a, matrix: A}\n  - {name: b, matrix: B}\n"
                "  - {name: c, matrix: C}\n", kinds[k]);
        fclose(f);
        optinc_circuit *c = load(path);
        check_round_trips(c, dir);
        optinc_circuit_free(c);
    }
    tu_rmtree(dir);
    free(dir);
}

/* ------------------------------------------------------------------ hand-written */

/* The MZI convention of optinc-netlist(5), computed from its definition. */
static void mzi_by_definition(double theta, double phi, double complex m[4])
{
    const double complex h = 1 / sqrt(2.0);
    double complex B[4] = {h, I * h, I * h, h};
    double complex P[4] = {cexp(I * phi), 0, 0, 1}, T[4] = {cexp(I * theta), 0, 0, 1};
    double complex x[4], y[4];
    /* m = B . T . B . P */
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++) {
            x[2 * r + c] = B[2 * r] * P[c] + B[2 * r + 1] * P[2 + c];
        }
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++)
            y[2 * r + c] = T[2 * r] * x[c] + T[2 * r + 1] * x[2 + c];
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++)
            m[2 * r + c] = B[2 * r] * y[c] + B[2 * r + 1] * y[2 + c];
}

static const char hand_cells[] =
    "* cells of the hand-written test netlist\n"
    ".SUBCKT layer_L1 in0 in1 out0 out1 th=0.1\n"
    "* a comment inside a cell\n"
    "MZ_a in0 in1 a0 a1 mzi theta_rad=th\n"
    "+ phi_rad=ph\n"
    "PS_a a0 out0 ps phase_rad=0.5\r\n"
    "PS_b a1 out1 ps phase_rad=-0.75\n"
    ".ENDS\n";

static const char hand_main[] =
    "* a hand-written netlist: .param, +, .include, comments, CRLF, upper case\n"
    "*! layer.L1 = rows=2 cols=2 gain=2.5 attenuators=none\n"
    ".param ph=0.25\n"
    ".include \"sub/cells.inc\"\n"
    "\n"
    ".subckt top in0 in1 out0 out1\n"
    "X1 in0 in1 out0 out1 layer_L1 th=1.5\n"
    ".ends top\n"
    "top in0 in1 out0 out1 top\n"
    ".end\n";

/* The hand-written netlist as files in a new temporary folder (returned);
 * path receives the main file's. */
static char *hand_files(char path[4200])
{
    char *dir = tu_tempdir();
    snprintf(path, 4200, "%s/sub", dir);
    mkdir(path, 0777);
    snprintf(path, 4200, "%s/sub/cells.inc", dir);
    cr_assert_eq(tu_write_file(path, hand_cells), 0);
    snprintf(path, 4200, "%s/hand.sp", dir);
    cr_assert_eq(tu_write_file(path, hand_main), 0);
    return dir;
}

Test(netlist, hand_written_netlist_matches_definition)
{
    char path[4200], *dir = hand_files(path);
    optinc_circuit *c = load(path);
    cr_assert_str_eq(c->name, "top");
    cr_assert_eq(c->n_layers, 1);
    const optinc_layer *L = &c->layers[0];
    cr_assert_eq(L->gain, 2.5);
    cr_assert_eq(L->components.attenuator.max_attenuation_dB, 60, "defaults apply");
    double complex m[4], want[4];
    mzi_by_definition(1.5, 0.25, m);
    double complex screen[2] = {cexp(0.5 * I), cexp(-0.75 * I)};
    for (int k = 0; k < 4; k++)
        want[k] = 2.5 * screen[k / 2] * m[k];
    optinc_cmat *T = optinc_layer_transfer(L);
    for (int k = 0; k < 4; k++)
        cr_assert_leq(cabs(L->gain * T->a[k] - want[k]), 1e-15, "entry %d", k);
    optinc_cmat_free(T);
    /* And our own rewrite of it reads back the same. */
    optinc_netlist_options o = {.reproducible = 1};
    optinc_circuit *r = through_file(c, &o, dir, "again.sp", NULL);
    cr_assert_leq(transfer_diff(c, r), 0);
    optinc_circuit_free(r);
    optinc_circuit_free(c);
    tu_rmtree(dir);
    free(dir);
}

/* Files served from memory by name, as a fuzzer or an embedding program
 * would: "sub/cells.inc" is hand_cells, "loop.inc" includes itself under
 * another spelling of its name. */
static optinc_status memory_resolver(void *ctx, const char *from, const char *rel,
                                     size_t max_bytes, const char *what, optinc_blob *out,
                                     optinc_error *err)
{
    int *calls = ctx;
    const char *text = !strcmp(rel, "sub/cells.inc") ? hand_cells
                       : strstr(rel, "loop.inc") ? ".include \"./sub/../loop.inc\"\n" : NULL;
    char name[1024];
    (*calls)++;
    memset(out, 0, sizeof *out);
    snprintf(name, sizeof name, "mem/%s", rel);
    if (!text)
        return optinc_fail(err, OPTINC_EINPUT, name, 0, 0, "cannot open %s '%s': not in memory",
                           what, name);
    cr_assert_geq(max_bytes, strlen(text));
    cr_assert(strstr("hand.sp m.sp l.sp", from) || !strncmp(from, "mem/", 4),
              "from is the including input's name, not %s", from);
    out->len = strlen(text);
    out->data = strdup(text);
    snprintf(out->name, sizeof out->name, "%s", name);
    return OPTINC_OK;
}

Test(netlist, parse_from_memory_with_a_resolver)
{
    int calls = 0;
    optinc_read_opts opts = {NULL, memory_resolver, &calls, NULL};
    optinc_input in = {"hand.sp", hand_main, strlen(hand_main)};
    optinc_circuit *c = NULL;
    optinc_error err = {0};
    cr_assert_eq(optinc_netlist_parse(&in, &opts, &c, &err), OPTINC_OK, "%s", err.message);
    cr_assert_eq(calls, 1);
    char path[4200], *dir = hand_files(path);
    optinc_circuit *f = load(path);
    cr_assert_leq(transfer_diff(c, f), 0, "memory and file give the same circuit");
    optinc_circuit_free(f);
    optinc_circuit_free(c);
    tu_rmtree(dir);
    free(dir);

    /* A missing include is reported at the .include, with the resolver's reason. */
    const char *missing = "* x\n.include \"nowhere.inc\"\n.end\n";
    in = (optinc_input){"m.sp", missing, strlen(missing)};
    cr_assert_eq(optinc_netlist_parse(&in, &opts, &c, &err), OPTINC_EINPUT);
    cr_assert_null(c);
    cr_assert_str_eq(err.file, "m.sp");
    cr_assert_eq(err.line, 2);
    cr_assert_eq(err.column, 10);
    cr_assert(strstr(err.message, "not in memory"), "%s", err.message);

    /* A cycle through two spellings of one name is found by the name. */
    const char *loop = ".include \"loop.inc\"\n.end\n";
    in = (optinc_input){"l.sp", loop, strlen(loop)};
    calls = 0;
    cr_assert_eq(optinc_netlist_parse(&in, &opts, &c, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "include cycle"), "%s", err.message);
    cr_assert_eq(calls, 2, "stopped at the first repeat, not at the depth limit");
}

/* hand_main with its .include naming inc, written to the scratch file name;
 * returns the path. */
static const char *hand_main_including(const char *name, const char *inc)
{
    const char *at = strstr(hand_main, "sub/cells.inc");
    size_t n = strlen(hand_main) + strlen(inc) + 1;
    char *text = malloc(n);
    cr_assert_not_null(text);
    snprintf(text, n, "%.*s%s%s", (int)(at - hand_main), hand_main, inc,
             at + strlen("sub/cells.inc"));
    cr_assert_eq(tu_write_file(tu_scratch(name), text), 0);
    free(text);
    return tu_scratch_last();
}

/* Status of reading path with include_path allowed besides its folder; the
 * error in *err. */
static optinc_status read_allowing(const char *path, const char *include_path, optinc_error *err)
{
    optinc_read_opts opts = {NULL, NULL, NULL, include_path};
    optinc_circuit *c = NULL;
    optinc_status st = optinc_netlist_read(path, &opts, &c, err);
    optinc_circuit_free(c);
    return st;
}

/* By default a netlist includes only files of its own folder, ".." and
 * links resolved; OPTINC_INCLUDE_PATH (include_path) allows more folders.
 * Includes inside the folder work as before. */
Test(netlist, includes_keep_to_the_folder_of_the_netlist, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    mkdir(tu_scratch("net"), 0777);
    mkdir(tu_scratch("net/sub"), 0777);
    mkdir(tu_scratch("outside"), 0777);
    cr_assert_eq(tu_write_file(tu_scratch("net/sub/cells.inc"), hand_cells), 0);
    cr_assert_eq(tu_write_file(tu_scratch("outside/cells.inc"), hand_cells), 0);
    cr_assert_eq(symlink("../outside/cells.inc", tu_scratch("net/link.inc")), 0);
    char outside[4400], abs_inside[4400];
    snprintf(outside, sizeof outside, "%s", tu_scratch("outside"));
    snprintf(abs_inside, sizeof abs_inside, "%s", tu_scratch("net/sub/cells.inc"));
    optinc_error err = {0};
    const char *const inside[] = {"sub/cells.inc", "./sub/../sub/cells.inc", abs_inside};
    for (size_t i = 0; i < sizeof inside / sizeof *inside; i++)
        cr_expect_eq(read_allowing(hand_main_including("net/top.sp", inside[i]), NULL, &err),
                     OPTINC_OK, "%s: %s", inside[i], err.message);
    const char *const beyond[] = {"../outside/cells.inc", "link.inc"};
    for (size_t i = 0; i < sizeof beyond / sizeof *beyond; i++) {
        const char *path = hand_main_including("net/top.sp", beyond[i]);
        cr_expect_eq(read_allowing(path, NULL, &err), OPTINC_EINPUT, "%s", beyond[i]);
        cr_expect(err.line == 4 && err.column == 10 && strstr(err.file, "net/top.sp"),
                  "%s: at %s:%d:%d", beyond[i], err.file, err.line, err.column);
        cr_expect(strstr(err.message, "lies outside '") && strstr(err.message, "OPTINC_INCLUDE_PATH"),
                  "%s: %s", beyond[i], err.message);
        cr_expect_eq(read_allowing(path, outside, &err), OPTINC_OK, "%s: %s", beyond[i],
                     err.message);
    }
    /* the same through the program, which takes the folders from OPTINC_INCLUDE_PATH */
    const char *top = strdup(hand_main_including("net/top.sp", "../outside/cells.inc"));
    char out[4400];
    snprintf(out, sizeof out, "%s", tu_scratch("net/out.sp"));
    unsetenv("OPTINC_INCLUDE_PATH");
    tu_run r = tu_optinc((const char *[]){"netlist", top, "-o", out, NULL});
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "net/top.sp:4:10: error: included file '") &&
              strstr(r.err, "OPTINC_INCLUDE_PATH"), "%s", r.err);
    cr_expect(access(out, F_OK) != 0, "nothing written");
    tu_run_free(&r);
    setenv("OPTINC_INCLUDE_PATH", outside, 1);
    r = tu_optinc((const char *[]){"netlist", top, "-o", out, NULL});
    unsetenv("OPTINC_INCLUDE_PATH");
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    tu_run_free(&r);
    free((char *)top);
}

/* An error in an included file that is no netlist names the file and the
 * line but quotes none of its bytes; in an included netlist, the tokens are
 * quoted as in the main file. */
Test(netlist, foreign_included_files_are_not_quoted, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    mkdir(tu_scratch("net"), 0777);
    mkdir(tu_scratch("outside"), 0777);
    cr_assert_eq(tu_write_file(tu_scratch("outside/passwd"), "root:x:0:0:Secret Name:/root:"
                               "/bin/sh\ndaemon:x:1:1::/:/bin/false\n"), 0);
    cr_assert_eq(tu_write_file(tu_scratch("net/hostname"), "secrethost\n"), 0);
    char *typo = strdup(hand_cells), *at = strstr(typo, "theta_rad=th");
    cr_assert_not_null(at);
    memcpy(at, "thetX", 5);
    cr_assert_eq(tu_write_file(tu_scratch("net/typo.inc"), typo), 0);
    free(typo);
    char outside[4400], out[4400];
    snprintf(outside, sizeof outside, "%s", tu_scratch("outside"));
    snprintf(out, sizeof out, "%s", tu_scratch("net/out.sp"));
    optinc_error err = {0};
    struct {
        const char *inc, *where;
    } foreign[] = {{"../outside/passwd", "passwd:1:1"}, {"hostname", "hostname:1:1"}};
    for (size_t i = 0; i < sizeof foreign / sizeof *foreign; i++) {
        const char *path = strdup(hand_main_including("net/top.sp", foreign[i].inc));
        cr_expect_eq(read_allowing(path, outside, &err), OPTINC_EINPUT, "%s", foreign[i].inc);
        cr_expect(err.line == 1 && err.column == 1, "%s: at %d:%d", foreign[i].inc, err.line,
                  err.column);
        cr_expect(strstr(err.message, "this included file holds no line of a netlist") &&
                  strstr(err.message, "the .include at ") &&
                  strstr(err.message, "top.sp:4:10 names a netlist"), "%s", err.message);
        setenv("OPTINC_INCLUDE_PATH", outside, 1);
        tu_run r = tu_optinc((const char *[]){"netlist", path, "-o", out, NULL});
        unsetenv("OPTINC_INCLUDE_PATH");
        cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
        cr_expect(r.err && strstr(r.err, foreign[i].where), "%s", r.err);
        const char *const secret[] = {"root", "Secret", "daemon", "secrethost", "/bin/"};
        for (size_t k = 0; k < sizeof secret / sizeof *secret; k++) {
            cr_expect(!strstr(err.message, secret[k]), "'%s' quoted: %s", secret[k], err.message);
            cr_expect(!strstr(r.err, secret[k]), "'%s' printed: %s", secret[k], r.err);
        }
        tu_run_free(&r);
        free((char *)path);
    }
    cr_expect_eq(read_allowing(hand_main_including("net/top.sp", "typo.inc"), NULL, &err),
                 OPTINC_EINPUT);
    cr_expect(strstr(err.file, "typo.inc") && strstr(err.message, "unknown parameter 'thetX_rad'"),
              "%s: %s", err.file, err.message);
}

/* An .include name that does not fit is refused at its token, quoted or
 * not.  Cut at 1023 bytes, this one named a netlist that exists
 * (sub/cells.inc), which the reader then read in its place. */
Test(netlist, include_names_are_refused_not_cut, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    mkdir(tu_scratch("sub"), 0777);
    cr_assert_eq(tu_write_file(tu_scratch("sub/cells.inc"), hand_cells), 0);
    char name[1100] = "";
    for (int i = 0; i < 505; i++)
        strcat(name, "./");
    strcat(name, "sub/cells.inc");
    cr_assert_eq(strlen(name), 1023);
    optinc_error err = {0};
    /* a name of 1023 bytes is taken; joined to the folder, its path is too long */
    cr_expect_eq(read_allowing(hand_main_including("exact.sp", name), NULL, &err), OPTINC_EINPUT);
    cr_expect(strstr(err.message, "the path of included file '././") &&
              strstr(err.message, "...' is longer than 1023 bytes"), "%s", err.message);
    strcat(name, "_not_this.inc");
    char quoted[1200];
    snprintf(quoted, sizeof quoted, "\"%s\"", name);
    const char *const spelling[] = {name, quoted};
    for (int q = 0; q < 2; q++) {
        char *main_text = strdup(hand_main), *at = strstr(main_text, "\"sub/cells.inc\"");
        cr_assert_not_null(at);
        size_t n = strlen(main_text) + strlen(spelling[q]) + 1;
        char *text = malloc(n);
        snprintf(text, n, "%.*s%s%s", (int)(at - main_text), main_text, spelling[q],
                 at + strlen("\"sub/cells.inc\""));
        cr_assert_eq(tu_write_file(tu_scratch("long.sp"), text), 0);
        free(text);
        free(main_text);
        cr_expect_eq(read_allowing(tu_scratch("long.sp"), NULL, &err), OPTINC_EINPUT,
                     "%s name read", q ? "quoted" : "bare");
        cr_expect(err.line == 4 && err.column == 10, "at %d:%d", err.line, err.column);
        cr_expect(strstr(err.message, "the file name of .include is longer than 1023 bytes, the "
                         "reader's limit"), "%s", err.message);
    }
}

/* The tokenizer notes where a token's first '=' is, in a field of 10 bits:
 * a key too long for it, an '=' inside a quoted value and a parameter that
 * is no key=value read as they did when every token was searched again. */
Test(netlist, key_value_tokens_split_at_their_first_equals)
{
    int calls = 0;
    optinc_read_opts opts = {NULL, memory_resolver, &calls, NULL};
    const char *at = strstr(hand_main, "th=1.5");
    size_t pre = (size_t)(at - hand_main), n = strlen(hand_main);
    char *text = malloc(n + 1200);
    static const size_t keys[] = {2, 1021, 1022, 1023, 1100};
    optinc_error err = {0};
    optinc_circuit *c = NULL;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        memcpy(text, hand_main, pre);
        memset(text + pre, 'k', keys[i]);
        snprintf(text + pre + keys[i], n + 1200 - pre - keys[i], "%s", at + 2);
        optinc_input in = {"hand.sp", text, strlen(text)};
        cr_assert_eq(optinc_netlist_parse(&in, &opts, &c, &err), OPTINC_EINPUT, "key %zu",
                     keys[i]);
        cr_expect_eq(err.line, 7, "key %zu", keys[i]);
        cr_expect_eq(err.column, (int)(at - strstr(hand_main, "X1")) + 1, "key %zu", keys[i]);
        /* the key named is the whole run of k's (as far as the message holds) */
        const char *q = strstr(err.message, "'kk");
        cr_assert_not_null(q, "key %zu: %s", keys[i], err.message);
        size_t run = strspn(q + 1, "k");
        cr_expect(run == keys[i] ? q[1 + run] == '\'' : run >= 900, "key %zu: %zu k's named",
                  keys[i], run);
    }
    /* no '=' at all where a parameter belongs */
    memcpy(text, hand_main, pre);
    snprintf(text + pre, n + 1200 - pre, "th%s", at + 2 + 4);
    optinc_input in = {"hand.sp", text, strlen(text)};
    cr_expect_eq(optinc_netlist_parse(&in, &opts, &c, &err), OPTINC_EINPUT);
    cr_expect_eq(err.line, 7, "%s", err.message);
    free(text);

    /* an '=' inside a quoted value belongs to the value */
    optinc_circuit *r = load("specs/real4.yaml");
    snprintf(r->spec_path, sizeof r->spec_path, "k=v=w.yaml");
    optinc_netlist_options o = {.reproducible = 1};
    size_t len;
    char *t = write_mem(r, &o, &len);
    in = (optinc_input){"eq.sp", t, len};
    cr_assert_eq(optinc_netlist_parse(&in, NULL, &c, &err), OPTINC_OK, "%s", err.message);
    cr_expect_str_eq(c->spec_path, "k=v=w.yaml");
    optinc_circuit_free(c);
    optinc_circuit_free(r);
    free(t);
}

/* A UTF-8 byte-order mark before the netlist is skipped, and the columns
 * of line 1 count from after it. */
Test(netlist, byte_order_mark_is_accepted)
{
    int calls = 0;
    optinc_read_opts opts = {NULL, memory_resolver, &calls, NULL};
    size_t n = strlen(hand_main);
    char *text = malloc(n + 4);
    memcpy(text, "\xef\xbb\xbf", 3);
    memcpy(text + 3, hand_main, n + 1);
    optinc_input in = {"hand.sp", text, n + 3};
    optinc_circuit *c = NULL, *plain = NULL;
    optinc_error err = {0};
    cr_assert_eq(optinc_netlist_parse(&in, &opts, &c, &err), OPTINC_OK, "%s", err.message);
    in = (optinc_input){"hand.sp", hand_main, n};
    cr_assert_eq(optinc_netlist_parse(&in, &opts, &plain, &err), OPTINC_OK, "%s", err.message);
    cr_expect_leq(transfer_diff(c, plain), 0, "the mark changes nothing");
    optinc_circuit_free(c);
    optinc_circuit_free(plain);
    free(text);
    static const char bad[] = "\xef\xbb\xbf.bogus\n.end\n";
    in = (optinc_input){"bom.sp", bad, strlen(bad)};
    cr_expect_eq(optinc_netlist_parse(&in, NULL, &c, &err), OPTINC_EINPUT);
    cr_expect(err.line == 1 && err.column == 1, "%d:%d", err.line, err.column);
    cr_expect(strstr(err.message, "unknown statement '.bogus'"), "%s", err.message);
}

Test(netlist, load_dispatches_on_extension)
{
    optinc_circuit *a = load("specs/real4.yaml"), *b = load("netlists/real4.pnl.sp");
    cr_assert_not_null(a->layers[0].target, "a spec is compiled");
    cr_assert_null(b->layers[0].target, "a netlist is read");
    cr_assert_leq(transfer_diff(a, b), 0);
    optinc_circuit_free(a);
    optinc_circuit_free(b);
}

Test(netlist, writer_refuses_clashing_names)
{
    optinc_circuit *c = load("specs/real4.yaml");
    optinc_error err = {0};
    FILE *f = fopen("/dev/null", "w");
    strcpy(c->name, "mzi");
    cr_assert_eq(optinc_netlist_write_stream(c, f, NULL, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "card or cell name"), "%s", err.message);
    strcpy(c->name, "layer_L1");
    cr_assert_eq(optinc_netlist_write_stream(c, f, NULL, &err), OPTINC_EINPUT);
    for (int k = 0; k < OPTINC_CARD_COUNT; k++) {
        strcpy(c->name, optinc_cards[k].name);
        cr_assert_eq(optinc_netlist_write_stream(c, f, NULL, &err), OPTINC_EINPUT, "%s",
                     c->name);
    }
    fclose(f);
    optinc_circuit_free(c);
}

/* ------------------------------------------------------------------ the ONN line */

/* The ONN golden's spec has an allreduce: section: its netlist carries the
 * record, which reads back and is written again unchanged; the cascade
 * specs keep their level and fan-in. */
Test(netlist, onn_line_round_trips)
{
    static const struct { const char *spec; int servers, fan_in, levels, level, layers; } want[] = {
        {"specs/onn4x8.yaml", 4, 4, 1, 0, 4},
        {"specs/cascade/onn16x8_level1.yaml", 16, 4, 2, 1, 4},
        {"specs/cascade/onn16x8_level2.yaml", 16, 4, 2, 2, 5},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        optinc_circuit *c = load(want[i].spec);
        const optinc_circuit_onn *o = &c->onn;
        cr_assert(o->present, "%s", want[i].spec);
        cr_assert_eq(o->servers, want[i].servers);
        cr_assert_eq(o->gradient_bits, 8);
        cr_assert_str_eq(o->preprocessing, "digit_sums");
        cr_assert_eq(o->cascade_fan_in, want[i].fan_in);
        cr_assert_eq(o->cascade_levels, want[i].levels);
        cr_assert_str_eq(o->rounding, "half_even");
        cr_assert_eq(o->level, want[i].level);
        cr_assert_eq(o->n_segments, want[i].layers);
        optinc_netlist_options opt = {.reproducible = 1};
        size_t len;
        char *text = write_mem(c, &opt, &len);
        cr_assert(strstr(text, "\n*! onn = servers="), "%s", want[i].spec);
        optinc_input in = {"onn.pnl.sp", text, len};
        optinc_circuit *r = NULL;
        optinc_error err = {0};
        cr_assert_eq(optinc_netlist_parse(&in, NULL, &r, &err), OPTINC_OK, "%s", err.message);
        assert_same_onn(o, &r->onn);
        char *again = write_mem(r, &opt, NULL);
        assert_same_text(text, again, want[i].spec);
        free(again);
        free(text);
        optinc_circuit_free(r);
        optinc_circuit_free(c);
    }
    optinc_circuit *plain = load("specs/real4.yaml");
    cr_assert(!plain->onn.present, "no allreduce: section, no ONN record");
    optinc_circuit_free(plain);
}

/* The netlist alone is enough: copied where its spec cannot be found, it
 * still gives the ONN's meta, the same as the spec does. */
Test(netlist, onn_meta_from_a_netlist_without_its_spec)
{
    char *dir = tu_tempdir(), path[4200];
    size_t len;
    char *text = tu_read_file("netlists/onn4x8.pnl.sp", &len);
    cr_assert_not_null(text);
    /* Its recorded spec path must not resolve from here: rename it. */
    char *ref = strstr(text, "path=\"specs/onn4x8.yaml\"");
    cr_assert_not_null(ref);
    memcpy(ref + strlen("path=\""), "gone_", 5);      /* same length: "gone_/onn4x8.yaml" */
    snprintf(path, sizeof path, "%s/onn4x8.pnl.sp", dir);
    cr_assert_eq(tu_write_file(path, text), 0);
    free(text);
    optinc_circuit *c = NULL, *s = NULL;
    optinc_onn_meta m, want;
    optinc_error err = {0};
    cr_assert_eq(optinc_onn_load(path, NULL, &c, &m, &err), OPTINC_OK, "%s", err.message);
    cr_assert_eq(optinc_onn_load("specs/onn4x8.yaml", NULL, &s, &want, &err), OPTINC_OK, "%s",
                 err.message);
    cr_assert_str_eq(m.spec_path, path, "the meta came from the netlist");
    cr_assert(!memcmp(&m.task, &want.task, sizeof m.task), "same task");
    cr_assert_eq(m.level, want.level);
    cr_assert_eq(m.fan_in, want.fan_in);
    cr_assert_eq(m.bits, want.bits);
    cr_assert_eq(m.n_layers, want.n_layers);
    cr_assert(!memcmp(m.seg, want.seg, sizeof m.seg), "same segments");
    cr_assert_eq(m.seg[2], 126);
    optinc_circuit_free(c);

    /* A netlist without the line (written before it existed) finds the meta
     * through the spec its header names, when that still has its sha256. */
    text = tu_read_file("netlists/onn4x8.pnl.sp", &len);
    char *line = strstr(text, "*! onn = "), *next = strchr(line, '\n') + 1;
    memmove(line, next, strlen(next) + 1);
    snprintf(path, sizeof path, "%s/old.pnl.sp", dir);
    cr_assert_eq(tu_write_file(path, text), 0);
    free(text);
    cr_assert_eq(optinc_onn_load(path, NULL, &c, &m, &err), OPTINC_OK, "%s", err.message);
    cr_assert(!c->onn.present);
    cr_assert_str_eq(m.spec_path, "specs/onn4x8.yaml", "the meta came from the spec");
    cr_assert(!memcmp(&m.task, &want.task, sizeof m.task), "same task");
    cr_assert(!memcmp(m.seg, want.seg, sizeof m.seg), "same segments");
    optinc_circuit_free(c);

    /* Without both, the task is read from the circuit's shape: 4 inputs
     * besides the 4 carriers are 4 PAM4 digits (8 bits), and 7 outputs for
     * them the offset code's. */
    text = tu_read_file(path, &len);
    ref = strstr(text, "path=\"specs/onn4x8.yaml\"");
    cr_assert_not_null(ref);
    memcpy(ref + strlen("path=\""), "gone_", 5);
    snprintf(path, sizeof path, "%s/bare.pnl.sp", dir);
    cr_assert_eq(tu_write_file(path, text), 0);
    free(text);
    cr_assert_eq(optinc_onn_load(path, NULL, &c, &m, &err), OPTINC_OK, "%s", err.message);
    cr_assert(!memcmp(&m.task, &want.task, sizeof m.task), "the task of the shipped spec");
    cr_assert_eq(m.task.code, OPTINC_CODE_OFFSET);
    cr_assert_eq(m.bits, 8);
    cr_assert(!memcmp(m.seg, want.seg, sizeof m.seg), "segments from the layers' grids");
    optinc_circuit_free(c);
    optinc_circuit_free(s);
    tu_rmtree(dir);
    free(dir);
}

/* The card table keeps the dialect's rules: names are PNL names, a unit is
 * its key's suffix, a code is bounded by a bits parameter, and the writer's
 * order lists every parameter once. */
Test(netlist, card_table_is_consistent)
{
    for (int k = 0; k < OPTINC_CARD_COUNT; k++) {
        const optinc_card *cd = &optinc_cards[k];
        cr_assert(optinc_netlist_is_name(cd->name) && optinc_netlist_is_name(cd->prefix));
        cr_assert_eq(optinc_card_find(cd->name, strlen(cd->name)), k);
        cr_assert(cd->n_pins >= 1 && cd->n_pins <= OPTINC_CARD_PINS_MAX, "%s", cd->name);
        for (int j = 0; j < cd->n_pins; j++)
            cr_assert(optinc_netlist_is_name(cd->pin[j]), "%s pin %d", cd->name, j);
        cr_assert(cd->n_params >= 0 && cd->n_params <= OPTINC_CARD_PARAMS_MAX);
        unsigned seen = 0;
        for (int i = 0; i < cd->n_params; i++) {
            const optinc_card_param *p = &cd->param[i];
            size_t kl = strlen(p->key), ul = strlen(p->unit);
            cr_assert(optinc_netlist_is_name(p->key), "%s.%s", cd->name, p->key);
            cr_assert(!ul || (kl > ul + 1 && p->key[kl - ul - 1] == '_'
                              && !strcmp(p->key + kl - ul, p->unit)),
                      "%s.%s: unit %s is not its suffix", cd->name, p->key, p->unit);
            cr_assert(p->type == 'd' || p->type == 'i');
            cr_assert_leq(p->min, p->max);
            if (p->bits >= 0) {
                cr_assert_lt(p->bits, cd->n_params);
                cr_assert_str_eq(cd->param[p->bits].key, "bits");
            }
            int w = cd->write_order[i];
            cr_assert(w >= 0 && w < cd->n_params && !(seen & (1u << w)), "%s", cd->name);
            seen |= 1u << w;
        }
    }
    cr_assert_eq(optinc_card_find("wg", 2), -1, "wg, cross, pd and src are gone");
}

/* A spec path holds whatever bytes a file name may: the header writes the
 * ones that would end the line or the string escaped, and reads them back. */
Test(netlist, spec_path_is_escaped_and_reads_back)
{
    optinc_circuit *c = load("specs/real4.yaml");
    static const char path[] = "dir \"a\"\\b\nnext\tline\x7f\x01/\xce\xbb.yaml";
    snprintf(c->spec_path, sizeof c->spec_path, "%s", path);
    optinc_netlist_options o = {.reproducible = 1};
    size_t n;
    char *t = write_mem(c, &o, &n);
    cr_assert(strstr(t, "*! spec = path=\"dir \\\"a\\\"\\\\b\\x0anext\\x09line\\x7f\\x01/"
                        "\xce\xbb.yaml\" sha256="), "%.400s", t);
    optinc_input in = {"esc.sp", t, n};
    optinc_circuit *r = NULL;
    optinc_error err = {0};
    cr_assert_eq(optinc_netlist_parse(&in, NULL, &r, &err), OPTINC_OK, "%s", err.message);
    cr_expect_str_eq(r->spec_path, path);
    char *again = write_mem(r, &o, NULL);
    assert_same_text(t, again, "rewritten");
    free(again);
    optinc_circuit_free(r);
    optinc_circuit_free(c);
    /* \x takes exactly two hex digits; \x00 would cut the name */
    const char *line = strstr(t, "*! spec = "), *rest = strchr(line, '\n');
    static const struct { const char *value, *want; } v[] = {
        {"\"a\\x41b\"", "aAb"}, {"\"\\x4\"", "x4"}, {"\"\\xg1\"", "xg1"},
        {"\"\\\\x41\"", "\\x41"}, {"\"a\\\"b\"", "a\"b"},
    };
    char *text = malloc(n + 64);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        snprintf(text, n + 64, "%.*s*! spec = path=%s%s", (int)(line - t), t, v[i].value, rest);
        in = (optinc_input){"q.sp", text, strlen(text)};
        cr_assert_eq(optinc_netlist_parse(&in, NULL, &r, &err), OPTINC_OK, "case %zu: %s", i,
                     err.message);
        cr_expect_str_eq(r->spec_path, v[i].want, "case %zu", i);
        optinc_circuit_free(r);
    }
    snprintf(text, n + 64, "%.*s*! spec = path=\"a\\x00b\"%s", (int)(line - t), t, rest);
    in = (optinc_input){"nul.sp", text, strlen(text)};
    cr_expect_eq(optinc_netlist_parse(&in, NULL, &r, &err), OPTINC_EINPUT);
    cr_expect(err.line == 3 && err.column == 18, "%d:%d", err.line, err.column);
    cr_expect(strstr(err.message, "NUL byte"), "%s", err.message);
    free(text);
    free(t);
}

/* The writer writes only numbers the reader takes: a NaN or an infinity
 * anywhere is bad input, and nothing is written. */
Test(netlist, non_finite_values_are_not_written)
{
    for (int k = 0; k < 5; k++) {
        optinc_circuit *c = load("specs/real4.yaml");
        optinc_layer *L = &c->layers[0];
        const char *what[] = {"gain is inf", "insertion_loss_dB is nan", "a programmed phase is",
                              "a target phase is", "t_target is"};
        if (k == 0)
            L->gain = INFINITY;
        else if (k == 1)
            L->components.mzi.insertion_loss_dB = NAN;
        else if (k == 2)
            L->stage[0].mesh->mzi[1].theta.rad = -NAN;
        else if (k == 3)
            L->stage[2].mesh->screen[3].target_rad = INFINITY;
        else
            L->stage[1].att[0].t_target = NAN;
        char *text = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&text, &n);
        optinc_error err = {0};
        cr_expect_eq(optinc_netlist_write_stream(c, f, NULL, &err), OPTINC_EINPUT, "case %d", k);
        fclose(f);
        cr_expect_eq(n, 0, "case %d: %zu bytes written", k, n);
        cr_expect(strstr(err.message, "layer 'L1': ") && strstr(err.message, what[k]),
                  "case %d: %s", k, err.message);
        free(text);
        optinc_circuit_free(c);
    }
}

Test(netlist, created_line_only_without_reproducible)
{
    optinc_circuit *c = load("specs/real4.yaml");
    optinc_netlist_options o = {0};
    char *t = write_mem(c, &o, NULL);
    cr_assert(strstr(t, "\n*! created = "));
    free(t);
    o.reproducible = 1;
    t = write_mem(c, &o, NULL);
    cr_assert_null(strstr(t, "created"));
    free(t);
    optinc_circuit_free(c);
}

/* ------------------------------------------------------------------ bad input */

/* 1 when the spec text loads (from memory), else 0 with the error in err. */
static int spec_takes(const char *text, optinc_error *err)
{
    optinc_input in = {"bounds.yaml", text, strlen(text)};
    optinc_spec *s = NULL;
    optinc_status st = optinc_spec_parse(&in, NULL, &s, err);
    optinc_spec_free(s);
    return st == OPTINC_OK;
}

/* 1 when a one-layer netlist with the header line `*! layer.L1.LINE` reads. */
static int netlist_takes(const char *line, optinc_error *err)
{
    char text[2048];
    snprintf(text, sizeof text,
             "* bounds\n"
             "*! circuit = seed=1 wavelength_um=1.55\n"
             "*! layer.L1 = rows=2 cols=2 gain=1 mesh=clements attenuators=none "
             "activation=none\n"
             "*! layer.L1.%s\n"
             ".subckt layer_L1 in0 in1 out0 out1\n"
             "MZ_L1_U_c0_r0 in0 in1 a0 a1 mzi theta_rad=1.5 phi_rad=0.25\n"
             "PS_L1_U_c1_r0 a0 out0 ps phase_rad=0.5\n"
             "PS_L1_U_c1_r1 a1 out1 ps phase_rad=0\n"
             ".ends layer_L1\n"
             ".subckt t in0 in1 out0 out1\n"
             "X_L1 in0 in1 out0 out1 layer_L1\n"
             ".ends t\n"
             "t in0 in1 out0 out1 t\n"
             ".end\n", line);
    optinc_input in = {"bounds.pnl.sp", text, strlen(text)};
    optinc_circuit *c = NULL;
    optinc_status st = optinc_netlist_parse(&in, NULL, &c, err);
    optinc_circuit_free(c);
    return st == OPTINC_OK;
}

#define BOUNDS_SPEC "schema_version: 1\nname: t\ncomponents:\n  %s: {%s}\nmatrices:\n" \
                    "  W: {shape: [2, 2], dtype: real, data: [[1, 0], [0, 1]]}\n" \
                    "layers:\n  - {name: L1, matrix: W}\n"

/* A netlist cannot carry a device the spec refuses, nor refuse one it
 * takes: at every finite bound of a device key of the header
 * (optinc_component_fields) and one double beyond it, the spec loader and the
 * netlist reader agree, and take the bound itself unless it is excluded;
 * so for the attenuator's DAC step (max_attenuation_dB / (2^bits - 1) at
 * most 100 dB), a bound across two keys. */
Test(netlist, device_ranges_agree_with_the_spec)
{
    int checked = 0;
    for (int f = 0; f < optinc_component_n_fields; f++) {
        const optinc_component_field *fd = &optinc_component_fields[f];
        if (fd->type != 'd' || !strncmp(fd->key, "range_", 6))   /* the spec's range_rad */
            continue;
        for (int hi = 0; hi < 2; hi++) {
            double bound = hi ? fd->max : fd->min;
            int open = hi ? fd->max_open : fd->min_open;
            if (!isfinite(bound))
                continue;
            for (int beyond = 0; beyond < 2; beyond++) {
                double v = beyond ? nextafter(bound, hi ? INFINITY : -INFINITY) : bound;
                char kv[128], yaml[1024], line[256];
                optinc_error es = {0}, en = {0};
                snprintf(kv, sizeof kv, "%s: %.17g", fd->key, v);
                snprintf(yaml, sizeof yaml, BOUNDS_SPEC, fd->section, kv);
                snprintf(line, sizeof line, "%s = %s=%.17g", fd->section, fd->key, v);
                int by_spec = spec_takes(yaml, &es), by_netlist = netlist_takes(line, &en);
                cr_expect_eq(by_spec, by_netlist, "%s.%s = %.17g: spec %s, netlist %s",
                             fd->section, fd->key, v, by_spec ? "takes it" : es.message,
                             by_netlist ? "takes it" : en.message);
                cr_expect_eq(by_netlist, !beyond && !open, "%s.%s = %.17g: %s", fd->section,
                             fd->key, v, by_netlist ? "taken" : en.message);
                checked++;
            }
        }
    }
    cr_expect_geq(checked, 40, "every device number of the header has its bounds checked");

    static const struct { double max_db; int bits, ok; } steps[] = {
        {100, 1, 1}, {100.001, 1, 0}, {300, 2, 1}, {300.001, 2, 0}, {400, 3, 1}, {60, 16, 1},
        {400, 2, 0}};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        char kv[128], yaml[1024], line[256];
        optinc_error es = {0}, en = {0};
        snprintf(kv, sizeof kv, "max_attenuation_dB: %.17g, bits: %d", steps[k].max_db,
                 steps[k].bits);
        snprintf(yaml, sizeof yaml, BOUNDS_SPEC, "attenuator", kv);
        snprintf(line, sizeof line, "attenuator = max_attenuation_dB=%.17g bits=%d",
                 steps[k].max_db, steps[k].bits);
        int by_spec = spec_takes(yaml, &es), by_netlist = netlist_takes(line, &en);
        cr_expect_eq(by_spec, steps[k].ok, "%s: %s", kv, by_spec ? "taken" : es.message);
        cr_expect_eq(by_netlist, steps[k].ok, "%s: %s", line, by_netlist ? "taken" : en.message);
        if (!steps[k].ok)
            cr_expect(strstr(es.message, "attenuation DAC steps through it")
                      && strstr(en.message, "attenuation DAC steps through it"),
                      "one message: '%s' and '%s'", es.message, en.message);
    }
}


Test(netlist, bad_fixtures, .timeout = 60)
{
    glob_t g;
    cr_assert_eq(glob("tests/bad/netlist/*.pnl.sp", 0, NULL, &g), 0);
    cr_assert_geq(g.gl_pathc, 18);
    int cli_checked = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];
        char expect_path[4200], want_file[256], frag[512];
        int line, col;
        snprintf(expect_path, sizeof expect_path, "%.*s.expect", (int)(strlen(path) - 7), path);
        char *expect = tu_read_file(expect_path, NULL);
        cr_assert_not_null(expect, "%s has no .expect file", path);
        cr_assert_eq(sscanf(expect, "%255[^:]:%d:%d: %511[^\n]", want_file, &line, &col, frag), 4,
                     "%s: bad .expect line", expect_path);
        free(expect);
        optinc_error err = {0};
        optinc_circuit *c = NULL;
        char buf[2300];
        optinc_status st = optinc_netlist_read(path, NULL, &c, &err);
        optinc_error_format(&err, buf, sizeof buf);
        cr_expect_eq(st, OPTINC_EINPUT, "%s: status %d (%s)", path, st, buf);
        cr_expect_null(c);
        const char *base = strrchr(err.file, '/');
        cr_expect_str_eq(base ? base + 1 : err.file, want_file, "%s: %s", path, buf);
        cr_expect_eq(err.line, line, "%s: %s", path, buf);
        cr_expect_eq(err.column, col, "%s: %s", path, buf);
        cr_expect(strstr(err.message, frag), "%s: message lacks '%s': %s", path, frag, buf);

        /* Through the command line, once a command reads netlists. */
        tu_run r = tu_optinc((const char *[]){"simulate", path, NULL});
        char want[4400];
        snprintf(want, sizeof want, "%d:%d: error: ", line, col);
        if (r.err && strstr(r.err, want)) {
            cr_expect_eq(r.status, 2, "optinc simulate %s: exit %d", path, r.status);
            cli_checked++;
        }
        tu_run_free(&r);
    }
    if (!cli_checked)
        cr_log_warn("optinc simulate does not read netlists yet: fixtures checked through "
                    "the library only");
    globfree(&g);
}

Test(netlist, limits)
{
    char *dir = tu_tempdir(), path[4200];
    optinc_error err = {0};
    optinc_circuit *c = NULL;

    /* Includes nested deeper than the limit. */
    for (int d = 0; d <= OPTINC_NETLIST_INCLUDE_DEPTH_MAX + 1; d++) {
        char text[200];
        snprintf(path, sizeof path, "%s/d%d.inc", dir, d);
        snprintf(text, sizeof text, ".include \"d%d.inc\"\n", d + 1);
        cr_assert_eq(tu_write_file(path, d <= OPTINC_NETLIST_INCLUDE_DEPTH_MAX ? text : "\n"), 0);
    }
    snprintf(path, sizeof path, "%s/d0.inc", dir);
    cr_assert_eq(optinc_netlist_read(path, NULL, &c, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "OPTINC_NETLIST_INCLUDE_DEPTH_MAX"), "%s", err.message);

    /* A line longer than 1 MiB. */
    snprintf(path, sizeof path, "%s/long.sp", dir);
    FILE *f = fopen(path, "w");
    fputs("* fine\n*", f);
    for (long i = 0; i <= OPTINC_NETLIST_LINE_MAX; i++)
        fputc('x', f);
    fputs("\n.end\n", f);
    fclose(f);
    cr_assert_eq(optinc_netlist_read(path, NULL, &c, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "OPTINC_NETLIST_LINE_MAX"), "%s", err.message);
    cr_assert_eq(err.line, 2);

    /* A file over 256 MiB (sparse: refused before it is read). */
    snprintf(path, sizeof path, "%s/huge.sp", dir);
    f = fopen(path, "w");
    cr_assert_eq(ftruncate(fileno(f), OPTINC_NETLIST_BYTES_MAX + 1), 0);
    fclose(f);
    cr_assert_eq(optinc_netlist_read(path, NULL, &c, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "256 MiB"), "%s", err.message);

    /* A missing file is bad input, not a crash. */
    snprintf(path, sizeof path, "%s/none.sp", dir);
    cr_assert_eq(optinc_netlist_read(path, NULL, &c, &err), OPTINC_EINPUT);
    cr_assert_null(c);
    tu_rmtree(dir);
    free(dir);
}

/* ------------------------------------------------------------------ numbers */

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* v written as %.17g writes it, and read back (and %.15g and %.19e texts of
 * it read as strtod reads them). */
static void check_number(double v)
{
    char want[64], got[OPTINC_NUM_TEXT_MAX], other[64];
    snprintf(want, sizeof want, "%.17g", v);
    cr_assert_eq(optinc_num_format(got, v), strlen(want));
    cr_assert_str_eq(got, want, "%a", v);
    double back;
    cr_assert_eq(optinc_num_parse(want, strlen(want), &back), OPTINC_NUM_OK, "%s", want);
    cr_assert(!memcmp(&back, &v, sizeof v), "%s read back as %a, not %a", want, back, v);
    static const char *const forms[] = {"%.15g", "%.19e", "%.3f"};
    for (int f = 0; f < 3; f++) {
        snprintf(other, sizeof other, forms[f], v);
        double s = strtod(other, NULL), p;
        if (strlen(other) >= 60 || isinf(s))
            continue;
        cr_assert_eq(optinc_num_parse(other, strlen(other), &p), OPTINC_NUM_OK, "%s", other);
        cr_assert(!memcmp(&p, &s, sizeof s), "%s: %a, strtod %a", other, p, s);
    }
}

Test(netlist, numbers_format_as_printf_and_parse_as_strtod, .timeout = 60)
{
    static const double hard[] = {
        0.0, 1, 0.5, 0.1, 1.55, 6.2831853071795862, 2251799813685247.75, 2251799813685246.25,
        4503599627370497.5, 1e16, 1e17, 9.9999999999999995e16, 99999999999999999.0, 1e-5, 1e-4,
        9.99999999999999999e-5, 123456789012345678.0, 1e22, 1e23, 1e38, 1.7e38, 1e300, 5e-324,
        2.2250738585072014e-308, 9007199254740993.0, 1.0193557012116577e-15, 0.30000000000000004};
    for (size_t i = 0; i < sizeof hard / sizeof hard[0]; i++) {
        check_number(hard[i]);
        check_number(-hard[i]);
    }
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < 250000; i++) {
        uint64_t bits = xorshift(&s);
        double any;
        memcpy(&any, &bits, sizeof any);
        if (isfinite(any))
            check_number(any);
        check_number((double)(xorshift(&s) >> 11) * 0x1p-53 * 6.283185307179586);  /* phases */
        check_number(ldexp((double)(xorshift(&s) >> 11), (int)(xorshift(&s) % 140) - 90));
        check_number((double)(xorshift(&s) % 1000000) / 8);     /* exact binary fractions */
    }
    char longest[OPTINC_NUM_TEXT_MAX];
    optinc_num_format(longest, -2.2250738585072014e-308);
    cr_assert_lt(strlen(longest), OPTINC_NUM_TEXT_MAX);
}

Test(netlist, number_grammar)
{
    static const char *const bad[] = {"0x10", "0X1p3", "inf", "-inf", "nan", "infinity", "1e",
                                      "1e+", ".", "-", "+", "", "1.2.3", " 1", "1 ", "e5", "1f",
                                      "--1", "1e5.0", "0x", "1ee5", "1,5", "٣", "12345678x",
                                      "1234567/9", "12345678:0", "1234.5678.9"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v = 42;
        cr_assert_eq(optinc_num_parse(bad[i], strlen(bad[i]), &v), OPTINC_NUM_SYNTAX, "'%s'",
                     bad[i]);
        cr_assert_eq(v, 42);
    }
    static const char *const good[] = {"1.", ".5", "+.5e-3", "-0", "00012.5000", "1E5", "1e+05",
                                       "12345678901234567890123", "1234567890123456789",
                                       "12345678901234567890", "1234567.890123456789",
                                       "0.00000000123456781234567812", "00000000000000000001.5",
                                       "0.000000000000000000000000000012345678901234567890123",
                                       "1e-400", "-1.7976931348623157e308"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        double v, w = strtod(good[i], NULL);
        cr_assert_eq(optinc_num_parse(good[i], strlen(good[i]), &v), OPTINC_NUM_OK, "'%s'",
                     good[i]);
        cr_assert(!memcmp(&v, &w, sizeof v), "'%s': %a, strtod %a", good[i], v, w);
    }
    double v;
    cr_assert_eq(optinc_num_parse("1e400", 5, &v), OPTINC_NUM_RANGE);
    cr_assert_eq(optinc_num_parse("-2e308", 6, &v), OPTINC_NUM_RANGE);
    /* Only len bytes are read: no NUL needed. */
    cr_assert_eq(optinc_num_parse("2.5xyz", 3, &v), OPTINC_NUM_OK);
    cr_assert_eq(v, 2.5);
    char buf[OPTINC_NUM_TEXT_MAX];
    cr_assert_eq(optinc_int_format(buf, -9223372036854775807LL - 1), 20);
    cr_assert_str_eq(buf, "-9223372036854775808");
    cr_assert_eq(optinc_int_format(buf, 0), 1);
    cr_assert_str_eq(buf, "0");
}

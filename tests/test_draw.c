/*
 * test_draw.c - `optinc draw` and the draw module: which files each layer size
 * gets, node counts of the SVGs against counts computed from the compiled
 * circuit, .dot files accepted by Graphviz's `dot`, the layer graph, tooltips,
 * byte-identical reruns, a netlist drawn like its spec, and bad --format
 * values that exit 2 and write nothing.  Specs are generated into a temp dir
 * (haar_unitary / gaussian matrices), so nothing here depends on specs/.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "optinc/circuit.h"
#include "optinc/draw.h"
#include "optinc/spec.h"
#include "testutil.h"

/* Four layers covering every stage arrangement: square and non-square
 * middle (with mode ends), output and none; Clements and Reck; quantized. */
static const char spec_mixed[] =
    "schema_version: 1\n"
    "name: mixed\n"
    "components:\n"
    "  phase_shifter: {bits: 8}\n"
    "matrices:\n"
    "  W1: {shape: [6, 6], dtype: complex, generate: {kind: haar_unitary, seed: 1}}\n"
    "  W2: {shape: [4, 6], dtype: complex, generate: {kind: gaussian, seed: 2}}\n"
    "  W3: {shape: [4, 4], dtype: complex, generate: {kind: haar_unitary, seed: 3}}\n"
    "  W4: {shape: [4, 4], dtype: complex, generate: {kind: haar_unitary, seed: 4}}\n"
    "  W5: {shape: [5, 4], dtype: complex, generate: {kind: gaussian, seed: 5}}\n"
    "layers:\n"
    "  - {name: L1, matrix: W1}\n"
    "  - {name: L2, matrix: W2, mesh: reck}\n"
    "  - {name: L3, matrix: W3, attenuators: output}\n"
    "  - {name: L4, matrix: W4, mesh: reck, attenuators: none}\n"
    "  - {name: L5, matrix: W5}\n";

static char *square_spec(int n)
{
    static char buf[512];
    snprintf(buf, sizeof buf,
             "schema_version: 1\nname: sq%d\nmatrices:\n"
             "  W: {shape: [%d, %d], dtype: complex, generate: {kind: haar_unitary, seed: 1}}\n"
             "layers:\n  - {name: L1, matrix: W}\n", n, n, n);
    return buf;
}

typedef struct fixture {
    char *tmp;
    char spec[4200], out[4200];
} fixture;

static void setup_fixture(fixture *f, const char *yaml)
{
    f->tmp = tu_tempdir();
    cr_assert_not_null(f->tmp);
    snprintf(f->spec, sizeof f->spec, "%s/spec.yaml", f->tmp);
    snprintf(f->out, sizeof f->out, "%s/drawings/sub", f->tmp);   /* two levels to create */
    cr_assert_eq(tu_write_file(f->spec, yaml), 0);
}

static void teardown_fixture(fixture *f)
{
    tu_rmtree(f->tmp);
    free(f->tmp);
}

static optinc_circuit *compile_spec(const char *path)
{
    optinc_spec *spec = NULL;
    optinc_circuit *c = NULL;
    optinc_error err;
    cr_assert_eq(optinc_spec_load(path, NULL, &spec, &err), OPTINC_OK, "%s", err.message);
    cr_assert_eq(optinc_compile(spec, &c, &err), OPTINC_OK, "%s", err.message);
    optinc_spec_free(spec);
    return c;
}

/* Runs optinc draw SPEC -o OUT [extra...]; returns the exit status. */
static int draw(const fixture *f, const char *a1, const char *a2)
{
    const char *args[] = {"draw", f->spec, "-o", f->out, a1, a2, NULL};
    tu_run r = tu_optinc(args);
    int status = r.status;
    if (status)
        cr_log_info("optinc draw: %s", r.err ? r.err : "");
    tu_run_free(&r);
    return status;
}

static int exists(const fixture *f, const char *circuit, const char *suffix)
{
    char path[8800];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s%s", f->out, circuit, suffix);
    return stat(path, &st) == 0 && st.st_size > 0;
}

/* Occurrences of `<g id="node` in DIR/NAME. */
static int svg_nodes(const fixture *f, const char *name)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", f->out, name);
    size_t len = 0;
    char *text = tu_read_file(path, &len);
    cr_assert_not_null(text, "missing %s", path);
    /* a byte loop, not repeated strstr: ASan's strstr rescans the whole text */
    static const char tag[] = "<g id=\"node";
    int n = 0;
    for (size_t i = 0; i + sizeof tag - 1 <= len; i++)
        n += text[i] == '<' && !memcmp(text + i, tag, sizeof tag - 1);
    free(text);
    return n;
}

/* DIR_A/NAME and DIR_B/NAME have the same bytes. */
static void assert_same_file(const char *dir_a, const char *dir_b, const char *name)
{
    char a[4600], b[4600];
    size_t la = 0, lb = 0;
    snprintf(a, sizeof a, "%s/%s", dir_a, name);
    snprintf(b, sizeof b, "%s/%s", dir_b, name);
    char *ta = tu_read_file(a, &la), *tb = tu_read_file(b, &lb);
    cr_assert(ta && tb && la == lb && !memcmp(ta, tb, la), "%s differs", b);
    free(ta);
    free(tb);
}

/* `dot -Tplain FILE` exits 0. */
static void assert_dot_accepts(const fixture *f, const char *name)
{
    char cmd[4600];
    snprintf(cmd, sizeof cmd, "dot -Tplain '%s/%s' >/dev/null 2>&1", f->out, name);
    int rc = system(cmd);
    cr_assert(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "dot rejects %s", name);
}

/* Nodes of a full-detail drawing, counted from the circuit's structure: one
 * per input, output, MZI, screen phase shifter and attenuator, plus one term
 * point per mode that ends or starts inside the layer (the lit width changes
 * from cols through each stage's width to rows). */
static int expected_detail(const optinc_layer *L)
{
    int n = L->cols + L->rows, width = L->cols;
    for (int i = 0; i < L->n_stages; i++) {
        const optinc_stage *s = &L->stage[i];
        int w = s->kind == OPTINC_STAGE_MESH ? s->mesh->modes : s->n_att;
        n += abs(width - w);
        width = w;
        if (s->kind == OPTINC_STAGE_MESH)
            n += s->mesh->n_mzi + s->mesh->modes;
        else
            n += s->n_att;
    }
    return n + abs(width - L->rows);
}

static int expected_overview(const optinc_layer *L)
{
    int n = 0;
    for (int i = 0; i < L->n_stages; i++)
        n += L->stage[i].kind == OPTINC_STAGE_MESH ? L->stage[i].mesh->n_mzi : L->stage[i].n_att;
    return n;
}

Test(draw, small_layers_full_detail_every_format)
{
    fixture f;
    setup_fixture(&f, spec_mixed);
    optinc_circuit *c = compile_spec(f.spec);
    cr_assert_eq(draw(&f, "--format", "svg,png,dot"), 0);
    char name[256];
    int ends = 0;
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        const char *ext[] = {".svg", ".png", ".dot"};
        for (int k = 0; k < 3; k++) {
            snprintf(name, sizeof name, "_%s%s", L->name, ext[k]);
            cr_assert(exists(&f, "mixed", name), "missing mixed%s", name);
        }
        snprintf(name, sizeof name, "_%s_overview.svg", L->name);
        cr_assert_not(exists(&f, "mixed", name), "small layers get no overview");
        snprintf(name, sizeof name, "mixed_%s.svg", L->name);
        cr_assert_eq(svg_nodes(&f, name), expected_detail(L), "%s", name);
        snprintf(name, sizeof name, "mixed_%s.dot", L->name);
        assert_dot_accepts(&f, name);
        ends += expected_detail(L) - (L->cols + L->rows + optinc_layer_mzis(L)
                                      + optinc_layer_attenuators(L));
    }
    cr_assert_gt(ends, 0, "the spec must exercise term points and screens");
    cr_assert_eq(svg_nodes(&f, "mixed_layers.svg"), c->n_layers);
    assert_dot_accepts(&f, "mixed_layers.dot");
    cr_assert(exists(&f, "mixed", "_layers.png"));

    /* PNG signature */
    char path[4400];
    snprintf(path, sizeof path, "%s/mixed_L1.png", f.out);
    size_t len = 0;
    char *png = tu_read_file(path, &len);
    cr_assert(png && len > 8 && !memcmp(png, "\x89PNG\r\n\x1a\n", 8));
    free(png);
    optinc_circuit_free(c);
    teardown_fixture(&f);
}

Test(draw, tooltips_carry_programmed_and_target_values)
{
    fixture f;
    setup_fixture(&f, spec_mixed);
    cr_assert_eq(draw(&f, "--format", "svg"), 0);
    char path[4400];
    snprintf(path, sizeof path, "%s/mixed_L1.svg", f.out);
    char *svg = tu_read_file(path, NULL);
    cr_assert_not_null(svg);
    /* quantized (bits: 8): programmed value, target and code */
    cr_assert_not_null(strstr(svg, "MZ_L1_V_c0_r0: modes 0,1; θ = "));
    cr_assert_not_null(strstr(svg, "(target "));
    cr_assert_not_null(strstr(svg, ", code "));
    cr_assert_not_null(strstr(svg, "AT_L1_r0: mode 0; att_dB = "));
    /* the screen under its netlist name, PS_<layer>_U_c<columns>_r<mode> (it
     * was PS_L1_U_m0 here while the netlist said PS_L1_U_c<n>_r0) */
    optinc_circuit *c = compile_spec(f.spec);
    const optinc_layer *L = &c->layers[0];
    char screen[96];
    snprintf(screen, sizeof screen, "PS_L1_U_c%d_r0: output phase screen, mode 0",
             L->stage[L->n_stages - 1].mesh->n_columns);
    cr_assert_eq(L->stage[L->n_stages - 1].tag, 'U');
    cr_assert_not_null(strstr(svg, screen), "%s", screen);
    optinc_circuit_free(c);
    cr_assert_not_null(strstr(svg, "<title>in0</title>"));
    cr_assert_not_null(strstr(svg, "<title>out5</title>"));
    free(svg);
    teardown_fixture(&f);
}

Test(draw, forty_modes_get_svg_detail_and_heat_map)
{
    fixture f;
    setup_fixture(&f, square_spec(40));
    optinc_circuit *c = compile_spec(f.spec);
    cr_assert_eq(optinc_draw_layer_modes(&c->layers[0]), 40);
    cr_assert_eq(draw(&f, "--format", "svg,png,dot"), 0);
    cr_assert(exists(&f, "sq40", "_L1.svg"));
    cr_assert(exists(&f, "sq40", "_L1.dot"));
    cr_assert_not(exists(&f, "sq40", "_L1.png"), "no full-detail PNG above 32 modes");
    cr_assert(exists(&f, "sq40", "_L1_overview.png"));
    cr_assert(exists(&f, "sq40", "_L1_overview.svg"));
    cr_assert_eq(svg_nodes(&f, "sq40_L1.svg"), expected_detail(&c->layers[0]));
    cr_assert_eq(svg_nodes(&f, "sq40_L1_overview.svg"), expected_overview(&c->layers[0]));
    cr_assert_eq(expected_overview(&c->layers[0]), 2 * 40 * 39 / 2 + 40);
    assert_dot_accepts(&f, "sq40_L1_overview.dot");
    assert_dot_accepts(&f, "sq40_L1.dot");
    optinc_circuit_free(c);
    teardown_fixture(&f);
}

Test(draw, beyond_128_modes_overview_only)
{
    fixture f;
    setup_fixture(&f, square_spec(130));
    cr_assert_eq(draw(&f, "--format", "svg"), 0);
    cr_assert_not(exists(&f, "sq130", "_L1.svg"));
    cr_assert(exists(&f, "sq130", "_L1_overview.svg"));
    cr_assert_eq(svg_nodes(&f, "sq130_L1_overview.svg"), 130 * 129 + 130);
    cr_assert_eq(tu_dir_count(f.out), 2);     /* overview + layer graph */
    teardown_fixture(&f);
}

Test(draw, overview_on_request_and_default_formats)
{
    fixture f;
    setup_fixture(&f, square_spec(8));
    cr_assert_eq(draw(&f, "--overview", NULL), 0);
    const char *want[] = {"_L1.svg", "_L1.png", "_L1_overview.svg", "_L1_overview.png",
                          "_layers.svg", "_layers.png"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert(exists(&f, "sq8", want[i]), "missing sq8%s", want[i]);
    cr_assert_eq(tu_dir_count(f.out), 6, "default formats are svg,png");
    teardown_fixture(&f);
}

/* Two runs of one build on one machine: every number in the files is
 * computed alike, so the bytes are the same. */
Test(draw, reruns_are_byte_identical)
{
    fixture f;
    setup_fixture(&f, spec_mixed);
    cr_assert_eq(draw(&f, "--format", "svg,dot"), 0);
    char first[4400];
    snprintf(first, sizeof first, "%s", f.out);
    snprintf(f.out, sizeof f.out, "%s/again", f.tmp);
    cr_assert_eq(draw(&f, "--format", "svg,dot"), 0);
    const char *names[] = {"mixed_L2.svg", "mixed_L2.dot", "mixed_layers.svg"};
    for (int i = 0; i < 3; i++)
        assert_same_file(first, f.out, names[i]);
    teardown_fixture(&f);
}

/* A netlist rebuilds the circuit (its numbers are shortest round-trip text
 * of the compiled ones, the same bits), so its layer drawings are the
 * spec's, byte for byte. */
Test(draw, netlist_draws_like_its_spec)
{
    fixture f;
    setup_fixture(&f, spec_mixed);
    char net[4400], net_out[4400], name[64];
    snprintf(net, sizeof net, "%s/mixed.pnl.sp", f.tmp);
    snprintf(net_out, sizeof net_out, "%s/from_netlist", f.tmp);
    const char *compile[] = {"compile", f.spec, "-o", net, "--quiet", NULL};
    const char *draw_net[] = {"draw", net, "-o", net_out, "--format", "svg,dot", NULL};
    tu_run r = tu_optinc(compile);
    cr_assert_eq(r.status, 0, "%s", r.err);
    tu_run_free(&r);
    r = tu_optinc(draw_net);
    cr_assert_eq(r.status, 0, "%s", r.err);
    tu_run_free(&r);
    cr_assert_eq(draw(&f, "--format", "svg,dot"), 0);
    for (int i = 1; i <= 5; i++)
        for (int k = 0; k < 2; k++) {
            snprintf(name, sizeof name, "mixed_L%d.%s", i, k ? "dot" : "svg");
            assert_same_file(f.out, net_out, name);
        }
    cr_assert_eq(svg_nodes(&f, "mixed_layers.svg"), 5);    /* one node per layer */
    teardown_fixture(&f);
}

Test(draw, bad_format_exits_2_and_writes_nothing)
{
    fixture f;
    setup_fixture(&f, spec_mixed);
    const char *bad[] = {"svg,jpg", "", "svg,,png", "SVG", "png,"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[] = {"draw", f.spec, "-o", f.out, "--format", bad[i], NULL};
        tu_run r = tu_optinc(args);
        cr_assert_eq(r.status, 2, "--format '%s'", bad[i]);
        cr_assert_not_null(strstr(r.err, "unknown drawing format"), "%s", r.err);
        tu_run_free(&r);
        cr_assert_eq(tu_dir_count(f.out), -1, "--format '%s' created the directory", bad[i]);
    }
    const char *missing_o[] = {"draw", f.spec, NULL};
    tu_run r = tu_optinc(missing_o);
    cr_assert_eq(r.status, 2);
    tu_run_free(&r);
    const char *help[] = {"draw", "--help", NULL};
    r = tu_optinc(help);
    cr_assert_eq(r.status, 0);
    cr_assert_not_null(strstr(r.out, "--format"));
    tu_run_free(&r);
    teardown_fixture(&f);
}

Test(draw, parse_formats)
{
    unsigned m = 0;
    optinc_error err;
    cr_assert_eq(optinc_draw_parse_formats("svg", &m, &err), OPTINC_OK);
    cr_assert_eq(m, OPTINC_DRAW_SVG);
    cr_assert_eq(optinc_draw_parse_formats("dot,svg,dot", &m, &err), OPTINC_OK);
    cr_assert_eq(m, OPTINC_DRAW_SVG | OPTINC_DRAW_DOT);
    cr_assert_eq(optinc_draw_parse_formats("png", &m, &err), OPTINC_OK);
    cr_assert_eq(m, OPTINC_DRAW_PNG);
    cr_assert_eq(optinc_draw_parse_formats("svg,gif", &m, &err), OPTINC_EINPUT);
    cr_assert_not_null(strstr(err.message, "'gif'"));
}

Test(draw, output_dir_that_is_a_file_is_an_error)
{
    fixture f;
    setup_fixture(&f, square_spec(4));
    snprintf(f.out, sizeof f.out, "%s", f.spec);      /* a file, not a directory */
    const char *args[] = {"draw", f.spec, "-o", f.out, NULL};
    tu_run r = tu_optinc(args);
    cr_assert_eq(r.status, 2);
    cr_assert_not_null(strstr(r.err, "not a directory"), "%s", r.err);
    tu_run_free(&r);
    teardown_fixture(&f);
}

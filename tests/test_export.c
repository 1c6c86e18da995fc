/*
 * test_export.c - the export table, its errors and its determinism
 * (optinc-export(1)), and the layout: table of the spec (optinc-spec(5)).
 * The exports' contents are checked against the circuit by
 * python/tests/test_export.py.
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "optinc/export.h"
#include "optinc/netlist.h"
#include "optinc/spec.h"
#include "testutil.h"

#define ARGS(...) ((const char *[]){__VA_ARGS__, NULL})

static optinc_status parse_spec(const char *text, optinc_spec **spec, optinc_error *err)
{
    optinc_input in = {"t.yaml", text, strlen(text)};
    return optinc_spec_parse(&in, NULL, spec, err);
}

#define BASE "schema_version: 1\nname: t\nmatrices:\n  W: {shape: [3, 3], dtype: complex, " \
             "generate: {kind: gaussian, seed: 2}}\nlayers:\n  - {name: L1, matrix: W}\n"

Test(export, table_finds_every_format)
{
    int n = 0;
    for (const optinc_export_format *f = optinc_export_formats; f->name; f++, n++) {
        cr_expect_eq(optinc_export_format_find(f->name), f);
        cr_expect_eq(f->extension[0], '.');
        cr_expect_not_null(f->write);
    }
    cr_expect_geq(n, 3);
    cr_expect_null(optinc_export_format_find("spice"));
    cr_expect_null(optinc_export_format_find(NULL));
}

Test(export, layout_table_is_read_and_checked)
{
    optinc_spec *spec = NULL;
    optinc_error err = {0};
    cr_assert_eq(parse_spec(BASE "layout: {column_pitch_um: 300, mode_pitch_um: 50.5}\n", &spec,
                            &err), OPTINC_OK, "%s", err.message);
    /* parsed decimals: the same doubles as the literals */
    cr_expect_eq(spec->layout.column_pitch_um, 300);
    cr_expect_eq(spec->layout.mode_pitch_um, 50.5);
    cr_expect_eq(spec->layout.mzi_length_um, OPTINC_LAYOUT_MZI_LENGTH_UM);
    optinc_spec_free(spec);
    spec = NULL;
    cr_expect_eq(parse_spec(BASE "layout: {mode_pitch_um: 0}\n", &spec, &err), OPTINC_EINPUT);
    cr_expect_eq(err.line, 7);
    cr_expect_eq(err.column, 25);
    cr_expect_eq(parse_spec(BASE "layout:\n  column_pitch_um: 100\n  mzi_length_um: 150\n",
                            &spec, &err), OPTINC_EINPUT);
    cr_expect_eq(err.line, 9, "at mzi_length_um, not line %d", err.line);
    cr_expect(strstr(err.message, "column_pitch_um"));
    cr_expect_eq(parse_spec(BASE "layout: {pitch: 1}\n", &spec, &err), OPTINC_EINPUT);
    cr_expect_null(spec);
}

Test(export, every_format_is_deterministic_and_atomic, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    optinc_spec *spec = NULL;
    optinc_circuit *c = NULL;
    optinc_error err = {0};
    optinc_layout layout = OPTINC_LAYOUT_DEFAULT;
    cr_assert_eq(parse_spec(BASE, &spec, &err), OPTINC_OK, "%s", err.message);
    cr_assert_eq(optinc_compile(spec, &c, &err), OPTINC_OK, "%s", err.message);
    const char *dir = tu_scratch_dir();
    for (const optinc_export_format *f = optinc_export_formats; f->name; f++) {
        char a[256], b[256];
        snprintf(a, sizeof a, "%s/a%s", dir, f->extension);
        snprintf(b, sizeof b, "%s/b%s", dir, f->extension);
        cr_assert_eq(f->write(c, &layout, a, &err), OPTINC_OK, "%s: %s", f->name, err.message);
        cr_assert_eq(f->write(c, &layout, b, &err), OPTINC_OK, "%s: %s", f->name, err.message);
        size_t na = 0, nb = 0;
        char *sa = tu_read_file(a, &na), *sb = tu_read_file(b, &nb);
        cr_assert(sa && sb);
        cr_expect_gt(na, 0);
        /* two writes of one circuit in one process: the same numbers, so the
         * same bytes; b's bytes differ only where they name b's companions */
        if (!strcmp(f->name, "interconnect"))
            for (char *p = sb; (p = strstr(p, "\"b")); p++)
                p[1] = 'a';
        cr_expect(na == nb && !memcmp(sa, sb, na), "%s is not deterministic", f->name);
        free(sa);
        free(sb);
        char nested[300];
        snprintf(nested, sizeof nested, "%s/no/such/dir/x%s", dir, f->extension);
        cr_expect_neq(f->write(c, &layout, nested, &err), OPTINC_OK);
    }
    optinc_circuit_free(c);
    optinc_spec_free(spec);
}

Test(export, model_map_is_read_with_positions)
{
    optinc_interconnect_map m;
    optinc_error err = {0};
    optinc_interconnect_map_defaults(&m);
    const char *text = "# mine\nmzi my_mzi Design kits/my pdk  # a comment\n\nps my_ps lib\n";
    optinc_input in = {"m.map", text, strlen(text)};
    cr_assert_eq(optinc_interconnect_map_parse(&in, &m, &err), OPTINC_OK, "%s", err.message);
    cr_expect_str_eq(m.model[OPTINC_CARD_MZI], "my_mzi");
    cr_expect_str_eq(m.library[OPTINC_CARD_MZI], "Design kits/my pdk");
    cr_expect_str_eq(m.model[OPTINC_CARD_PS], "my_ps");
    cr_expect_str_eq(m.model[OPTINC_CARD_TERM], "ebeam_terminator_te1550");
    const char *bad = "mzi a b\nwaveguide x y\n";
    optinc_input in2 = {"m.map", bad, strlen(bad)};
    cr_expect_eq(optinc_interconnect_map_parse(&in2, &m, &err), OPTINC_EINPUT);
    cr_expect_eq(err.line, 2);
    cr_expect_eq(err.column, 1);
    const char *short_line = "mzi a\n";
    optinc_input in3 = {"m.map", short_line, strlen(short_line)};
    cr_expect_eq(optinc_interconnect_map_parse(&in3, &m, &err), OPTINC_EINPUT);
}

/* The command's usage errors and the outputs it refuses, each with status 2
 * and nothing written. */
Test(export, command_refuses_bad_usage, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    char out[4400], map[4400];
    snprintf(out, sizeof out, "%s", tu_scratch("x.spi"));
    snprintf(map, sizeof map, "%s", tu_scratch("m.map"));
    cr_assert_eq(tu_write_file(map, "mzi m\n"), 0);
    struct {
        const char *const *args;
        const char *message;
    } cases[] = {
        {ARGS("export", "specs/real4.yaml", "-o", out), "missing --format"},
        {ARGS("export", "specs/real4.yaml", "--format", "spice", "-o", out), "spice"},
        {ARGS("export", "specs/real4.yaml", "--format", "sax"), "missing -o"},
        {ARGS("export", "specs/real4.yaml", "--format", "sax", "-o", out, "--model-map", map),
         "--format interconnect"},
        {ARGS("export", "specs/real4.yaml", "--format", "interconnect", "-o", out,
              "--model-map", map), "m.map:1:1: error:"},
        {ARGS("export", "specs/real4.yaml", "--format", "interconnect", "-o",
              tu_scratch("x.lsf")), "companion"},
        {ARGS("export", "specs/real4.yaml", "--format", "gdsfactory", "-o", "specs/real4.yaml"),
         "this run reads"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = tu_optinc(cases[i].args);
        cr_expect_eq(r.status, 2, "case %zu: status %d", i, r.status);
        cr_expect(strstr(r.err, cases[i].message), "case %zu: %s", i, r.err);
        tu_run_free(&r);
    }
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), 1, "only the map is there");
}

/* A spec of one 2x2 layer L1 named name, in the scratch folder. */
static const char *named_spec(const char *name)
{
    static char path[4400];
    char text[512];
    snprintf(path, sizeof path, "%s", tu_scratch("named.yaml"));
    snprintf(text, sizeof text, "schema_version: 1\nname: '%s'\nsettings: {seed: 1}\nmatrices:\n"
             "  W1: {shape: [2, 2], dtype: real, generate: {kind: gaussian, seed: 1}}\n"
             "layers:\n  - {name: L1, matrix: W1}\n", name);
    cr_assert_eq(tu_write_file(path, text), 0);
    return path;
}

/* Issue 39's names: a circuit named as a model or as a cell the export
 * writes is refused (SAX would take its top netlist for the model, JSON
 * would hold one key twice, INTERCONNECT two .subckt of one name); a name
 * YAML reads as null or a boolean is quoted; an output name or a model-map
 * library that would break a line is refused.  Each refusal is status 2
 * with nothing written. */
Test(export, names_cannot_collide_or_inject, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    struct {
        const char *name, *format, *out, *message;
    } refused[] = {
        {"gain", "sax", "x.json", "is also the name of a model"},
        {"mzi", "sax", "x.json", "is also the name of a model"},
        {"layer_L1", "sax", "x.json", "is also the name of a model"},
        {"layer_L1", "interconnect", "x.spi", "is also the name of a model"},
        {"stage_L1_V", "interconnect", "x.spi", "is also the name of a model"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char out[4400];
        snprintf(out, sizeof out, "%s", tu_scratch(refused[i].out));
        tu_run r = tu_optinc(ARGS("export", named_spec(refused[i].name), "--format",
                                  refused[i].format, "-o", out));
        cr_expect_eq(r.status, 2, "%s: status %d", refused[i].name, r.status);
        cr_expect(r.err && strstr(r.err, refused[i].message), "%s: %s", refused[i].name, r.err);
        cr_expect_eq(tu_dir_count(tu_scratch_dir()), 1, "%s: only the spec", refused[i].name);
        tu_run_free(&r);
    }
    static const char *const yaml_words[] = {"null", "off", "yes", "True"};
    for (size_t i = 0; i < sizeof yaml_words / sizeof yaml_words[0]; i++) {
        char out[4400], want[64];
        snprintf(out, sizeof out, "%s", tu_scratch("x.yml"));
        tu_run r = tu_optinc(ARGS("export", named_spec(yaml_words[i]), "--format", "gdsfactory",
                                  "-o", out));
        cr_expect_eq(r.status, 0, "%s: %s", yaml_words[i], r.err);
        tu_run_free(&r);
        char *y = tu_read_file(out, NULL);
        snprintf(want, sizeof want, "name: '%s'\n", yaml_words[i]);
        cr_expect(y && strstr(y, want), "%s: not quoted", yaml_words[i]);
        free(y);
    }
    char out[4400], map[4400];
    snprintf(out, sizeof out, "%s", tu_scratch("a\nb.spi"));
    tu_run r = tu_optinc(ARGS("export", "specs/real4.yaml", "--format", "interconnect", "-o", out));
    cr_expect_eq(r.status, 2);
    cr_expect(r.err && strstr(r.err, "control character"), "%s", r.err);
    tu_run_free(&r);
    snprintf(out, sizeof out, "%s", tu_scratch("x.spi"));
    snprintf(map, sizeof map, "%s", tu_scratch("vt.map"));
    cr_assert_eq(tu_write_file(map, "ps my_ps lib\nmzi my_mzi Design\vkits\n"), 0);
    r = tu_optinc(ARGS("export", "specs/real4.yaml", "--format", "interconnect", "-o", out,
                       "--model-map", map));
    cr_expect_eq(r.status, 2);
    cr_expect(r.err && strstr(r.err, "vt.map:2:12: error:"), "%s", r.err);
    tu_run_free(&r);
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), 3, "the spec, the map, the YAML");
}

/* YAML 1.1's booleans and null (yaml.org/type/bool.html, /null.html): a
 * plain scalar spelt so is read as no string by a YAML 1.1 reader. */
static int yaml11_word(const char *s)
{
    static const char *const words[] = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
                                        "true", "True", "TRUE", "false", "False", "FALSE", "on",
                                        "On", "ON", "off", "Off", "OFF", "~", "null", "Null",
                                        "NULL", ""};
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        if (!strcmp(s, words[k]))
            return 1;
    return 0;
}

/* The gdsfactory export of src, parsed and emitted again by libyaml with
 * every scalar's style left to the emitter (plain where it allows plain,
 * quoted as it quotes; a quoted scalar stays quoted), is the same bytes:
 * the export writes most of its text directly (gdsfactory.c), and this is
 * the proof that each directly written token is what libyaml would write.
 * No plain scalar is a YAML 1.1 boolean or null word.  Returns the file. */
static char *gdsfactory_as_libyaml(const char *src)
{
    char out[4400];
    size_t len = 0, again_len = 0;
    snprintf(out, sizeof out, "%s", tu_scratch("gf.yml"));
    tu_run r = tu_optinc(ARGS("export", src, "--format", "gdsfactory", "-o", out));
    cr_assert_eq(r.status, 0, "%s: %s", src, r.err);
    tu_run_free(&r);
    char *text = tu_read_file(out, &len), *again = NULL;
    cr_assert_not_null(text);
    FILE *mem = open_memstream(&again, &again_len);
    yaml_parser_t parser;
    yaml_emitter_t em;
    yaml_event_t ev;
    cr_assert(mem && yaml_parser_initialize(&parser) && yaml_emitter_initialize(&em));
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    yaml_emitter_set_output_file(&em, mem);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, -1);
    int ok = 1, done = 0, plain_words = 0;
    while (ok && !done && (ok = yaml_parser_parse(&parser, &ev))) {
        done = ev.type == YAML_STREAM_END_EVENT;
        if (ev.type == YAML_SCALAR_EVENT) {
            plain_words += ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE
                           && yaml11_word((const char *)ev.data.scalar.value);
            ev.data.scalar.style = YAML_ANY_SCALAR_STYLE;
            ev.data.scalar.quoted_implicit = 1;
        }
        ok = yaml_emitter_emit(&em, &ev);
    }
    cr_expect(ok && done, "%s: %s", src, parser.problem ? parser.problem : "emitter failed");
    yaml_parser_delete(&parser);
    yaml_emitter_delete(&em);
    fclose(mem);
    cr_expect_eq(plain_words, 0, "%s: a plain YAML 1.1 boolean or null", src);
    cr_expect(again_len == len && !memcmp(again, text, len), "%s: not as libyaml writes it",
              src);
    free(again);
    return text;
}

/* Every shipped netlist, and names that YAML reads as null or booleans for
 * the circuit and its layers, with a layer name as long as a name may be
 * (63 bytes: the longest instance names and links). */
Test(export, gdsfactory_writes_what_libyaml_writes, .init = tu_scratch_init,
     .fini = tu_scratch_fini, .timeout = 120)
{
    glob_t nets;
    cr_assert_eq(glob("netlists/*.pnl.sp", 0, NULL, &nets), 0);
    for (size_t k = 0; k < nets.gl_pathc; k++)
        free(gdsfactory_as_libyaml(nets.gl_pathv[k]));
    cr_expect_geq(nets.gl_pathc, 7);
    globfree(&nets);
    char spec[4400], text[1024], longest[64];
    memset(longest, 'L', 63);
    longest[63] = '\0';
    snprintf(spec, sizeof spec, "%s", tu_scratch("words.yaml"));
    snprintf(text, sizeof text, "schema_version: 1\nname: 'off'\nsettings: {seed: 1}\n"
             "matrices:\n  W: {shape: [2, 2], dtype: real, generate: {kind: gaussian, seed: 1}}\n"
             "layers:\n  - {name: 'null', matrix: W}\n  - {name: 'y', matrix: W}\n"
             "  - {name: %s, matrix: W}\n", longest);
    cr_assert_eq(tu_write_file(spec, text), 0);
    char *y = gdsfactory_as_libyaml(spec);
    static const char *const quoted[] = {"name: 'off'\n", "\n    'null': {", "\n    'y': {",
                                         "\n  layer_null:\n", "\n  MZ_y_V_c0_r0: {"};
    for (size_t k = 0; k < sizeof quoted / sizeof quoted[0]; k++)
        cr_expect(strstr(y, quoted[k]), "no %s", quoted[k]);
    free(y);
    /* one mode: a layer with no waveguide inside, its bundle's links {} */
    cr_assert_eq(tu_write_file(spec, "schema_version: 1\nname: 'True'\nmatrices:\n  W: {shape: "
                                     "[1, 1], dtype: real, generate: {kind: gaussian, seed: 1}}\n"
                                     "layers:\n  - {name: 'N', matrix: W, attenuators: none}\n"),
                 0);
    y = gdsfactory_as_libyaml(spec);
    cr_expect(strstr(y, "\n  layer_N:\n    links: {}\n"), "%s", y);
    free(y);
}

/*
 * cmd_export.c - `optinc export NET.sp|SPEC --format FORMAT -o OUT`: the
 * compiled circuit in the format of another tool (optinc-export(1)), one
 * entry of the library's format table.  A spec places elements on its
 * layout: table, a netlist (which has none) on the defaults.
 */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "optinc/circuit.h"
#include "optinc/export.h"
#include "optinc/netlist.h"
#include "optinc/spec.h"

/* What --help says besides the options. */
static const cli_cmd export_cmd = {"export", "NET.sp|SPEC", NULL,
    "Writes a compiled circuit for another tool: a SAX netlist and its "
    "models, a gdsfactory\nYAML netlist, a Lumerical INTERCONNECT "
    "netlist or a GDSII layout."};

#define FORMATS_MAX 16

/* The circuit at path and the layout it is placed on. */
static optinc_status load(const char *path, optinc_circuit **c, optinc_layout *layout,
                          optinc_error *err)
{
    *layout = (optinc_layout)OPTINC_LAYOUT_DEFAULT;
    if (!optinc_path_is_spec(path))
        return optinc_netlist_read(path, cli_read_opts(), c, err);
    optinc_spec *spec = NULL;
    optinc_status st = optinc_spec_load(path, cli_read_opts(), &spec, err);
    if (!st) {
        *layout = spec->layout;
        st = optinc_compile(spec, c, err);
    }
    optinc_spec_free(spec);
    return st;
}

static optinc_status read_map(const char *path, optinc_interconnect_map *map, optinc_error *err)
{
    optinc_blob b;
    optinc_status st = optinc_blob_read(path, 1 << 20, "model map", &b, err);
    if (st)
        return st;
    optinc_input in = optinc_blob_input(&b);
    st = optinc_interconnect_map_parse(&in, map, err);
    optinc_blob_free(&b);
    return st;
}

int cmd_export(int argc, char **argv)
{
    static const char *words[FORMATS_MAX + 1];
    int n = 0, format = 0;
    for (; optinc_export_formats[n].name && n < FORMATS_MAX; n++)
        words[n] = optinc_export_formats[n].name;
    const char *output = NULL, *map_path = NULL, *operand[CLI_MAX_OPERANDS];
    const cli_opt opts[] = {
        {"format", 0, CLI_ENUM, CLI_DST(int, &format), NULL, "the format to write",
         .words = words, .flags = CLI_REQUIRED, .what = "the format to write", .dflt = ""},
        CLI_OPT_OUTPUT(&output, "OUT", CLI_REQUIRED, "the file to write",
                       "write the export there (its companion files beside it)"),
        CLI_OPT_STRING("model-map", 0, &map_path, "FILE",
                       "the INTERCONNECT models of the cards (--format interconnect)"),
        CLI_OPT_END};
    int rc = cli_parse(&export_cmd, opts, argc, argv, operand);
    if (rc >= 0)
        return rc;
    const optinc_export_format *fmt = &optinc_export_formats[format];
    int interconnect = fmt->write == optinc_export_interconnect;
    if (map_path && !interconnect)
        return cli_usage_error("export", "--model-map names INTERCONNECT models; it goes with "
                               "--format interconnect, not %s", fmt->name);

    optinc_error err = {0};
    optinc_circuit *c = NULL;
    optinc_layout layout;
    optinc_interconnect_map map;
    optinc_interconnect_map_defaults(&map);
    cli_input(operand[0], optinc_path_is_spec(operand[0]) ? "spec" : "netlist");
    cli_input(map_path, "model map");
    optinc_status st = load(operand[0], &c, &layout, &err);
    if (!st && map_path)
        st = read_map(map_path, &map, &err);
    /* the main output and its companions, none of which may be an input */
    char names[FORMATS_MAX][1100];
    const char *outputs[FORMATS_MAX] = {output};
    int n_out = 1;
    for (int k = 0; !st && fmt->companions && fmt->companions[k] && n_out < FORMATS_MAX; k++) {
        st = optinc_export_companion(output, fmt->companions[k], names[n_out], sizeof names[0],
                                     &err);
        outputs[n_out] = names[n_out];
        n_out++;
    }
    if (!st)
        st = cli_check_outputs(outputs, n_out, &err);
    if (!st)
        st = interconnect ? optinc_export_interconnect_mapped(c, &layout, &map, output, &err)
                          : fmt->write(c, &layout, output, &err);
    optinc_circuit_free(c);
    return st ? cli_report(&export_cmd, &err, st) : 0;
}

/*
 * cmd_export.c - `optinc export NET.sp|SPEC --format FORMAT -o OUT`: the
 * compiled circuit in the format of another tool (optinc-export(1)), one
 * entry of the library's format table.  A spec places elements on its
 * layout: table, a netlist (which has none) on the defaults.  One format
 * more, `drive`, is the runtime's, not the compiler's: the DAC codes of the
 * heaters of one measured chip (--calibration), chosen by the per-chip
 * recompilation (optinc-drive(5)).
 */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "optinc/calibration.h"
#include "optinc/circuit.h"
#include "optinc/export.h"
#include "optinc/netlist.h"
#include "optinc/onn.h"
#include "optinc/spec.h"

/* What --help says besides the options. */
static const cli_cmd export_cmd = {"export", "NET.sp|SPEC", NULL,
    "Writes a compiled circuit for another tool: a SAX netlist and its "
    "models, a gdsfactory\nYAML netlist, a Lumerical INTERCONNECT "
    "netlist, a GDSII layout, or the\nDAC codes of a measured chip's heaters "
    "(--format drive)."};

#define FORMATS_MAX 16
#define DRIVE_FORMAT "drive"

/* What --format drive reads besides the circuit. */
typedef struct drive_args {
    const char *calibration, *chip_path;
    int bits, bits_given, chip_given;
    uint64_t seed;
} drive_args;

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

/* The chip a lab measured, as its copy: c's drivers on the components of
 * the chip file (or c's own) with --bits phase-driver codes, the measured
 * couplers, the design's crosstalk. */
static optinc_status measured_chip(optinc_circuit *c, const drive_args *a,
                                   const optinc_calibration *meas, optinc_chip **chip,
                                   optinc_error *err)
{
    optinc_chip_spec spec;
    optinc_status st = OPTINC_OK;
    if (a->chip_given) {
        cli_input(a->chip_path, "chip file");
        st = optinc_chip_spec_load(a->chip_path, cli_read_opts(), &spec, err);
    }
    for (int l = 0; !st && l < c->n_layers; l++) {
        if (a->chip_given)
            c->layers[l].components = spec.components;
        if (a->bits_given)
            c->layers[l].components.phase_shifter.bits = a->bits;
        if (c->layers[l].components.phase_shifter.bits <= 0)
            st = optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                             "layer '%s' has continuous phase drivers, which have no DAC "
                             "codes; give their resolution with --bits B", c->layers[l].name);
    }
    optinc_chip_options o;
    optinc_chip_options_default(&o);
    o.models = OPTINC_DEV_COUPLER | OPTINC_DEV_CROSSTALK | OPTINC_DEV_EXTINCTION;
    o.couplers = meas;
    o.drive_targets = OPTINC_DRIVE_REQUANTIZE;
    return st ? st : optinc_chip_new(c, &o, a->seed, chip, err);
}

/* --format drive: the codes the recompilation of the measured chip
 * chooses, against the ONN's P outputs for an ONN (as `onn verify
 * --calibrate`), else against every layer's matrix. */
static optinc_status export_drive(const char *path, const drive_args *a, const char *output,
                                  optinc_error *err)
{
    optinc_circuit *c = NULL;
    optinc_onn_meta m;
    optinc_calibration *meas = NULL;
    optinc_chip *chip = NULL;
    optinc_status st = optinc_circuit_load(path, cli_read_opts(), &c, err);
    if (!st && c->onn.present) {
        optinc_circuit_free(c);
        c = NULL;
        st = optinc_onn_load(path, cli_read_opts(), &c, &m, err);
    }
    if (!st)
        st = optinc_calibration_read(a->calibration, c, cli_read_opts(), &meas, err);
    if (!st)
        st = cli_check_outputs(&output, 1, err);
    if (!st)
        st = measured_chip(c, a, meas, &chip, err);
    if (!st)
        st = c->onn.present ? optinc_onn_recompile(chip, c, &m, meas, a->seed, err)
                            : optinc_chip_recompile(chip, meas, NULL, err);
    if (!st)
        st = optinc_drive_codes_write(chip, meas, output, err);
    optinc_chip_free(chip);
    optinc_calibration_free(meas);
    optinc_circuit_free(c);
    return st;
}

int cmd_export(int argc, char **argv)
{
    static const char *words[FORMATS_MAX + 1];
    int n = 0, format = 0;
    for (; optinc_export_formats[n].name && n < FORMATS_MAX - 1; n++)
        words[n] = optinc_export_formats[n].name;
    words[n] = DRIVE_FORMAT;
    drive_args drive = {.seed = 1};
    const char *output = NULL, *map_path = NULL, *operand[CLI_MAX_OPERANDS];
    const cli_opt opts[] = {
        {"format", 0, CLI_ENUM, CLI_DST(int, &format), NULL, "the format to write",
         .words = words, .flags = CLI_REQUIRED, .what = "the format to write", .dflt = ""},
        CLI_OPT_OUTPUT(&output, "OUT", CLI_REQUIRED, "the file to write",
                       "write the export there (its companion files beside it)"),
        CLI_OPT_STRING("model-map", 0, &map_path, "FILE",
                       "the INTERCONNECT models of the cards (--format interconnect)"),
        CLI_OPT_GROUP("The drive codes of a measured chip (--format drive):"),
        CLI_OPT_CALIBRATION(&drive.calibration, "the chip's measurement"),
        {"bits", 0, CLI_INT, CLI_DST(int, &drive.bits), "B", "the phase drivers' DAC bits",
         .min = 1, .max = 24, .given = &drive.bits_given, .dflt = "the chip's"},
        CLI_OPT_CHIP(&drive.chip_path, &drive.chip_given,
                     "the chip's components (crosstalk, driver range) instead of the circuit's"),
        CLI_OPT_CHIP_SEED(&drive.seed, NULL, "1",
                          "seed of the ONN's sample of P outputs (as onn verify's)"),
        CLI_OPT_END};
    int rc = cli_parse(&export_cmd, opts, argc, argv, operand);
    if (rc >= 0)
        return rc;
    int is_drive = format == n;
    if (is_drive != (drive.calibration != NULL))
        return cli_usage_error("export", is_drive ? "--format drive writes the codes of a "
                               "measured chip; give its measurement with --calibration FILE"
                               : "--calibration goes with --format drive");
    if (!is_drive && (drive.bits_given || drive.chip_given))
        return cli_usage_error("export", "--bits and --chip go with --format drive");
    if (is_drive) {
        optinc_error err = {0};
        cli_input(operand[0], optinc_path_is_spec(operand[0]) ? "spec" : "netlist");
        cli_input(drive.calibration, "calibration file");
        optinc_status st = export_drive(operand[0], &drive, output, &err);
        return st ? cli_report(&export_cmd, &err, st) : 0;
    }
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

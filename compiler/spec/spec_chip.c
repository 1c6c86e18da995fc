/*
 * spec_chip.c - the chip file (optinc-onn(1), CHIP FILES): the hardware of
 * one chip, given apart from any circuit, so that a compiled netlist can be
 * evaluated on chips other than the one it was compiled for.
 *
 * A chip file is a YAML mapping with a `components:` table, read by the
 * spec's own components reader from the spec's own defaults (one schema, one
 * set of checks), and an optional `calibration:` table that says how
 * accurately a lab measures each chip.  It goes through the same document
 * reader as a spec, with the same limits on the YAML, and every mistake comes
 * back at its FILE:LINE:COL.  The file is small by nature, so it is refused
 * above OPTINC_CHIP_SPEC_FILE_MAX bytes before it is parsed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/spec/spec_internal.h"

#define OPTINC_CHIP_SPEC_FILE_MAX (1L << 20)

typedef struct chip_walk {
    ctx c;
    optinc_chip_spec *chip;
} chip_walk;

static optinc_status parse_calibration(ctx *c, yaml_node_t *n, optinc_chip_spec *chip)
{
    static const field fields[] = {
        {"phase_sigma_rad", 'd', offsetof(optinc_chip_spec, calibration.phase_sigma_rad), 0,
         OPTINC_SIGMA_RAD_MAX, 0, 0, "(the standard deviation of a measured phase offset's "
         "error, at most 2*pi: beyond it the phase is uniform anyway)"},
        {"splitter_sigma", 'd', offsetof(optinc_chip_spec, calibration.splitter_sigma), 0,
         OPTINC_SPLITTER_SIGMA_MAX, 0, 0, "(the standard deviation of a measured coupler "
         "splitting's error; a splitting lies in [0, 1])"},
        FIELDS_END};
    static const char *const keys[] = {"phase_sigma_rad", "splitter_sigma", NULL};
    optinc_status st = optinc_spec_check_map(c, n, "calibration", keys);
    if (!st)
        st = optinc_spec_read_fields(c, n, "calibration", fields, chip);
    if (!st) {
        chip->calibration.given = 1;
        chip->calibration.line = (int)n->start_mark.line + 1;
        chip->calibration.column = (int)n->start_mark.column + 1;
    }
    return st;
}

static optinc_status walk_chip(ctx *c, yaml_node_t *root)
{
    static const char *const keys[] = {"components", "calibration", NULL};
    optinc_chip_spec *chip = ((chip_walk *)c)->chip;
    if (!root)
        return optinc_fail(c->err, OPTINC_EINPUT, c->path, 1, 1, "the chip file is empty; it "
                           "must be a mapping with a 'components:' table (see optinc-onn(1), "
                           "CHIP FILES)");
    optinc_status st;
    yaml_node_t *v;
    if ((st = optinc_spec_want_map(c, root, "the chip file")) ||
        (st = optinc_spec_check_map(c, root, "the chip file", keys)) ||
        (st = optinc_spec_require(c, root, "components", "the chip file",
                                  "add a 'components:' table (the spec's schema, e.g. "
                                  "'components: {phase_shifter: {bits: 12}}')", &v)) ||
        (st = optinc_spec_want_map(c, v, "components")) ||
        (st = optinc_spec_components_over(c, v, "", &chip->components)))
        return st;
    if ((v = optinc_spec_get(c, root, "calibration")))
        st = parse_calibration(c, v, chip);
    return st;
}

optinc_status optinc_chip_spec_parse(const optinc_input *in, const optinc_read_opts *opts,
                                     optinc_chip_spec *out, optinc_error *err)
{
    memset(out, 0, sizeof *out);
    if (strlen(in->name) >= sizeof out->path)
        return optinc_fail(err, OPTINC_EINPUT, in->name, 0, 0, "chip file path is longer than "
                           "%zu bytes; use a shorter path", sizeof out->path - 1);
    optinc_status st = optinc_input_size_check(in->name, "chip file", in->len,
                                               OPTINC_CHIP_SPEC_FILE_MAX,
                                               optinc_read_limits(opts), err);
    if (st)
        return st;
    strcpy(out->path, in->name);
    optinc_components_defaults(&out->components);
    chip_walk w = {{out->path, NULL, err, NULL, 0, optinc_read_limits(opts), opts}, out};
    if ((st = optinc_spec_load_document(&w.c, in->data, in->len, walk_chip))) {
        memset(out, 0, sizeof *out);
        return st;
    }
    return OPTINC_OK;
}

static optinc_status parse_into(const optinc_input *in, const optinc_read_opts *opts, void *out,
                                optinc_error *err)
{
    return optinc_chip_spec_parse(in, opts, out, err);
}

optinc_status optinc_chip_spec_load(const char *path, const optinc_read_opts *opts,
                                    optinc_chip_spec *out, optinc_error *err)
{
    memset(out, 0, sizeof *out);
    return optinc_read_whole(path, OPTINC_CHIP_SPEC_FILE_MAX, opts, "chip file", parse_into, out,
                             err);
}

optinc_status optinc_chip_spec_open(const char *path, const optinc_read_opts *opts,
                                    optinc_chip_spec **out, optinc_error *err)
{
    optinc_chip_spec *chip = malloc(sizeof *chip);
    *out = NULL;
    if (!chip)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    optinc_status st = optinc_chip_spec_load(path, opts, chip, err);
    if (st)
        free(chip);
    else
        *out = chip;
    return st;
}

void optinc_chip_spec_free(optinc_chip_spec *chip)
{
    free(chip);
}

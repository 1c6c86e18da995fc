/*
 * spec_components.c - the settings:, info: and components: sections of a
 * spec (optinc-spec(5)).
 *
 * The components table is read by the same code for the global defaults
 * and for a layer's overrides, which start from a copy of the global table
 * (that copy is the merge), so a layer carries the complete set of device
 * parameters in force for it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/spec/spec_internal.h"

/* ATT_STEP_DB_MAX: one code of a quantized attenuator (optinc_att_program):
 * a step beyond a device's largest loss leaves its codes nothing to set
 * between on and off.  The other bounds are optinc/spec.h's. */
#define ATT_STEP_DB_MAX OPTINC_LOSS_DB_MAX
#define LOSS_HINT "(a loss in dB, at most 100: a device losing more passes less than 1e-10 " \
                  "of the power)"
#define SIGMA_HINT "(a standard deviation in rad, at most 2*pi: beyond it the phase is " \
                   "uniform anyway)"

/* The components table (spec.h): the spec's sections in their order, each
 * key with its range, bounds the spec excludes excluded (thermal_crosstalk
 * < 0.5, max_attenuation_dB and responsivity_A_W > 0); the upper bounds are
 * optinc/spec.h's.  The netlist writes and reads these rows as they are
 * (test_netlist.c holds the spec loader and the netlist reader to them). */
#define CF(f) offsetof(optinc_components, f)
#define ROW(sec, key, f, type, lo, hi, lo_open, hi_open, hint) \
    {sec, key, CF(f), type, lo, hi, lo_open, hi_open, NULL, -1, hint}
const optinc_component_field optinc_component_fields[] = {
    ROW("mzi", "insertion_loss_dB", mzi.insertion_loss_dB, 'd', 0, OPTINC_LOSS_DB_MAX, 0, 0,
        LOSS_HINT),
    ROW("mzi", "phase_error_sigma_rad", mzi.phase_error_sigma_rad, 'd', 0, OPTINC_SIGMA_RAD_MAX,
        0, 0, SIGMA_HINT),
    ROW("mzi", "splitter_error_sigma", mzi.splitter_error_sigma, 'd', 0,
        OPTINC_SPLITTER_SIGMA_MAX, 0, 0,
        "(the standard deviation of a coupler's power splitting around 0.5, which can only "
        "lie in [0, 1])"),
    ROW("phase_shifter", "bits", phase_shifter.bits, 'i', 0, 16, 0, 0, "(0 = not quantized)"),
    {"phase_shifter", "range_lo_rad", CF(phase_shifter.range_rad[0]), 'd', -INFINITY, INFINITY,
     0, 0, "range_rad", 0, NULL},
    {"phase_shifter", "range_hi_rad", CF(phase_shifter.range_rad[1]), 'd', -INFINITY, INFINITY,
     0, 0, "range_rad", 1, NULL},
    ROW("phase_shifter", "noise_sigma_rad", phase_shifter.noise_sigma_rad, 'd', 0,
        OPTINC_SIGMA_RAD_MAX, 0, 0, SIGMA_HINT),
    ROW("phase_shifter", "thermal_crosstalk", phase_shifter.thermal_crosstalk, 'd', 0, 0.5, 0, 1,
        "(the fraction of a heater's phase reaching each neighbour)"),
    ROW("attenuator", "insertion_loss_dB", attenuator.insertion_loss_dB, 'd', 0,
        OPTINC_LOSS_DB_MAX, 0, 0, LOSS_HINT),
    ROW("attenuator", "max_attenuation_dB", attenuator.max_attenuation_dB, 'd', 0,
        OPTINC_EXTINCTION_DB_MAX, 1, 0,
        "(the extinction in dB; 400 dB, 1e-20 of the amplitude, is full extinction in double "
        "precision)"),
    ROW("attenuator", "bits", attenuator.bits, 'i', 0, 16, 0, 0, "(0 = continuous)"),
    ROW("waveguide", "loss_dB_cm", waveguide.loss_dB_cm, 'd', 0, OPTINC_LOSS_DB_MAX, 0, 0,
        "(a loss in dB per cm, at most 100)"),
    ROW("crossing", "insertion_loss_dB", crossing.insertion_loss_dB, 'd', 0, OPTINC_LOSS_DB_MAX,
        0, 0, LOSS_HINT),
    ROW("crossing", "crosstalk_dB", crossing.crosstalk_dB, 'd', -INFINITY, 0, 0, 0,
        "(a power ratio in dB such as -40; 0 = not modelled)"),
    ROW("detector", "responsivity_A_W", detector.responsivity_A_W, 'd', 0, INFINITY, 1, 0, NULL),
};
const int optinc_component_n_fields =
    sizeof optinc_component_fields / sizeof optinc_component_fields[0];

#define SECTIONS_MAX 8     /* the table's sections, and its rows in one */

/* The table's sections in order, NULL-ended. */
static void section_names(const char **names)
{
    int n = 0;
    for (int k = 0; k < optinc_component_n_fields; k++)
        if (!n || strcmp(names[n - 1], optinc_component_fields[k].section))
            names[n++] = optinc_component_fields[k].section;
    names[n] = NULL;
}

/* The spec's fields of section sec (a pair as one 'r' field), FIELDS_END-
 * ended, and their keys, NULL-ended, for optinc_spec_check_map(). */
static void section_fields(const char *sec, field *fields, const char **keys)
{
    int n = 0;
    for (int k = 0; k < optinc_component_n_fields; k++) {
        const optinc_component_field *r = &optinc_component_fields[k];
        if (strcmp(r->section, sec) || r->pair == 1)
            continue;
        const char *key = r->spec_key ? r->spec_key : r->key;
        keys[n] = key;
        fields[n++] = (field){key, r->pair == 0 ? 'r' : r->type, r->offset, r->min, r->max,
                              r->min_open, r->max_open, r->hint};
    }
    keys[n] = NULL;
    fields[n] = (field)FIELDS_END;
}

void optinc_components_defaults(optinc_components *comp)
{
    memset(comp, 0, sizeof *comp);
    comp->phase_shifter.range_rad[1] = 2 * M_PI;
    comp->attenuator.max_attenuation_dB = 60;
    comp->detector.responsivity_A_W = 1;
}

const char *optinc_phase_range_problem(const optinc_components *c, char *buf, size_t size)
{
    double lo = c->phase_shifter.range_rad[0], hi = c->phase_shifter.range_rad[1];
    int bits = c->phase_shifter.bits;
    /* Allow for the rounding of a decimal 2 pi such as 6.283185307179586. */
    if (hi - lo < 2 * M_PI * (1 - 1e-12))
        snprintf(buf, size, "spans %g rad, less than 2*pi: a phase shifter must reach every "
                 "phase modulo 2*pi, or some MZI settings cannot be programmed; use a range at "
                 "least 2*pi wide, e.g. [0, 6.283185307179586]", hi - lo);
    else if (fabs(lo) > OPTINC_PHASE_RANGE_MAX || fabs(hi) > OPTINC_PHASE_RANGE_MAX)
        snprintf(buf, size, "is [%.12g, %.12g], beyond +-%.0f rad (2^20 turns), where a phase "
                 "is no longer resolved to a nanoradian; move the range towards 0 by whole "
                 "turns of 2*pi, e.g. [0, 6.283185307179586]", lo, hi, OPTINC_PHASE_RANGE_MAX);
    else if (bits > 0 && (hi - lo) / ldexp(1.0, bits) > M_PI)
        snprintf(buf, size, "spans %g rad over the 2^%d codes of a %d-bit phase DAC, a step of "
                 "%g rad, more than pi: the codes cannot tell the phases of a turn apart; "
                 "narrow the range (2*pi is enough) or use more bits", hi - lo, bits, bits,
                 (hi - lo) / ldexp(1.0, bits));
    else
        return NULL;
    return buf;
}

/* The spec loader and the netlist reader (read_header.c) refuse the same
 * attenuators with it, as they do phase ranges. */
const char *optinc_att_range_problem(const optinc_components *c, char *buf, size_t size)
{
    int bits = c->attenuator.bits;
    double max_db = c->attenuator.max_attenuation_dB, steps = ldexp(1.0, bits) - 1;
    if (bits <= 0 || !(max_db / steps > ATT_STEP_DB_MAX))
        return NULL;
    snprintf(buf, size, "is %g dB: a %d-bit attenuation DAC steps through it %g dB at a time "
             "(2^%d - 1 steps), more than %.0f dB, so its first code above 0 already dims a "
             "channel by more than a device may lose and no code sets a weight between on and "
             "off; lower max_attenuation_dB to at most %g dB or use more bits", max_db, bits,
             max_db / steps, bits, ATT_STEP_DB_MAX,
             fmin(ATT_STEP_DB_MAX * steps, OPTINC_EXTINCTION_DB_MAX));
    return buf;
}

/* A device of comp as its section sec (a node of this table) leaves it,
 * checked by problem (optinc_phase_range_problem, optinc_att_range_problem):
 * a problem is reported at key, the setting it names, or at the bits when
 * that comes from the table below. */
static optinc_status check_device(ctx *c, yaml_node_t *sec, const char *what, const char *key,
                                  const char *(*problem)(const optinc_components *, char *,
                                                         size_t),
                                  const optinc_components *comp)
{
    char why[400];
    if (!problem(comp, why, sizeof why))
        return OPTINC_OK;
    yaml_node_t *at = optinc_spec_get(c, sec, key);
    if (!at)
        at = optinc_spec_get(c, sec, "bits");
    return optinc_spec_fail(c, at ? at : sec, "'%s' in %s %s", key, what, why);
}

/* Reads a components table over *comp (which holds the defaults or the table
 * being overridden); `owner` is "" or " of layer 'L1'" for messages. */
optinc_status optinc_spec_components_over(ctx *c, yaml_node_t *n, const char *owner,
                                          optinc_components *comp)
{
    const char *names[SECTIONS_MAX + 1];
    char what[192];
    section_names(names);
    snprintf(what, sizeof what, "components%s", owner);
    optinc_status st = optinc_spec_check_map(c, n, what, names);
    for (int i = 0; names[i] && !st; i++) {
        yaml_node_t *sec = optinc_spec_get(c, n, names[i]);
        const char *keys[SECTIONS_MAX + 1];
        field fields[SECTIONS_MAX + 1];
        if (!sec)
            continue;
        snprintf(what, sizeof what, "components.%s%s", names[i], owner);
        section_fields(names[i], fields, keys);
        if (!(st = optinc_spec_check_map(c, sec, what, keys)))
            st = optinc_spec_read_fields(c, sec, what, fields, comp);
        if (!st && !strcmp(names[i], "phase_shifter"))
            st = check_device(c, sec, what, "range_rad", optinc_phase_range_problem, comp);
        if (!st && !strcmp(names[i], "attenuator"))
            st = check_device(c, sec, what, "max_attenuation_dB", optinc_att_range_problem,
                              comp);
    }
    return st;
}

/* The global table, the one every layer starts from. */
optinc_status optinc_spec_parse_components(ctx *c, yaml_node_t *n)
{
    return optinc_spec_components_over(c, n, "", &c->spec->components);
}

optinc_status optinc_spec_parse_settings(ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"wavelength_um", "mesh", "attenuators",
                                       "mzi_convention", "seed", NULL};
    static const char *const conventions[] = {"clements2016", NULL};
    static const field fields[] = {
        {"wavelength_um", 'd', offsetof(optinc_spec, settings.wavelength_um), 0, INFINITY, 1,
         0, "(microns, e.g. 1.55)"},
        {"seed", 'u', offsetof(optinc_spec, settings.seed), 0, 0, 0, 0, NULL},
        FIELDS_END};
    optinc_spec *s = c->spec;
    int mesh = (int)s->settings.mesh, att = (int)s->settings.attenuators, conv = 0;
    optinc_status st;
    if ((st = optinc_spec_check_map(c, n, "settings", keys)) ||
        (st = optinc_spec_read_fields(c, n, "settings", fields, s)) ||
        (st = optinc_spec_read_enum(c, n, "mesh", "settings", optinc_mesh_kind_names,
                                    &mesh)) ||
        (st = optinc_spec_read_enum(c, n, "attenuators", "settings",
                                    optinc_att_position_names, &att)) ||
        (st = optinc_spec_read_enum(c, n, "mzi_convention", "settings", conventions,
                                    &conv)))
        return st;
    s->settings.mesh = (optinc_mesh_kind)mesh;
    s->settings.attenuators = (optinc_att_position)att;
    return OPTINC_OK;
}

optinc_status optinc_spec_parse_info(ctx *c, yaml_node_t *n)
{
    void *info;
    optinc_status st = optinc_spec_check_map(c, n, "info", NULL);
    if (st || (st = optinc_spec_entries(c, n, "info", map_len(n), SIZE_MAX,
                                        sizeof *c->spec->info, &info)))
        return st;
    c->spec->info = info;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(c, p->key), *v = node(c, p->value);
        if ((st = optinc_spec_want_scalar(c, v, scalar_of(k), "info", "text")))
            return st;
        optinc_spec_info *e = &c->spec->info[c->spec->n_info++];
        e->line = (int)v->start_mark.line + 1;
        e->column = (int)v->start_mark.column + 1;
        if (!(e->key = strdup(scalar_of(k))) || !(e->value = strdup(scalar_of(v))))
            return optinc_fail(c->err, OPTINC_ERUN, c->path, 0, 0, "out of memory");
    }
    return OPTINC_OK;
}

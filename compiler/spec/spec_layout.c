/*
 * spec_layout.c - the layout: table of a spec (optinc-spec(5), LAYOUT): the
 * placement grid of the exports that place elements (optinc-export(1)):
 * the pitch of the columns, the pitch of the modes and the length of an
 * MZI, in µm.
 *
 * Why the compiler reads it: the grid is a property of the chip the spec
 * describes, like its components; the exports read it from the spec so that
 * one spec gives one layout, whatever the command line says.
 */
#include "compiler/spec/spec_internal.h"

/* The largest pitch or MZI length, in um (a metre): what the GDSII export
 * draws (compiler/export/gds.c), and far from overflowing the coordinates
 * the placing exports print, a column or mode number times a pitch
 * (compiler/export/place.c). */
#define PITCH_UM_MAX 1e6

optinc_status optinc_spec_parse_layout(ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"column_pitch_um", "mode_pitch_um", "mzi_length_um",
                                       NULL};
#define LF(f) offsetof(optinc_layout, f)
    static const field fields[] = {
        {"column_pitch_um", 'd', LF(column_pitch_um), 0, PITCH_UM_MAX, 1, 0,
         "(the distance between two MZI columns)"},
        {"mode_pitch_um", 'd', LF(mode_pitch_um), 0, PITCH_UM_MAX, 1, 0,
         "(the distance between two waveguides)"},
        {"mzi_length_um", 'd', LF(mzi_length_um), 0, PITCH_UM_MAX, 1, 0,
         "(the length of one MZI along the propagation)"},
        FIELDS_END};
#undef LF
    const char *what = "layout";
    optinc_layout *lay = &c->spec->layout;
    optinc_status st;
    if ((st = optinc_spec_check_map(c, n, what, keys)) ||
        (st = optinc_spec_read_fields(c, n, what, fields, lay)))
        return st;
    if (lay->mzi_length_um > lay->column_pitch_um) {
        yaml_node_t *v = optinc_spec_get(c, n, "mzi_length_um");
        return optinc_spec_fail(c, v ? v : n, "'mzi_length_um' in layout (%g) is longer than "
                                "'column_pitch_um' (%g), so neighbouring MZI columns would "
                                "overlap; shorten the MZI or widen the column pitch",
                                lay->mzi_length_um, lay->column_pitch_um);
    }
    return OPTINC_OK;
}

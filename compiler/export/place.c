/*
 * place.c - the placement grid every placing export shares (export.h):
 * global column numbers of stages and the grid's coordinates in µm.
 *
 * Why one grid: the gdsfactory placements, INTERCONNECT's lay_x/lay_y and
 * the GDSII references describe the same chip; computed once here, they
 * cannot disagree.
 */
#include "compiler/netlist/walk.h"
#include "optinc/export.h"

int optinc_place_stage_width(const optinc_stage *s)
{
    return nl_stage_width(s);    /* the walk's columns */
}

int optinc_place_stage_column(const optinc_circuit *c, int layer, int stage)
{
    int column = 0;
    for (int l = 0; l < c->n_layers; l++)
        for (int s = 0; s < c->layers[l].n_stages; s++) {
            if (l == layer && s == stage)
                return column;
            column += optinc_place_stage_width(&c->layers[l].stage[s]);
        }
    return column;
}

int optinc_place_columns(const optinc_circuit *c)
{
    return optinc_place_stage_column(c, c->n_layers, 0);
}

int optinc_place_modes(const optinc_circuit *c)
{
    int modes = 0;
    for (int l = 0; l < c->n_layers; l++)
        for (int s = 0; s < c->layers[l].n_stages; s++) {
            const optinc_stage *st = &c->layers[l].stage[s];
            int m = st->modes_in > st->modes_out ? st->modes_in : st->modes_out;
            if (m > modes)
                modes = m;
        }
    return modes;
}

void optinc_place_xy(const optinc_layout *layout, int column, int mode, double *x_um,
                     double *y_um)
{
    *x_um = column * layout->column_pitch_um;
    *y_um = mode * layout->mode_pitch_um;
}

/*
 * drive_codes.c - the DAC codes of a chip's heaters, as a lab loads them
 * (optinc-drive(5)): written from a chip whose drivers a recompilation set
 * (chip_recompile.c), and set back into a chip from codes.
 *
 * One row per heater: the theta and phi heaters of every MZI of every mesh
 * stage in propagation order, then the heaters of the mesh's output screen
 * mode by mode, named as the netlist names the element and the parameter
 * the heater drives (nl_element_name, the card table), so the row of a
 * heater is found in the netlist and in the GDSII layout by its name.
 * Beside the code the row gives what it does on the measured chip: the
 * drive the code programs, the crosstalk its neighbours' codes add (what
 * the recompilation pre-compensated), the measured offset, and their sum,
 * the phase the heater realizes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "compiler/netlist/dialect.h"
#include "optinc/calibration.h"
#include "optinc/fileio.h"
#include "runtime/sim/chip.h"

#define NAME_MAX_BYTES 160   /* > MZ_ + a 63-byte layer + _V_c<int>_r<int> */

/* The code of drive d on q's grid: drives a recompilation chose lie on it. */
static long drive_code(const optinc_quantizer *q, double d)
{
    if (q->bits <= 0)
        return -1;
    return lround((d - q->lo) / ((q->hi - q->lo) / ldexp(1.0, q->bits)));
}

static void put_number(FILE *f, double x)
{
    char buf[OPTINC_SHORTEST_MAX];
    fputc(',', f);
    fputs(optinc_shortest(buf, x), f);
}

/* One row: the heater's place, names, code and what it does. */
static void put_row(FILE *f, const char *layer, int stage, char tag, int column, int row,
                    const char *name, const char *param, const optinc_quantizer *q, double drive,
                    double leak, double offset)
{
    fprintf(f, "%s,%d,%c,%d,%d,%s,%s,%ld", layer, stage, tag, column, row, name, param,
            drive_code(q, drive));
    put_number(f, drive);
    put_number(f, leak);
    put_number(f, offset);
    put_number(f, drive + leak + offset);
    fputc('\n', f);
}

static void put_stage(FILE *f, const optinc_layer *L, int s, const chip_stage *cs,
                      const double *off)
{
    const optinc_mesh *M = L->stage[s].mesh;
    const optinc_card *mzi = &optinc_cards[OPTINC_CARD_MZI], *ps = &optinc_cards[OPTINC_CARD_PS];
    char tag = L->stage[s].tag, name[NAME_MAX_BYTES];
    optinc_quantizer q;
    optinc_quantizer_from_components(&q, &L->components);
    for (int i = 0; i < cs->n_mzi; i++) {
        const chip_mzi *z = &cs->mzi[i];
        double leak[2];
        optinc_chip_mzi_leak(cs, i, &leak[0], &leak[1]);
        nl_element_name(name, sizeof name, "", OPTINC_CARD_MZI, L->name, tag, z->column,
                        z->mode);
        put_row(f, L->name, s, tag, z->column, z->mode, name, mzi->param[MZI_THETA].key, &q,
                z->theta_drive, leak[0], off ? off[2 * i] : 0);
        put_row(f, L->name, s, tag, z->column, z->mode, name, mzi->param[MZI_PHI].key, &q,
                z->phi_drive, leak[1], off ? off[2 * i + 1] : 0);
    }
    for (int r = 0; r < cs->modes_in; r++) {
        nl_element_name(name, sizeof name, "", OPTINC_CARD_PS, L->name, tag, M->n_columns, r);
        put_row(f, L->name, s, tag, M->n_columns, r, name, ps->param[PS_PHASE].key, &q,
                cs->screen_drive[r], optinc_chip_screen_leak(cs, r),
                off ? off[2 * cs->n_mzi + r] : 0);
    }
}

optinc_status optinc_drive_codes_write(const optinc_chip *chip, const optinc_calibration *meas,
                                       const char *path, optinc_error *err)
{
    const optinc_circuit *c = chip->circuit;
    optinc_out o;
    optinc_status st = optinc_out_open(&o, path, err);
    if (st)
        return st;
    fputs("layer,stage,tag,column,row,name,param,code,drive_rad,crosstalk_rad,offset_rad,"
          "phase_rad\n", o.f);
    for (int l = 0; l < c->n_layers; l++)
        for (int s = 0; s < c->layers[l].n_stages; s++)
            if (c->layers[l].stage[s].kind == OPTINC_STAGE_MESH)
                put_stage(o.f, &c->layers[l], s, &chip->layer[l].stage[s],
                          meas && meas->has_offsets ? meas->layer[l].offset[s] : NULL);
    return optinc_out_commit(&o, err);
}

optinc_status optinc_chip_set_drive_codes(optinc_chip *chip, int layer, int stage,
                                          const long *codes, optinc_error *err)
{
    const optinc_circuit *c = chip->circuit;
    if (layer < 0 || layer >= c->n_layers || stage < 0 || stage >= c->layers[layer].n_stages
        || c->layers[layer].stage[stage].kind != OPTINC_STAGE_MESH)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "stage %d of layer %d is not a mesh of circuit '%s'; give the "
                           "layer and stage of a mesh", stage, layer, c->name);
    optinc_quantizer q;
    optinc_quantizer_from_components(&q, &c->layers[layer].components);
    chip_stage *cs = &chip->layer[layer].stage[stage];
    int n = 2 * cs->n_mzi + cs->modes_in;
    for (int i = 0; i < n; i++)
        if (q.bits <= 0 || codes[i] < 0 || codes[i] >= (1L << q.bits))
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "heater %d of stage %d of layer '%s': code %ld is not one of "
                               "the %d-bit phase drivers' codes; give 0 to %ld", i, stage,
                               c->layers[layer].name, codes[i], q.bits,
                               q.bits > 0 ? (1L << q.bits) - 1 : -1L);
    for (int i = 0; i < cs->n_mzi; i++) {
        cs->mzi[i].theta_drive = optinc_quantizer_value(&q, (int)codes[2 * i]);
        cs->mzi[i].phi_drive = optinc_quantizer_value(&q, (int)codes[2 * i + 1]);
    }
    for (int r = 0; r < cs->modes_in; r++)
        cs->screen_drive[r] = optinc_quantizer_value(&q, (int)codes[2 * cs->n_mzi + r]);
    optinc_chip_stage_realize(cs);
    return OPTINC_OK;
}

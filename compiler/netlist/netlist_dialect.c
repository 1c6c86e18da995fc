/*
 * netlist_dialect.c - the vocabulary of the PNL netlist (optinc-netlist(5))
 * that its writer (netlist_write.c) and its reader (netlist_read.c)
 * must agree on: the keys of the `*! onn` line, the stage plan of a layer and
 * the instance names.  The words for mesh kinds,
 * attenuator positions and activations are the spec's (spec.h), so a spec
 * and a netlist spell them alike.
 *
 * Why a module of its own: the round trip spec -> netlist -> read -> netlist
 * is byte-identical only if both sides use one table.  The device
 * parameters of the `*! layer.NAME.SECTION` lines are the components table
 * of the spec (optinc_component_fields, spec_components.c): a parameter
 * added to optinc_components is one row there, which the spec loader, the
 * writer and the reader all take.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "compiler/core/numtext.h"
#include "compiler/netlist/dialect.h"


#define OK(f) offsetof(optinc_circuit_onn, f)

/* The ranges and defaults of the spec's allreduce: section and info: onn_*
 * keys (optinc-spec(5)); cascade_fan_in 0 means servers (one unit). */
const onn_key nl_onn_keys[] = {
    {"servers", OK(servers), 2, 65536, 0, NULL},
    {"gradient_bits", OK(gradient_bits), 2, 16, 0, NULL},
    {"preprocessing", OK(preprocessing), 0, 0, 0, optinc_onn_preprocessing_names},
    {"cascade_fan_in", OK(cascade_fan_in), 2, 65536, 0, NULL},
    {"cascade_levels", OK(cascade_levels), 1, 8, 1, NULL},
    {"rounding", OK(rounding), 0, 0, 0, optinc_onn_rounding_names},
    {"level", OK(level), 0, 2, 0, NULL},
    {"code", OK(code), 0, 0, 0, optinc_onn_code_names},
};
const int nl_n_onn_keys = sizeof nl_onn_keys / sizeof nl_onn_keys[0];

/* The same plan optinc_compile() builds (circuit.h):
 *   middle  V mesh (cols), S column cols -> rows, U mesh (rows)
 *   output  U mesh, S column          input  S column, U mesh
 *   none    U mesh */
int optinc_netlist_stage_plan(optinc_att_position att, int rows, int cols, optinc_stage plan[3])
{
    static const char tags[4][4] = {"VSU", "U", "SU", "US"};
    int n = 0;
    for (const char *t = tags[att]; *t; t++, n++) {
        optinc_stage *s = &plan[n];
        s->tag = *t;
        s->mesh = NULL;
        s->att = NULL;
        s->kind = *t == 'S' ? OPTINC_STAGE_ATT : OPTINC_STAGE_MESH;
        /* Only the middle plan changes the mode count: V has cols, U rows. */
        s->modes_in = *t == 'U' ? rows : cols;
        s->modes_out = *t == 'V' ? cols : rows;
        s->n_att = s->kind == OPTINC_STAGE_ATT ? (rows < cols ? rows : cols) : 0;
        s->block_in = s->modes_in;
        s->block_out = s->modes_out;
        s->fan = s->block = 0;
    }
    return n;
}

void nl_grid_name(char *buf, size_t size, const char *prefix, const char *card,
                  const char *layer, char tag, int column, char kind, int index)
{
    char col[24], idx[24];
    size_t cl = optinc_int_format(col, column), il = optinc_int_format(idx, index);
    size_t pl = strlen(prefix), kl = card ? strlen(card) + 1 : 0, ll = strlen(layer);
    if (pl + kl + ll + cl + il + 8 > size) {    /* cannot happen within the name limits */
        snprintf(buf, size, "%s%s%s%s_%c_c%d_%c%d", prefix, card ? card : "", card ? "_" : "",
                 layer, tag, column, kind, index);
        return;
    }
    char *o = buf;
    memcpy(o, prefix, pl);
    o += pl;
    if (card) {
        memcpy(o, card, kl - 1);
        o += kl - 1;
        *o++ = '_';
    }
    memcpy(o, layer, ll);
    o += ll;
    *o++ = '_';
    *o++ = tag;
    *o++ = '_';
    *o++ = 'c';
    memcpy(o, col, cl);
    o += cl;
    *o++ = '_';
    *o++ = kind;
    memcpy(o, idx, il + 1);
}

void nl_element_name(char *buf, size_t size, const char *prefix, optinc_card_kind kind,
                     const char *layer, char tag, int column, int row)
{
    if (tag)
        nl_grid_name(buf, size, prefix, optinc_cards[kind].prefix, layer, tag, column, 'r', row);
    else
        snprintf(buf, size, "%s%s_%s_r%d", prefix, optinc_cards[kind].prefix, layer, row);
}

int nl_is_name(const char *p, size_t n)
{
    if (!n || !((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_'))
        return 0;
    for (size_t i = 1; i < n; i++) {
        char ch = p[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_'
              || (ch >= '0' && ch <= '9')))
            return 0;
    }
    return 1;
}

int optinc_netlist_is_name(const char *s)
{
    return nl_is_name(s, strlen(s));
}

/*
 * dialect.h - the private part of the PNL dialect, shared by the files of
 * compiler/netlist/: the parameter indices of the cards (netlist_cards.c),
 * by which the writer fills a card's values and the reader's passes read
 * them back, so that a key is spelled once, in the table; the instance names
 * the writer gives elements, which the exports (compiler/export/) give them
 * too; and the name rule.
 */
#ifndef OPTINC_NETLIST_DIALECT_H
#define OPTINC_NETLIST_DIALECT_H

#include <stddef.h>
#include "optinc/netlist.h"

enum { MZI_THETA, MZI_PHI, MZI_THETA_CODE, MZI_PHI_CODE, MZI_BITS, MZI_THETA_TARGET,
       MZI_PHI_TARGET };
enum { PS_PHASE, PS_CODE, PS_BITS, PS_TARGET };
enum { ATT_DB, ATT_CODE, ATT_BITS, ATT_T_TARGET };
enum { DC_COUPLING };
enum { TAP_POWER };   /* split, comb: the power fraction of the tap */

/* One key of the `*! onn` header line (the circuit's ONN record), in the
 * order the writer puts them: a whole number in [min, max] or a word of
 * `words`, kept at `offset` in optinc_circuit_onn (an int, or the word in a
 * char[16]); dflt is the value (or word index) a line without the key
 * means.  The segments list follows them. */
typedef struct onn_key {
    const char *key;
    size_t offset;
    int min, max, dflt;
    const char *const *words;   /* NULL: a number */
} onn_key;

extern const onn_key nl_onn_keys[];
extern const int nl_n_onn_keys;

/* The instance name the writer gives an element of the layer named layer:
 * prefix ("", or X_<layer>__ in a flattened netlist), the card's prefix,
 * the layer, then for an element of a mesh its stage tag and grid position
 * (MZ_L1_V_c2_r3: the MZI in column 2 on modes 3 and 4 of mesh V;
 * PS_L1_V_c4_r0: its output screen), for the att or term of an attenuator
 * column (tag 0) the row alone (AT_L1_r0).  The exports name elements by
 * it, so an exported element has its netlist name. */
void nl_element_name(char *buf, size_t size, const char *prefix, optinc_card_kind kind,
                     const char *layer, char tag, int column, int row);
/* "PREFIX[CARD_]LAYER_TAG_cCOLUMN_KINDINDEX" into buf[size]: the grid names
 * of mesh instances (kind 'r', card the card's prefix) and of the nets
 * between mesh columns (kind 'm', card NULL).  Built without snprintf: the
 * writer forms millions of them for a large mesh. */
void nl_grid_name(char *buf, size_t size, const char *prefix, const char *card,
                  const char *layer, char tag, int column, char kind, int index);

/* 1 when the n bytes at p are a PNL name, [A-Za-z_][A-Za-z0-9_]*. */
int nl_is_name(const char *p, size_t n);

#endif

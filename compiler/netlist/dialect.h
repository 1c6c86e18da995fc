/*
 * dialect.h - the private part of the PNL dialect, shared by the files of
 * compiler/netlist/: the parameter indices of the cards (netlist_cards.c),
 * by which the writer fills a card's values and the reader's passes read
 * them back, so that a key is spelled once, in the table; and the name rule.
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

/* The instance name the writer gives an element of layer `layer`, into
 * buf[size]: pfx ("" or the "X_<layer>__" of a flattened netlist), the
 * card's prefix and the layer, then for a mesh element (tag 'V' or 'U') its
 * stage, column and upper mode (MZ_L1_V_c2_r3, PS_L1_U_c4_r0), for an
 * attenuator or terminator (tag 0) its mode (AT_L1_r0, TM_L1_r5).  The
 * exports name elements with it, so an exported element has its netlist
 * name. */
void nl_element_name(char *buf, size_t size, const char *pfx, optinc_card_kind kind,
                     const char *layer, char tag, int column, int mode);

/* 1 when the n bytes at p are a PNL name, [A-Za-z_][A-Za-z0-9_]*. */
int nl_is_name(const char *p, size_t n);

#endif

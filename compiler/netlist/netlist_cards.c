/*
 * netlist_cards.c - the card table of the PNL netlist (optinc-netlist(5),
 * CARDS): every primitive element the dialect has, with its pins in order,
 * its parameters (key, unit, type, range, whether required, the bits that
 * bound a code) and the order the writer puts them on a card line.
 *
 * Who consults it: the writer (netlist_write.c) takes model names, instance
 * prefixes, keys and their order from here and refuses circuit names that
 * are card names; the reader checks every card line against it (pin count,
 * known keys, types, ranges, required keys, codes < 2^bits; read_flatten.c)
 * and its trace pass turns the checked values into the circuit; the drawings
 * name their nodes with the same prefixes.  The simulator never sees a card:
 * it runs the circuit the reader rebuilds (meshes, phase screens, attenuator
 * columns, and a segmented layer's split and comb stages, whose chains of
 * split and comb cards the reader turns into one stage each), so it has no
 * per-card code and no lookup by card kind.
 *
 * A new card is one entry here (and its kind in netlist.h), what the reader
 * rebuilds from it, its model in the circuit and the simulator, and its
 * lines in optinc-netlist(5).
 */
#include <math.h>
#include <string.h>
#include "compiler/netlist/dialect.h"

#define NUM(k, u) {k, u, 'd', -INFINITY, INFINITY, 0, -1}
#define REQ(k, u) {k, u, 'd', -INFINITY, INFINITY, 1, -1}
#define NONNEG(k, u, req) {k, u, 'd', 0, INFINITY, req, -1}
#define CODE(k, b) {k, "", 'i', 0, 65535, 0, b}
#define BITS {"bits", "", 'i', 1, 16, 0, -1}

const optinc_card optinc_cards[OPTINC_CARD_COUNT] = {
    [OPTINC_CARD_MZI] = {
        "mzi", "MZ", 4, {"in0", "in1", "out0", "out1"}, 7,
        {[MZI_THETA] = REQ("theta_rad", "rad"), [MZI_PHI] = REQ("phi_rad", "rad"),
         [MZI_THETA_CODE] = CODE("theta_code", MZI_BITS),
         [MZI_PHI_CODE] = CODE("phi_code", MZI_BITS), [MZI_BITS] = BITS,
         [MZI_THETA_TARGET] = NUM("theta_target_rad", "rad"),
         [MZI_PHI_TARGET] = NUM("phi_target_rad", "rad")},
        {MZI_THETA, MZI_THETA_CODE, MZI_THETA_TARGET, MZI_PHI, MZI_PHI_CODE, MZI_PHI_TARGET,
         MZI_BITS},
        .n_in = 2, .settings = 1u << MZI_THETA | 1u << MZI_PHI,
    },
    [OPTINC_CARD_PS] = {
        "ps", "PS", 2, {"in", "out"}, 4,
        {[PS_PHASE] = REQ("phase_rad", "rad"), [PS_CODE] = CODE("code", PS_BITS),
         [PS_BITS] = BITS, [PS_TARGET] = NUM("phase_target_rad", "rad")},
        {PS_PHASE, PS_CODE, PS_TARGET, PS_BITS}, .n_in = 1, .settings = 1u << PS_PHASE,
    },
    [OPTINC_CARD_ATT] = {
        "att", "AT", 2, {"in", "out"}, 4,
        {[ATT_DB] = NONNEG("att_dB", "dB", 1), [ATT_CODE] = CODE("code", ATT_BITS),
         [ATT_BITS] = BITS, [ATT_T_TARGET] = NONNEG("t_target", "", 0)},
        {ATT_DB, ATT_CODE, ATT_BITS, ATT_T_TARGET}, .n_in = 1, .settings = 1u << ATT_DB,
    },
    [OPTINC_CARD_DC] = {
        "dc", "DC", 4, {"in0", "in1", "out0", "out1"}, 1,
        {[DC_COUPLING] = {"coupling", "", 'd', 0, 1, 1, -1}},
        {DC_COUPLING}, .n_in = 2, .settings = 1u << DC_COUPLING,
    },
    [OPTINC_CARD_TERM] = {"term", "TM", 1, {"in"}, 0, {{0}}, {0}, .n_in = 1},
    /* out0 = sqrt(tap).in, out1 = sqrt(1-tap).in */
    [OPTINC_CARD_SPLIT] = {
        "split", "SP", 3, {"in", "out0", "out1"}, 1,
        {[TAP_POWER] = {"tap", "", 'd', 0, 1, 1, -1}}, {TAP_POWER}, .n_in = 1,
        .settings = 1u << TAP_POWER,
    },
    /* out = sqrt(1-tap).in0 + sqrt(tap).in1 */
    [OPTINC_CARD_COMB] = {
        "comb", "CB", 3, {"in0", "in1", "out"}, 1,
        {[TAP_POWER] = {"tap", "", 'd', 0, 1, 1, -1}}, {TAP_POWER}, .n_in = 2,
        .settings = 1u << TAP_POWER,
    },
    /* out = in: no element on the chip, a mode that passes the layer by */
    [OPTINC_CARD_THRU] = {"thru", "TH", 2, {"in", "out"}, 0, {{0}}, {0}, .n_in = 1},
};

int optinc_card_find(const char *name, size_t n)
{
    for (int k = 0; k < OPTINC_CARD_COUNT; k++)
        if (strlen(optinc_cards[k].name) == n && !memcmp(optinc_cards[k].name, name, n))
            return k;
    return -1;
}

/*
 * cards.h - the parameter indices of the netlist's cards (netlist_cards.c),
 * private to compiler/netlist/: the writer fills a card's values by these
 * indices and the reader's passes read them back, so a key is spelled once,
 * in the table.
 */
#ifndef OPTINC_NETLIST_CARDS_H
#define OPTINC_NETLIST_CARDS_H

#include "optinc/netlist.h"

enum { MZI_THETA, MZI_PHI, MZI_THETA_CODE, MZI_PHI_CODE, MZI_BITS, MZI_THETA_TARGET,
       MZI_PHI_TARGET };
enum { PS_PHASE, PS_CODE, PS_BITS, PS_TARGET };
enum { ATT_DB, ATT_CODE, ATT_BITS, ATT_T_TARGET };
enum { DC_COUPLING };

#endif

/*
 * turns.h - private to the mesh (mesh.c, nulling.c, mesh_sf.c): phases
 * reduced by whole turns.
 */
#ifndef OPTINC_MESH_TURNS_H
#define OPTINC_MESH_TURNS_H

#include <math.h>

/* remainder(x, 2 pi) and fmod(x, 2 pi), the same bits, without the library
 * call for the arguments a decomposition gives them (within a turn or two of
 * zero): both results are exact, x itself or x minus one turn, and that
 * difference is exact too when x is between half a turn and two turns
 * (Sterbenz's lemma).  remainder rounds a half-turn tie to the even
 * multiple, so +-pi itself stays, and a tie at 3 pi goes to the library.
 * The two calls were a tenth of a decomposition at N = 128. */
static inline double turn_remainder(double x)
{
    const double turn = 2 * M_PI, half = M_PI;
    if (fabs(x) <= half)
        return x;
    if (x > half && x < 3 * half)
        return x - turn;
    if (x < -half && x > -3 * half)
        return x + turn;
    return remainder(x, turn);
}

static inline double turn_fmod(double x)
{
    const double turn = 2 * M_PI;
    if (x > -turn && x < turn)
        return x;
    if (x >= turn && x < 2 * turn)
        return x - turn;
    return fmod(x, turn);
}

#endif

/*
 * onn_screen.h - the verifier's fast first pass (onn_screen.c); private to
 * runtime/onn/.
 *
 * A chip without errors is, layer by layer, a real matrix to rounding: the
 * circuit realizes the trained real weights.  The screen runs a batch of P
 * outputs through the real parts of the layers' transfer matrices in real
 * arithmetic (a quarter of the complex product's work) and bounds, point by
 * point, how far its amplitudes can be from the ones the verifier's complex
 * evaluation computes.  A point whose amplitudes all lie farther than that
 * bound from the thresholds the decoder reads decodes to the same value by
 * both; the verifier evaluates the others, and only those, the full way.
 * So the screen changes no result, only the time.
 */
#ifndef OPTINC_ONN_SCREEN_H
#define OPTINC_ONN_SCREEN_H

#include <stdint.h>
#include "compiler/core/workers.h"
#include "optinc/onn.h"

typedef struct onn_screen {
    const optinc_onn_task *task;
    int L, width;                          /* layers; widest layer input or output */
    int rows[OPTINC_ONN_MAX_LAYERS], cols[OPTINC_ONN_MAX_LAYERS];
    double *R[OPTINC_ONN_MAX_LAYERS];      /* Re T_l with the layer's gain, rows x cols */
    /* the bound's coefficients (onn_screen.c): G_l ||T_l||, G_l ||Im T_l||, gamma_l */
    double norm[OPTINC_ONN_MAX_LAYERS], imag[OPTINC_ONN_MAX_LAYERS];
    double gamma[OPTINC_ONN_MAX_LAYERS];
    int relu[OPTINC_ONN_MAX_LAYERS];
} onn_screen;

/* The screen of the L layers of c with transfer matrices T and gains gain
 * (as the verifier applies them).  0 when it is set up; 1 when a layer's
 * activation is one it does not bound (|.|^2), and -1 out of memory: the
 * verifier then evaluates every point the full way. */
int onn_screen_init(onn_screen *s, const optinc_circuit *c, const optinc_onn_task *task,
                    optinc_cmat *const *T, const double *gain);
void onn_screen_free(onn_screen *s);

/* Runs the n points of x (n x cols_0, a point a row) on the pool w (NULL:
 * here).  For each point b: got[b] its decoded value and sure[b] 1 when the
 * complex evaluation decodes the same value and, with near > 0, the margin
 * of its amplitudes (optinc_onn_decode_margin) exceeds near there too;
 * sure[b] 0 when the point needs the full evaluation; margin[b] the
 * margin of its amplitudes here.  buf: scratch of onn_screen_buffer(s, n)
 * doubles. */
void onn_screen_run(const onn_screen *s, optinc_workers *w, int n, const double *x, double near,
                    double *buf, uint64_t *got, double *margin, unsigned char *sure);
size_t onn_screen_buffer(const onn_screen *s, int n);

#endif

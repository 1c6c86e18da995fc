/*
 * simutil.h - circuits for the simulator tests (test_sim.c, test_devices.c):
 * a single-mesh circuit decomposed from a Haar unitary, and a circuit
 * compiled from spec text.  Static inline, as in testutil.h.
 */
#ifndef OPTINC_SIMUTIL_H
#define OPTINC_SIMUTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include "optinc/sim.h"
#include "optinc/spec.h"
#include "testutil.h"

/* One layer, one mesh of the unitary U (taken over); cp NULL = default components. */
static inline optinc_circuit *su_mesh_circuit_of(optinc_cmat *U, optinc_mesh_kind kind,
                                                 uint64_t seed, const optinc_components *cp)
{
    int n = U->rows;
    optinc_circuit *c = optinc_circuit_new("mesh", 1);
    optinc_layer *L = &c->layers[0];
    snprintf(L->name, sizeof L->name, "L1");
    L->rows = L->cols = n;
    L->gain = 1;
    L->mesh_kind = kind;
    L->attenuators = OPTINC_ATT_NONE;
    if (cp)
        L->components = *cp;
    else
        optinc_components_defaults(&L->components);
    L->target = U;
    optinc_quantizer q;
    optinc_quantizer_from_components(&q, &L->components);
    optinc_error err;
    cr_assert_eq(optinc_mesh_decompose(L->target, kind, &q, &L->stage[0].mesh, &err), OPTINC_OK);
    L->stage[0].kind = OPTINC_STAGE_MESH;
    L->stage[0].tag = 'U';
    L->stage[0].modes_in = L->stage[0].modes_out = n;
    L->n_stages = 1;
    c->seed = seed;
    return c;
}

/* One layer, one n-mode mesh of U = Haar(seed). */
static inline optinc_circuit *su_mesh_circuit(int n, optinc_mesh_kind kind, uint64_t seed,
                                              const optinc_components *cp)
{
    optinc_rng rng;
    optinc_rng_seed(&rng, seed);
    return su_mesh_circuit_of(optinc_cmat_haar(n, &rng), kind, seed, cp);
}

/* Compiles spec text (written to a temporary file). */
static inline optinc_circuit *su_spec_circuit(const char *yaml)
{
    char *dir = tu_tempdir(), path[4200];
    snprintf(path, sizeof path, "%s/spec.yaml", dir);
    cr_assert_eq(tu_write_file(path, yaml), 0);
    optinc_spec *spec;
    optinc_circuit *c;
    optinc_error err;
    char msg[2300];
    optinc_status st = optinc_spec_load(path, NULL, &spec, &err);
    cr_assert_eq(st, OPTINC_OK, "%s", optinc_error_format(&err, msg, sizeof msg));
    st = optinc_compile(spec, &c, &err);
    cr_assert_eq(st, OPTINC_OK, "%s", optinc_error_format(&err, msg, sizeof msg));
    optinc_spec_free(spec);
    tu_rmtree(dir);
    free(dir);
    return c;
}

/* A chip of c with the device models given and its drivers set to `drive`
 * (OPTINC_DRIVE_*). */
static inline optinc_chip *su_chip_driven(const optinc_circuit *c, unsigned models, int drive,
                                          uint64_t seed)
{
    optinc_chip_options o;
    optinc_chip_options_default(&o);
    o.models = models;
    o.drive_targets = drive;
    optinc_chip *chip;
    cr_assert_eq(optinc_chip_new(c, &o, seed, &chip, NULL), OPTINC_OK);
    return chip;
}

static inline optinc_chip *su_chip(const optinc_circuit *c, unsigned models, uint64_t seed)
{
    return su_chip_driven(c, models, OPTINC_DRIVE_CODES, seed);
}

#endif

/*
 * mesh_path.h - which way optinc_mesh_decompose applies its rotations.
 *
 * The sequential path applies each element to the rest of the matrix as it
 * is found; the blocked path nulls a panel of columns on the panel alone and
 * applies the panel's sequences to the rest together (mesh.c).  Both give
 * the same elements, bit for bit.  optinc_mesh_decompose takes the faster
 * at each N (its table, measured in `make bench`); the bench and the tests
 * name a path here to compare the two.  Internal to the library.
 */
#ifndef OPTINC_MESH_PATH_H
#define OPTINC_MESH_PATH_H

#include "optinc/mesh.h"

typedef enum optinc_mesh_path {
    OPTINC_MESH_PATH_AUTO,          /* the table's choice for the kind and N */
    OPTINC_MESH_PATH_SEQUENTIAL,
    OPTINC_MESH_PATH_BLOCKED,
} optinc_mesh_path;

/* The path optinc_mesh_decompose takes for kind at N (never AUTO). */
optinc_mesh_path optinc_mesh_path_for(optinc_mesh_kind kind, int n);

/* optinc_mesh_decompose on the given path. */
optinc_status optinc_mesh_decompose_path(const optinc_cmat *U, optinc_mesh_kind kind,
                                         const optinc_quantizer *q, optinc_mesh_path path,
                                         optinc_mesh **out, optinc_error *err);

#endif

/*
 * fileio.h - atomic output files and the matrix file formats (.npy, .csv).
 *
 * Every file optinc writes goes through optinc_out_open()/optinc_out_commit():
 * the bytes go to a temporary file beside the target, which is fsync'ed and
 * renamed into place only when complete, so a reader (or a kill) never sees a
 * partial file.  optinc_out_abort() removes the temporary file.
 */
#ifndef OPTINC_FILEIO_H
#define OPTINC_FILEIO_H

#include <stdio.h>
#include "optinc/error.h"
#include "optinc/matrix.h"

typedef struct optinc_out {
    FILE *f;
    char path[1024];
    char tmp[1100];
} optinc_out;

optinc_status optinc_out_open(optinc_out *o, const char *path, optinc_error *err);
optinc_status optinc_out_commit(optinc_out *o, optinc_error *err);
void optinc_out_abort(optinc_out *o);

/* .npy (NumPy format 1.0/2.0, C order, little-endian float64 '<f8' or complex128
 * '<c16').  *is_complex tells which dtype the file held. */
optinc_status optinc_npy_read(const char *path, optinc_cmat **out, int *is_complex,
                              optinc_error *err);
/* Writes complex128 (or float64 when real_only and every imaginary part is 0). */
optinc_status optinc_npy_write(const char *path, const optinc_cmat *m, int real_only,
                               optinc_error *err);
/* .csv: one matrix row per line, comma-separated; a complex entry is written
 * "a+bj" / "a-bj" (NumPy's spelling). */
optinc_status optinc_csv_read(const char *path, optinc_cmat **out, int *is_complex,
                              optinc_error *err);

/* sha256 of a file's bytes (FIPS 180-4, used for provenance headers). */
optinc_status optinc_sha256_file(const char *path, unsigned char digest[32], optinc_error *err);
void optinc_sha256(const void *data, size_t len, unsigned char digest[32]);

/* Path helpers: dirname of path into dir; join dir and a relative path. */
void optinc_path_dir(const char *path, char *dir, size_t size);
void optinc_path_join(const char *dir, const char *rel, char *out, size_t size);

/* Limits every matrix reader enforces, so a bad header or spec cannot ask for
 * an absurd allocation: each dimension 1..65536, at most 2^26 entries (1 GiB of
 * complex doubles). */
#define OPTINC_MATRIX_DIM_MAX 65536
#define OPTINC_MATRIX_ENTRIES_MAX (1L << 26)

/* Parses a whole real or complex number in NumPy's spelling: "1.5", "-2e-3",
 * "2j", "1+2j", "1.5-0.5J", optionally in parentheses "(1+2j)".  No leading or
 * trailing blanks.  Returns 0 and sets *z (and *had_imag: a 'j' part was
 * written) on success, -1 when s is not a number, 1 when it is NaN or
 * infinite (*z is then set too). */
int optinc_parse_number(const char *s, double complex *z, int *had_imag);

#endif

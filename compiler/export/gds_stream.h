/*
 * gds_stream.h - a GDSII stream record writer, the few records a
 * placement-level layout needs (optinc-gds(5)); Debian has no C library
 * for the format.
 *
 * A GDSII file is a list of records: a 2-byte big-endian length (the
 * whole record, even), a record type byte, a data type byte, then the
 * data: 2- or 4-byte big-endian integers, 8-byte reals, or ASCII padded
 * with one NUL to an even length.  A library is HEADER, BGNLIB, LIBNAME,
 * UNITS, its structures (cells) BGNSTR, STRNAME, elements, ENDSTR, and
 * ENDLIB; an element is BOUNDARY, PATH, SREF or TEXT, its fields, and
 * ENDEL.  The writers take the stream of an atomic output (fileio.h),
 * whose writes never fail (the first error is reported when it commits),
 * so they return nothing.  Coordinates are in database units.
 */
#ifndef OPTINC_GDS_STREAM_H
#define OPTINC_GDS_STREAM_H

#include <stdint.h>
#include <stdio.h>

/* A layer and its data type (a TEXT's text type), written "layer/type". */
typedef struct gds_layer {
    int16_t layer, type;
} gds_layer;

/* The most points an XY record holds: (65535 - 4) / 8, less the closing
 * point of a BOUNDARY. */
#define GDS_POINTS_MAX 8190

/* v as a GDSII 8-byte real: a sign bit, a 7-bit base-16 exponent in
 * excess 64 and a 56-bit fraction f in [1/16, 1): v = +-f * 16^(e - 64);
 * 0 is all zero bytes.  Exact for every double from 16^-65 to 16^63 (a
 * double's 53 bits fit in the 56 of the fraction); below, and NaN, 0;
 * above, and infinities, the largest value of that sign. */
void gds_real8(double v, unsigned char out[8]);

/* HEADER (stream version 600), BGNLIB, LIBNAME name and UNITS: a database
 * unit is user_unit user units and meters_unit meters.  The library's
 * and every structure's times are fixed (1970-01-01 00:00:00), so the
 * same layout is the same bytes. */
void gds_lib_begin(FILE *f, const char *name, double user_unit, double meters_unit);
void gds_lib_end(FILE *f);                      /* ENDLIB */
void gds_str_begin(FILE *f, const char *name);  /* BGNSTR, STRNAME */
void gds_str_end(FILE *f);                      /* ENDSTR */

/* A polygon of n points (x0, y0, x1, y1, ...; 3 <= n <= GDS_POINTS_MAX);
 * the closing point is added. */
void gds_boundary(FILE *f, gds_layer l, const int32_t *xy, int n);
/* A path of n points (2 <= n <= GDS_POINTS_MAX) and the given width, with
 * flush ends (path type 0, the default, not written). */
void gds_path(FILE *f, gds_layer l, int32_t width, const int32_t *xy, int n);
/* A reference to the structure cell with its origin at (x, y), unrotated. */
void gds_sref(FILE *f, const char *cell, int32_t x, int32_t y);
/* The label s at (x, y). */
void gds_text(FILE *f, gds_layer l, int32_t x, int32_t y, const char *s);

#endif

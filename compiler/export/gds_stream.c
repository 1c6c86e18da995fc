/*
 * gds_stream.c - the GDSII stream records (gds_stream.h).
 *
 * Every record starts with put_head(), which writes the big-endian length
 * and type, so the length rule (the whole record, even, at most 65535
 * bytes) is kept in one place: the callers bound what they put in (points
 * by GDS_POINTS_MAX, strings cut at GDS_STRING_MAX bytes, which no name
 * optinc writes comes near).
 */
#include <math.h>
#include <string.h>
#include "compiler/export/gds_stream.h"

enum {
    /* record type << 8 | data type (0 none, 2 int16, 3 int32, 5 real8, 6 ASCII) */
    GDS_HEADER = 0x0002, GDS_BGNLIB = 0x0102, GDS_LIBNAME = 0x0206, GDS_UNITS = 0x0305,
    GDS_ENDLIB = 0x0400, GDS_BGNSTR = 0x0502, GDS_STRNAME = 0x0606, GDS_ENDSTR = 0x0700,
    GDS_BOUNDARY = 0x0800, GDS_PATH = 0x0900, GDS_SREF = 0x0A00, GDS_TEXT = 0x0C00,
    GDS_LAYER = 0x0D02, GDS_DATATYPE = 0x0E02, GDS_WIDTH = 0x0F03, GDS_XY = 0x1003,
    GDS_ENDEL = 0x1100, GDS_SNAME = 0x1206, GDS_TEXTTYPE = 0x1602, GDS_STRING = 0x1906,
};

#define GDS_VERSION 600
#define GDS_STRING_MAX 1024

static void put_head(FILE *f, int type, size_t len)
{
    size_t total = 4 + len;
    unsigned char head[4] = {(unsigned char)(total >> 8), (unsigned char)total,
                             (unsigned char)(type >> 8), (unsigned char)type};
    fwrite(head, 1, 4, f);
}

static void put_record(FILE *f, int type, const void *data, size_t len)
{
    put_head(f, type, len);
    if (len)
        fwrite(data, 1, len, f);
}

static void put_int16s(FILE *f, int type, const int16_t *v, int n)
{
    unsigned char buf[24];
    for (int i = 0; i < n; i++) {
        buf[2 * i] = (unsigned char)((uint16_t)v[i] >> 8);
        buf[2 * i + 1] = (unsigned char)v[i];
    }
    put_record(f, type, buf, 2 * (size_t)n);
}

static void put_int16(FILE *f, int type, int16_t v) { put_int16s(f, type, &v, 1); }

static void put_int32(FILE *f, int32_t v)
{
    uint32_t u = (uint32_t)v;
    unsigned char p[4] = {(unsigned char)(u >> 24), (unsigned char)(u >> 16),
                          (unsigned char)(u >> 8), (unsigned char)u};
    fwrite(p, 1, 4, f);
}

/* XY of n points, and the first again when close is set. */
static void put_xy(FILE *f, const int32_t *xy, int n, int close)
{
    put_head(f, GDS_XY, 8 * (size_t)(n + close));
    for (int i = 0; i < 2 * n; i++)
        put_int32(f, xy[i]);
    if (close) {
        put_int32(f, xy[0]);
        put_int32(f, xy[1]);
    }
}

/* ASCII, padded with a NUL to an even length. */
static void put_string(FILE *f, int type, const char *s)
{
    char buf[GDS_STRING_MAX + 2] = {0};
    size_t n = strlen(s);
    if (n > GDS_STRING_MAX)
        n = GDS_STRING_MAX;
    memcpy(buf, s, n);
    put_record(f, type, buf, n + (n & 1));
}

static void put_layer(FILE *f, int type_record, gds_layer l)
{
    put_int16(f, GDS_LAYER, l.layer);
    put_int16(f, type_record, l.type);
}

void gds_real8(double v, unsigned char out[8])
{
    memset(out, 0, 8);
    if (v == 0 || isnan(v))
        return;
    int sign = v < 0, e2 = 0;
    double f = isinf(v) ? 1 : frexp(fabs(v), &e2);    /* |v| = f 2^e2, f in [1/2, 1) */
    /* the base-16 exponent: the least e16 with 16^e16 > |v|, so that the
     * fraction |v| / 16^e16 lies in [1/16, 1) */
    int e16 = e2 >= 0 ? (e2 + 3) / 4 : -(-e2 / 4);
    if (e16 < -64)
        return;
    uint64_t bits = isinf(v) || e16 > 63 ? (UINT64_C(1) << 56) - 1
                                         : (uint64_t)ldexp(ldexp(f, e2 - 4 * e16), 56);
    e16 = e16 > 63 || isinf(v) ? 63 : e16;
    bits |= (uint64_t)(sign << 7 | (e16 + 64)) << 56;
    for (int i = 0; i < 8; i++)
        out[i] = (unsigned char)(bits >> (56 - 8 * i));
}

/* The modification and access times of BGNLIB and BGNSTR: fixed, so the
 * bytes do not depend on when they were written. */
static void put_times(FILE *f, int type)
{
    static const int16_t epoch[12] = {1970, 1, 1, 0, 0, 0, 1970, 1, 1, 0, 0, 0};
    put_int16s(f, type, epoch, 12);
}

void gds_lib_begin(FILE *f, const char *name, double user_unit, double meters_unit)
{
    put_int16(f, GDS_HEADER, GDS_VERSION);
    put_times(f, GDS_BGNLIB);
    put_string(f, GDS_LIBNAME, name);
    unsigned char units[16];
    gds_real8(user_unit, units);
    gds_real8(meters_unit, units + 8);
    put_record(f, GDS_UNITS, units, 16);
}

void gds_lib_end(FILE *f) { put_record(f, GDS_ENDLIB, NULL, 0); }

void gds_str_begin(FILE *f, const char *name)
{
    put_times(f, GDS_BGNSTR);
    put_string(f, GDS_STRNAME, name);
}

void gds_str_end(FILE *f) { put_record(f, GDS_ENDSTR, NULL, 0); }

void gds_boundary(FILE *f, gds_layer l, const int32_t *xy, int n)
{
    put_record(f, GDS_BOUNDARY, NULL, 0);
    put_layer(f, GDS_DATATYPE, l);
    put_xy(f, xy, n, 1);
    put_record(f, GDS_ENDEL, NULL, 0);
}

void gds_path(FILE *f, gds_layer l, int32_t width, const int32_t *xy, int n)
{
    put_record(f, GDS_PATH, NULL, 0);
    put_layer(f, GDS_DATATYPE, l);
    put_head(f, GDS_WIDTH, 4);
    put_int32(f, width);
    put_xy(f, xy, n, 0);
    put_record(f, GDS_ENDEL, NULL, 0);
}

void gds_sref(FILE *f, const char *cell, int32_t x, int32_t y)
{
    put_record(f, GDS_SREF, NULL, 0);
    put_string(f, GDS_SNAME, cell);
    put_xy(f, (const int32_t[]){x, y}, 1, 0);
    put_record(f, GDS_ENDEL, NULL, 0);
}

void gds_text(FILE *f, gds_layer l, int32_t x, int32_t y, const char *s)
{
    put_record(f, GDS_TEXT, NULL, 0);
    put_layer(f, GDS_TEXTTYPE, l);
    put_xy(f, (const int32_t[]){x, y}, 1, 0);
    put_string(f, GDS_STRING, s);
    put_record(f, GDS_ENDEL, NULL, 0);
}

/*
 * numtext.h - private: doubles to and from decimal text, fast and exact
 * (numtext.c).  The netlist writes hundreds of thousands of numbers per
 * mesh and reads them back; printf("%.17g") and strtod were most of that
 * time, and both also answer questions the netlist does not ask (locales,
 * hexadecimal, inf and nan).
 */
#ifndef OPTINC_CORE_NUMTEXT_H
#define OPTINC_CORE_NUMTEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Room for any text optinc_num_format writes, its NUL included. */
#define OPTINC_NUM_TEXT_MAX 32

/* Writes v into out exactly as printf("%.17g", v) does in the C locale (the
 * same bytes; %.17g round-trips every double) and returns the length.  out
 * has OPTINC_NUM_TEXT_MAX bytes. */
size_t optinc_num_format(char *out, double v);

/* Writes v in decimal into out (at least 21 bytes) as printf("%lld") does;
 * returns the length. */
size_t optinc_int_format(char *out, long long v);

/* The result of optinc_num_parse. */
typedef enum optinc_num_parse_result {
    OPTINC_NUM_OK = 0,
    OPTINC_NUM_SYNTAX,      /* not the grammar below (hexadecimal, inf, nan, ...) */
    OPTINC_NUM_RANGE        /* beyond the largest finite double */
} optinc_num_parse_result;

/* Parses all len bytes at s (no NUL needed) as a decimal number of the
 * grammar [+-]? (DIGITS [. DIGITS?] | . DIGITS) ([eE] [+-]? DIGITS)? into
 * *out, correctly rounded (the double strtod gives for the same text); the
 * bytes are not changed.  Hexadecimal, inf, nan and blanks are OPTINC_NUM_SYNTAX;
 * a number that rounds past DBL_MAX is OPTINC_NUM_RANGE.  Numbers too far
 * from 1 or with too many digits for the exact integer path are handed to
 * strtod, so the result is the same, only slower. */
optinc_num_parse_result optinc_num_parse(const char *s, size_t len, double *out);

/* 1 when x, read from the len bytes at s, is 0 though the digits before the
 * exponent are not all 0: the number underflowed (1e-400), which readers
 * that give 0 a meaning of its own refuse. */
int optinc_num_underflowed(const char *s, size_t len, double x);

/* The 8 bytes at p as one word, p[0] its lowest byte (one load where the
 * machine is little-endian): the number parser's and the netlist
 * tokenizer's eight-bytes-a-step scans. */
static inline uint64_t optinc_load8(const void *p)
{
    uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&w, p, sizeof w);
#else
    const unsigned char *b = p;
    for (int k = 7; k >= 0; k--)
        w = w << 8 | b[k];
#endif
    return w;
}

#endif

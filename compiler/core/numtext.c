/*
 * numtext.c - doubles to and from decimal text, exact and fast (numtext.h).
 *
 * Both directions are exact integer arithmetic on the binary value, in 128
 * bits, for the numbers a netlist is made of (phases, codes, losses: 1e-6 up
 * to 1e38 when written, up to 19 significant digits times 10^+-19 when read);
 * anything else goes to printf or strtod, which give the same text or the
 * same double, only slower.
 *
 * Writing: v = m . 2^e with m a 53-bit integer; the 17 significant digits
 * %.17g prints are round-half-even(v . 10^(16-E)), E = floor(log10 v), and
 * that product is m . 10^(16-E) shifted by e, or m . 2^e divided by
 * 10^(E-16): one multiply and one shift (or one division) of 128-bit
 * integers, the remainder deciding the rounding.  The digits are then laid
 * out by the %g rules: exponent form when E < -4 or E >= 17, trailing zeros
 * and a bare point dropped.
 *
 * Reading: the grammar is checked first (so hexadecimal, inf and nan are
 * refused, not left to strtod), the significant digits collected into a
 * 64-bit D and the decimal exponent into k, v = D . 10^k; in one pass, eight
 * digits a step, when there are at most 19 digits (a netlist's 17).  When D < 2^53 and
 * |k| <= 22, D and 10^|k| are exact doubles and one multiply or divide is
 * correctly rounded (Clinger's fast path).  Otherwise D . 10^k (k > 0) or
 * D . 2^s / 10^-k (k < 0, s chosen for 55-56 quotient bits) is an exact
 * 128-bit integer operation whose top 53 bits, rounded half-even with the
 * remainder as the sticky bit, are the double.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/numtext.h"

typedef unsigned __int128 u128;

static const uint64_t pow10_u64[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
    100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
    10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* 10^k for 0 <= k <= 38. */
static u128 pow10_wide(int k)
{
    return k <= 19 ? pow10_u64[k] : (u128)pow10_u64[19] * pow10_u64[k - 19];
}

static int bits_of(u128 x)
{
    uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
    return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

/* ------------------------------------------------------------------ writing */

/* floor(m . 2^e2 . 10^p) into *d and whether round-half-even rounds it up
 * into *up; -1 when the operands leave 128 bits. */
static int scaled_digits(uint64_t m, int e2, int p, uint64_t *d, int *up)
{
    u128 q, rem, half;
    if (p >= 0) {
        if (p > 22)
            return -1;
        u128 n = (u128)m * pow10_wide(p);       /* < 2^53 . 2^74 */
        if (e2 >= 0) {
            if (bits_of(n) + e2 > 64)
                return -1;
            *d = (uint64_t)(n << e2);
            *up = 0;
            return 0;
        }
        if (-e2 >= 128)
            return -1;
        int sh = -e2;
        q = n >> sh;
        rem = n & (((u128)1 << sh) - 1);
        half = (u128)1 << (sh - 1);
    } else {
        if (-p > 22 || e2 < 0 || e2 > 74)
            return -1;
        u128 n = (u128)m << e2, div = pow10_wide(-p);
        q = n / div;
        rem = (n % div) * 2;
        half = div;
    }
    if (q >> 64)
        return -1;
    *d = (uint64_t)q;
    *up = rem > half || (rem == half && (q & 1));
    return 0;
}

size_t optinc_num_format(char *out, double v)
{
    if (!isfinite(v))
        return (size_t)snprintf(out, OPTINC_NUM_TEXT_MAX, "%.17g", v);
    char *o = out;
    if (signbit(v))
        *o++ = '-';
    double a = fabs(v);
    if (a == 0) {
        *o++ = '0';
        *o = '\0';
        return (size_t)(o - out);
    }
    int e;
    double f = frexp(a, &e);                    /* a = f . 2^e, f in [0.5, 1) */
    uint64_t m = (uint64_t)ldexp(f, 53), d = 0;
    int e2 = e - 53;
    /* floor(log10 a) is this estimate or one more; x is right when the
     * digits before rounding are 17. */
    int x = (int)floor((e - 1) * 0.30102999566398119521), up = 0;
    for (int tries = 0;; tries++) {
        if (tries == 3 || scaled_digits(m, e2, 16 - x, &d, &up))
            return (size_t)snprintf(out, OPTINC_NUM_TEXT_MAX, "%.17g", v);
        if (d >= pow10_u64[17])
            x++;
        else if (d < pow10_u64[16])
            x--;
        else
            break;
    }
    d += (uint64_t)up;
    if (d == pow10_u64[17]) {                   /* 9.99...95 rounded up to 10.0 */
        d = pow10_u64[16];
        x++;
    }
    char digits[17];
    for (int i = 16; i >= 0; i--, d /= 10)
        digits[i] = (char)('0' + d % 10);
    int nd = 17;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    if (x < -4 || x >= 17) {
        *o++ = digits[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100)
            *o++ = (char)('0' + ax / 100);
        *o++ = (char)('0' + ax / 10 % 10);
        *o++ = (char)('0' + ax % 10);
    } else if (x >= 0) {
        memcpy(o, digits, (size_t)x + 1);
        o += x + 1;
        if (nd > x + 1) {
            *o++ = '.';
            memcpy(o, digits + x + 1, (size_t)(nd - x - 1));
            o += nd - x - 1;
        }
    } else {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -x - 1; i++)
            *o++ = '0';
        memcpy(o, digits, (size_t)nd);
        o += nd;
    }
    *o = '\0';
    return (size_t)(o - out);
}

size_t optinc_int_format(char *out, long long v)
{
    char tmp[24];
    int n = 0;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do
        tmp[n++] = (char)('0' + u % 10);
    while (u /= 10);
    size_t len = 0;
    if (v < 0)
        out[len++] = '-';
    while (n)
        out[len++] = tmp[--n];
    out[len] = '\0';
    return len;
}

/* ------------------------------------------------------------------ reading */

/* m . 2^e for m < 2^53: one exact multiplication by 2^e built from its bits
 * when 2^e is a normal double and the product stays one (what ldexp gives,
 * without its call); ldexp otherwise. */
static double scaled(uint64_t m, int e)
{
    if (e < -1022 || e > 1023 - 53)
        return ldexp((double)m, e);
    uint64_t bits = (uint64_t)(1023 + e) << 52;
    double p2;
    memcpy(&p2, &bits, sizeof p2);
    return (double)m * p2;
}

/* The top 53 bits of n, rounded half-even (sticky: a nonzero remainder below
 * n), times 2^scale. */
static double round_to_double(u128 n, int sticky, int scale)
{
    int b = bits_of(n);
    if (b <= 53)
        return scaled((uint64_t)n, scale);
    int sh = b - 53;
    uint64_t mant = (uint64_t)(n >> sh);
    u128 rest = n & (((u128)1 << sh) - 1), half = (u128)1 << (sh - 1);
    if (rest > half || (rest == half && (sticky || (mant & 1))))
        mant++;
    if (mant >> 53) {
        mant >>= 1;
        sh++;
    }
    return scaled(mant, sh + scale);
}

/* D . 10^k exactly rounded, or NAN when outside the exact paths. */
static double exact_value(uint64_t d, int k)
{
    if (d < (1ull << 53) && k >= -22 && k <= 22)
        return k >= 0 ? (double)d * pow10_exact[k] : (double)d / pow10_exact[-k];
    if (k >= 0 && k <= 19)
        return round_to_double((u128)d * pow10_u64[k], 0, 0);
    if (k < 0 && k >= -19) {
        uint64_t div = pow10_u64[-k];
        int s = 55 + bits_of(div) - bits_of(d);
        if (s < 0)
            return NAN;
        /* The quotient has 55 or 56 bits: one 128-by-64-bit division, the
         * remainder from it rather than from a second one. */
        u128 n = (u128)d << s;
        uint64_t q = (uint64_t)(n / div), rem = (uint64_t)n - q * div;
        return round_to_double(q, rem != 0, -s);
    }
    return NAN;
}

static optinc_num_parse_result slow_parse(const char *s, size_t len, double *out)
{
    char small[64], *tmp = len < sizeof small ? small : malloc(len + 1);
    if (!tmp)
        return OPTINC_NUM_RANGE;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    double v = strtod(tmp, NULL);
    if (tmp != small)
        free(tmp);
    if (isinf(v))
        return OPTINC_NUM_RANGE;
    *out = v;
    return OPTINC_NUM_OK;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* The significant digits of the mantissa s[0 .. len) (DIGITS [. DIGITS]),
 * the first 19 into *d and their scale into *scale; 1 when more follow. */
static int significant_digits(const char *s, size_t len, uint64_t *d, int *scale)
{
    size_t i = 0;
    int many = 0, sig = 0;
    *d = 0;
    *scale = 0;
    for (; i < len && is_digit(s[i]); i++) {
        if (*d == 0 && s[i] == '0')
            continue;
        if (sig++ < 19)
            *d = *d * 10 + (uint64_t)(s[i] - '0');
        else
            many = 1;
    }
    if (i < len && s[i] == '.') {
        for (i++; i < len && is_digit(s[i]); i++) {
            if (*d == 0 && s[i] == '0') {
                --*scale;
                continue;
            }
            if (sig++ < 19) {
                *d = *d * 10 + (uint64_t)(s[i] - '0');
                --*scale;
            } else {
                many = 1;
            }
        }
    }
    return many;
}

/* The value of the 8 digits in w (the first in its lowest byte), or -1
 * when a byte of w is not a digit.  Lanes of 1, 2 and 4 digits are joined
 * pairwise (d0 . 10 + d1 in each 16-bit lane, then . 100 in 32-bit lanes,
 * then . 10^4), three multiplications where digit by digit takes eight. */
static int64_t eight_digits(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101u;
    uint64_t v = w - 0x30 * ones;
    /* a digit's byte is 0..9: no borrow out of it, and + 0x76 leaves bit 7 clear */
    if ((w & 0xf0f0f0f0f0f0f0f0u) != 0x30 * ones || ((v + 0x76 * ones) & 0x80 * ones))
        return -1;
    v = (v * 10 + (v >> 8)) & 0x00ff00ff00ff00ffu;
    v = (v * 100 + (v >> 16)) & 0x0000ffff0000ffffu;
    v = (v * 10000 + (v >> 32)) & 0xffffffffu;
    return (int64_t)v;
}

/* Appends the run of digits at s[i ..] to *d (modulo 2^64: the caller uses
 * *d only when there are at most 19 digits in all); the index past them. */
static inline size_t take_digits(const char *s, size_t len, size_t i, uint64_t *d)
{
    uint64_t x = *d;
    int64_t eight;
    while (len - i >= 8 && (eight = eight_digits(optinc_load8(s + i))) >= 0) {
        x = x * 100000000u + (uint64_t)eight;
        i += 8;
    }
    for (; i < len && is_digit(s[i]); i++)
        x = x * 10 + (uint64_t)(s[i] - '0');
    *d = x;
    return i;
}

int optinc_num_underflowed(const char *s, size_t len, double x)
{
    for (size_t k = 0; x == 0 && k < len && s[k] != 'e' && s[k] != 'E'; k++)
        if (s[k] >= '1' && s[k] <= '9')
            return 1;
    return 0;
}

optinc_num_parse_result optinc_num_parse(const char *s, size_t len, double *out)
{
    size_t i = 0;
    int negative = 0, scale;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        negative = s[i++] == '-';
    /* One pass over the digits, all of them into d (leading zeros add
     * nothing): exact when there are at most 19, which 10^19 < 2^64 holds;
     * more are counted again by significance. */
    size_t m0 = i, nfrac = 0;
    uint64_t d = 0;
    i = take_digits(s, len, i, &d);
    size_t ndigits = i - m0;
    if (i < len && s[i] == '.') {
        size_t f0 = ++i;
        i = take_digits(s, len, i, &d);
        nfrac = i - f0;
        ndigits += nfrac;
    }
    if (!ndigits)
        return OPTINC_NUM_SYNTAX;
    size_t m1 = i;
    long exp10 = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        int eneg = 0;
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        if (i >= len || !is_digit(s[i]))
            return OPTINC_NUM_SYNTAX;
        for (; i < len && is_digit(s[i]); i++)
            if (exp10 < 100000)
                exp10 = exp10 * 10 + (s[i] - '0');
        exp10 = eneg ? -exp10 : exp10;
    }
    if (i != len)
        return OPTINC_NUM_SYNTAX;
    if (ndigits <= 19)
        scale = -(int)nfrac;
    else if (significant_digits(s + m0, m1 - m0, &d, &scale))
        return slow_parse(s, len, out);     /* more than 19 significant digits */
    if (d == 0) {
        *out = negative ? -0.0 : 0.0;
        return OPTINC_NUM_OK;
    }
    double v = exact_value(d, (int)(exp10 + scale));
    if (isnan(v))
        return slow_parse(s, len, out);
    *out = negative ? -v : v;
    return OPTINC_NUM_OK;
}

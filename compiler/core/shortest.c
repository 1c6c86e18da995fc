/*
 * shortest.c - a double in the shortest text that reads back to the same
 * double (0.05, not 0.050000000000000003), for the outputs that must be both
 * exact and readable: the command line's JSON and the exports
 * (optinc-export(1)).
 *
 * What it writes is what trying printf("%.*g") at every precision from 1 to
 * 17 and keeping the shortest text that strtod reads back gives, without
 * printf or strtod: the exports write hundreds of thousands of numbers, and
 * 17 rounds of each were most of their time.  The 17 significant digits of
 * %.17g (optinc_num_format, exact) are rounded to p digits, as %.{p}g rounds
 * them (printf decides the one case the 17 digits cannot, a 5 after the
 * p-th), and the least p whose text optinc_num_parse (correctly rounded, as
 * strtod) reads back as x is found by bisection;
 * the text is then the shorter of %g's two forms that precisions p..17 give
 * ("1.23e+05", or "123000" of the least precision with a fixed form), the
 * form of precision p on a tie, as the search over precisions kept the first.
 */
#include <stdio.h>
#include <string.h>
#include "compiler/core/numtext.h"
#include "optinc/fileio.h"

/* The significant digits of a %.17g text without its sign, into d[17],
 * and the decimal exponent of the first (d[0] counts 10^exp): the text's
 * digits before any 'e', the point after `point` of them, the first nonzero
 * one at z, make exp = e + point - 1 - z.  Returns their number (0: zero). */
static int split(const char *t, char d[17], int *exp)
{
    int all = 0, point = -1, z = -1, n = 0, e = 0;
    const char *p = t;
    for (; *p && *p != 'e'; p++) {
        if (*p == '.') {
            point = all;
            continue;
        }
        if (z < 0 && *p != '0')
            z = all;
        if (z >= 0 && n < 17)
            d[n++] = *p;
        all++;
    }
    if (*p == 'e') {
        int sign = p[1] == '-' ? -1 : 1;
        for (p += 2; *p; p++)
            e = e * 10 + (*p - '0');
        e *= sign;
    }
    while (n > 1 && d[n - 1] == '0')      /* %.17g keeps none, but be plain about it */
        n--;
    *exp = e + (point < 0 ? all : point) - 1 - z;
    return z < 0 ? 0 : n;
}

/* %g's text of sign, the p digits d and exponent x, at precision prec. */
static size_t put_g(char *out, int neg, const char *d, int p, int x, int prec)
{
    size_t n = 0;
    if (neg)
        out[n++] = '-';
    if (x < -4 || x >= prec) {       /* d.ddde+XX */
        out[n++] = d[0];
        if (p > 1) {
            out[n++] = '.';
            memcpy(out + n, d + 1, (size_t)(p - 1));
            n += (size_t)(p - 1);
        }
        n += (size_t)snprintf(out + n, 8, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
        return n;
    }
    if (x < 0) {                      /* 0.000ddd */
        out[n++] = '0';
        out[n++] = '.';
        for (int k = -1; k > x; k--)
            out[n++] = '0';
        memcpy(out + n, d, (size_t)p);
        return n + (size_t)p;
    }
    for (int k = 0; k <= x; k++)      /* ddd[000][.ddd] */
        out[n++] = k < p ? d[k] : '0';
    if (p > x + 1) {
        out[n++] = '.';
        memcpy(out + n, d + x + 1, (size_t)(p - x - 1));
        n += (size_t)(p - x - 1);
    }
    return n;
}

/* d[0..p) rounded up in place by one unit of its last digit; 1 when it
 * carried out of the first digit (999 -> 1000: d is then "1" and x grows). */
static int bump(char *d, int p)
{
    for (int k = p - 1; k >= 0; k--) {
        if (d[k] != '9') {
            d[k]++;
            return 0;
        }
        d[k] = '0';
    }
    d[0] = '1';
    return 1;
}

/* The text %.{p}g gives for x, from its n digits d and exponent ex: the
 * nearer p-digit neighbour of the digits (on a tie of the 17 digits, a 5
 * after the p-th, the exact value decides, which printf's correct rounding
 * tells), trailing zeros dropped.  Its length; *xp its exponent. */
static size_t nearest(char *text, double x, int neg, const char *d, int n, int ex, int p,
                      int *xp)
{
    char c[17];
    int up = p < n && d[p] >= '5';
    if (p == n - 1 && d[p] == '5') {
        char t[OPTINC_NUM_TEXT_MAX];
        snprintf(t, sizeof t, "%.*e", p - 1, x < 0 ? -x : x);
        up = t[0] != d[0] || (p > 1 && memcmp(t + 2, d + 1, (size_t)(p - 1)));
    }
    memcpy(c, d, (size_t)p);
    *xp = ex + (up && bump(c, p));
    int q = p;
    while (q > 1 && c[q - 1] == '0')
        q--;
    return put_g(text, neg, c, q, *xp, p);
}

/* 1 when the len bytes of text read back as x. */
static int reads_back(const char *text, size_t len, double x)
{
    double back;
    return optinc_num_parse(text, len, &back) == OPTINC_NUM_OK && back == x;
}

/* A whole x of fewer than 16 digits (a position in um on the grid): %g's
 * integer text, unless the exponent form of its significant digits is
 * shorter (1e+06) or as short (the lower precision's form).  0 when x is not
 * such a number or that form wins. */
static size_t whole(char buf[OPTINC_SHORTEST_MAX], double x)
{
    if (x == 0 || !(x > -1e15 && x < 1e15) || x != (double)(long long)x)
        return 0;
    char num[24];
    size_t n = optinc_int_format(num, (long long)x), neg = x < 0, digits = n - neg, t = 0;
    while (t + 1 < digits && num[n - 1 - t] == '0')
        t++;
    size_t sig = digits - t, exp_len = sig + (sig > 1) + 4;
    if (t && digits >= exp_len)
        return 0;
    memcpy(buf, num, n + 1);
    return n;
}

const char *optinc_shortest(char buf[OPTINC_SHORTEST_MAX], double x)
{
    char full[OPTINC_NUM_TEXT_MAX], d[17], text[OPTINC_SHORTEST_MAX];
    if (whole(buf, x))
        return buf;
    size_t len = optinc_num_format(full, x), tl;
    int neg = full[0] == '-', ex, xp;
    int n = split(full + neg, d, &ex);
    if (n == 0) {                     /* zero */
        memcpy(buf, full, len + 1);
        return buf;
    }
    /* the least precision that reads back: more digits are nearer, so
     * bisect, then make sure of the two below (a neighbour on the narrow
     * side of a power of two) */
    int lo = 1, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        tl = nearest(text, x, neg, d, n, ex, mid, &xp);
        if (reads_back(text, tl, x))
            hi = mid;
        else
            lo = mid + 1;
    }
    for (int p = lo - 2; p < lo; p++) {
        if (p < 1)
            continue;
        tl = nearest(text, x, neg, d, n, ex, p, &xp);
        if (reads_back(text, tl, x)) {
            lo = p;
            break;
        }
    }
    tl = nearest(text, x, neg, d, n, ex, lo, &xp);
    /* the fixed form the least precision that has one gives (x+1 digits,
     * %g's own rounding), when it is shorter and reads back (or is %.17g's) */
    int prec = xp + 1;
    if (xp >= lo && prec <= 17) {
        char fixed[OPTINC_SHORTEST_MAX];
        int fl = snprintf(fixed, sizeof fixed, "%.*g", prec, x);
        if (fl > 0 && (size_t)fl < tl && (prec == 17 || reads_back(fixed, (size_t)fl, x))) {
            memcpy(text, fixed, (size_t)fl);
            tl = (size_t)fl;
        }
    }
    memcpy(buf, text, tl);
    buf[tl] = '\0';
    return buf;
}

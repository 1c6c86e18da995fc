/*
 * onn_encode.c - the arithmetic around the ONN: PAM4 digits of the offset-
 * binary codes, the preprocessing P, the rounded-average target, and the
 * exact enumeration of P's outputs with their multiplicities.  The codes
 * themselves come from the gradients' one block quantizer, in allreduce.c.
 *
 * Why it is laid out so: every number the ONN must learn is fixed here, in
 * integers, so that "100% accuracy" has one meaning everywhere (training,
 * verification of the compiled circuit, the trainer's lookup table, tests).
 * The target is computed from the P outputs, not from the raw codes: P is
 * linear and the rounded average depends only on sum_i v_i = sum_k w_k p_k,
 * which is what lets the verifier walk P's outputs instead of 2^(N*b) raw
 * inputs.  The multiplicity of each P output (how many raw inputs map onto
 * it) turns a per-point accuracy into the accuracy a uniform stream of codes
 * would see; it factors over digits when values are unrestricted, so even the
 * 13^8-point box of 16-bit codes needs no table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/onn.h"

/* ---- encoding ------------------------------------------------------------ */

void optinc_pam4_encode(uint32_t code, int digits, uint8_t *d)
{
    for (int k = 0; k < digits; k++)
        d[k] = (uint8_t)((code >> (2 * k)) & 3u);
}

uint32_t optinc_pam4_decode(const uint8_t *d, int digits)
{
    uint32_t v = 0;
    for (int k = digits - 1; k >= 0; k--)
        v = (v << 2) | (d[k] & 3u);
    return v;
}

uint32_t optinc_code_zero(int bits)
{
    int digits = bits / 2;
    uint32_t zero = digits > 1 ? 1 : 2;
    for (int k = 1; k < digits; k++)
        zero = 4 * zero + 2;
    return zero;
}

/* ---- tasks --------------------------------------------------------------- */

static optinc_status task_check(optinc_onn_task *t, optinc_error *err)
{
    if (t->servers < 2 || t->servers > 64)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "servers must be in 2..64, got %d", t->servers);
    if (t->in_digits < 1 || t->in_digits > OPTINC_ONN_MAX_DIGITS
        || t->out_digits < 1 || t->out_digits > OPTINC_ONN_MAX_DIGITS)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "gradient bits must be even and in 2..32");
    return OPTINC_OK;
}

optinc_status optinc_onn_task_unit(optinc_onn_task *t, int servers, int bits,
                                   optinc_preproc pre, optinc_rounding rounding,
                                   optinc_error *err)
{
    if (bits < 2 || bits > 32 || bits % 2)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "gradient bits must be even and in 2..32 (PAM4 carries 2 bits per "
                           "symbol), got %d", bits);
    memset(t, 0, sizeof *t);
    t->servers = servers;
    t->in_digits = t->out_digits = bits / 2;
    t->in_max = (uint32_t)((1ull << bits) - 1);
    t->divisor = servers;
    t->pre = pre;
    t->rounding = rounding;
    return task_check(t, err);
}

optinc_status optinc_onn_task_cascade(optinc_onn_task *t, int level, int fan_in, int bits,
                                      optinc_preproc pre, optinc_rounding rounding,
                                      optinc_error *err)
{
    optinc_status st = optinc_onn_task_unit(t, fan_in, bits, pre, rounding, err);
    if (st)
        return st;
    if (bits > 30)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "a cascade keeps one extra digit: gradient bits must be <= 30");
    if (level == 1) {
        /* sum/fan_in with its fraction kept: fan_in <= 4 keeps it in one
         * extra digit, so the output is the exact group sum in b/2+1 digits. */
        if (fan_in > 4)
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "the cascade carries the fraction in one PAM4 digit: fan_in "
                               "must be <= 4, got %d", fan_in);
        t->divisor = 1;
        t->out_digits = bits / 2 + 1;
    } else if (level == 2) {
        t->in_digits = bits / 2 + 1;
        t->in_max = (uint32_t)(fan_in * ((1ull << bits) - 1));
        t->divisor = fan_in * fan_in;
    } else {
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "cascade level must be 1 or 2, got %d", level);
    }
    return task_check(t, err);
}

int optinc_onn_task_inputs(const optinc_onn_task *t)
{
    return t->pre == OPTINC_P_DIGIT_SUMS ? t->in_digits : 1;
}

int optinc_onn_task_outputs(const optinc_onn_task *t)
{
    return t->code == OPTINC_CODE_OFFSET ? 2 * t->out_digits - 1 : t->out_digits;
}

uint64_t optinc_onn_task_weight(const optinc_onn_task *t, int k)
{
    return t->pre == OPTINC_P_DIGIT_SUMS ? 1ull << (2 * k) : 1;
}

uint64_t optinc_onn_target(const optinc_onn_task *t, const int *p)
{
    uint64_t s = 0;
    for (int k = 0; k < optinc_onn_task_inputs(t); k++)
        s += optinc_onn_task_weight(t, k) * (uint64_t)p[k];
    uint64_t d = (uint64_t)t->divisor, q = s / d, r = s % d;
    if (2 * r > d || (2 * r == d && (t->rounding == OPTINC_ROUND_HALF_UP || (q & 1))))
        q++;
    return q;
}

void optinc_onn_preprocess(const optinc_onn_task *t, const uint32_t *v, int *p)
{
    int n = optinc_onn_task_inputs(t);
    memset(p, 0, sizeof *p * (size_t)n);
    for (int i = 0; i < t->servers; i++) {
        if (t->pre == OPTINC_P_WEIGHTED_SUM) {
            p[0] += (int)v[i];
            continue;
        }
        uint8_t d[OPTINC_ONN_MAX_DIGITS];
        optinc_pam4_encode(v[i], t->in_digits, d);
        for (int k = 0; k < n; k++)
            p[k] += d[k];
    }
}

void optinc_onn_preprocess_matrix(const optinc_onn_task *t, double *m)
{
    int rows = optinc_onn_task_inputs(t), cols = t->servers * t->in_digits;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            int k = c % t->in_digits;
            m[r * cols + c] = t->pre == OPTINC_P_WEIGHTED_SUM ? (double)(1ull << (2 * k))
                              : (k == r ? 1.0 : 0.0);
        }
}

/* ---- the domain ---------------------------------------------------------- */

double optinc_onn_domain_formula(const optinc_onn_task *t)
{
    if (t->pre == OPTINC_P_WEIGHTED_SUM)
        return (double)t->servers * (ldexp(1.0, 2 * t->in_digits) - 1) + 1;
    return pow(3.0 * t->servers + 1, t->in_digits);
}

/* The P output (as a box offset) of one value v. */
static uint64_t value_offset(const optinc_onn_domain *d, uint32_t v)
{
    if (d->task.pre == OPTINC_P_WEIGHTED_SUM)
        return v;
    uint64_t off = 0, stride = 1;
    for (int k = 0; k < d->dims; k++) {
        off += (uint64_t)((v >> (2 * k)) & 3u) * stride;
        stride *= (uint64_t)d->radix[k];
    }
    return off;
}

/* Counts of P(v_1..v_N) over all raw inputs, each v in 0..in_max: N
 * convolutions with the one-value distribution (box offsets add without
 * overflow, because the box holds the P output of N values).  A weighted sum
 * convolves with a box car, done with a running window sum. */
static optinc_status count_table(optinc_onn_domain *d, optinc_error *err)
{
    double *c = calloc(d->size, sizeof *c), *n = calloc(d->size, sizeof *n);
    if (!c || !n) {
        free(c);
        free(n);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for the P domain");
    }
    uint64_t vtop = 0;
    for (uint32_t v = 0; v <= d->task.in_max; v++)
        if (value_offset(d, v) > vtop)
            vtop = value_offset(d, v);
    c[0] = 1;
    uint64_t top = 0;                /* highest index reached so far */
    for (int i = 0; i < d->task.servers; i++) {
        memset(n, 0, sizeof *n * d->size);
        if (d->task.pre == OPTINC_P_WEIGHTED_SUM) {
            double win = 0;
            for (uint64_t j = 0; j <= top + vtop; j++) {
                win += j <= top ? c[j] : 0;
                if (j > vtop && j - vtop - 1 <= top)
                    win -= c[j - vtop - 1];
                n[j] = win;
            }
        } else {
            for (uint32_t v = 0; v <= d->task.in_max; v++) {
                uint64_t off = value_offset(d, v);
                for (uint64_t j = 0; j <= top; j++)
                    n[j + off] += c[j];
            }
        }
        top += vtop;
        double *t = c;
        c = n;
        n = t;
    }
    free(n);
    d->count = c;
    return OPTINC_OK;
}

optinc_status optinc_onn_domain_init(optinc_onn_domain *d, const optinc_onn_task *t,
                                     optinc_error *err)
{
    memset(d, 0, sizeof *d);
    d->task = *t;
    d->dims = optinc_onn_task_inputs(t);
    d->size = 1;
    for (int k = 0; k < d->dims; k++) {
        d->radix[k] = t->pre == OPTINC_P_WEIGHTED_SUM ? (int)((uint64_t)t->servers * t->in_max + 1)
                                                      : 3 * t->servers + 1;
        d->size *= (uint64_t)d->radix[k];
    }
    d->raw_total = pow((double)t->in_max + 1, t->servers);
    int full = (uint64_t)t->in_max + 1 == 1ull << (2 * t->in_digits);
    if (t->pre == OPTINC_P_DIGIT_SUMS && full) {
        /* digits are independent: count(p) = prod_k c1(p_k), c1 the number
         * of ways N digits in 0..3 sum to p_k. */
        int r = d->radix[0];
        d->digit_count = calloc((size_t)r, sizeof *d->digit_count);
        double *n = calloc((size_t)r, sizeof *n);
        if (!d->digit_count || !n) {
            free(n);
            optinc_onn_domain_free(d);
            return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
        }
        d->digit_count[0] = 1;
        for (int i = 0; i < t->servers; i++) {
            memset(n, 0, sizeof *n * (size_t)r);
            for (int s = 0; s < r; s++)
                for (int a = 0; a < 4 && s + a < r; a++)
                    n[s + a] += d->digit_count[s];
            memcpy(d->digit_count, n, sizeof *n * (size_t)r);
        }
        free(n);
        d->reachable = d->size;
        return OPTINC_OK;
    }
    if (d->size > OPTINC_ONN_MAX_POINTS)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "the P domain of this task has %llu points, too many to tabulate; "
                           "use digit sums with unrestricted values",
                           (unsigned long long)d->size);
    optinc_status st = count_table(d, err);
    if (st)
        return st;
    for (uint64_t i = 0; i < d->size; i++)
        d->reachable += d->count[i] > 0;
    return OPTINC_OK;
}

void optinc_onn_domain_free(optinc_onn_domain *d)
{
    free(d->count);
    free(d->digit_count);
    d->count = d->digit_count = NULL;
}

void optinc_onn_domain_point(const optinc_onn_domain *d, uint64_t i, int *p)
{
    for (int k = 0; k < d->dims; k++) {
        p[k] = (int)(i % (uint64_t)d->radix[k]);
        i /= (uint64_t)d->radix[k];
    }
}

uint64_t optinc_onn_domain_index(const optinc_onn_domain *d, const int *p)
{
    uint64_t i = 0, stride = 1;
    for (int k = 0; k < d->dims; k++) {
        i += (uint64_t)p[k] * stride;
        stride *= (uint64_t)d->radix[k];
    }
    return i;
}

double optinc_onn_domain_count(const optinc_onn_domain *d, uint64_t i)
{
    if (d->count)
        return d->count[i];
    double c = 1;
    for (int k = 0; k < d->dims; k++) {
        c *= d->digit_count[i % (uint64_t)d->radix[k]];
        i /= (uint64_t)d->radix[k];
    }
    return c;
}

/* ---- walking the domain ---------------------------------------------------- */

void optinc_onn_walk_init(optinc_onn_walk *w, const optinc_onn_domain *d, uint64_t sample,
                          uint64_t seed)
{
    w->d = d;
    w->next = 0;
    w->sampled = sample && d->reachable > sample;
    w->left = w->sampled ? sample : d->reachable;
    optinc_rng_stream(&w->rng, seed, 0x5a3b1e);
}

int optinc_onn_walk_next(optinc_onn_walk *w, uint64_t *index, int *p, double *count)
{
    if (!w->left)
        return 0;
    for (;;) {
        uint64_t i = w->sampled ? optinc_rng_below(&w->rng, w->d->size) : w->next++;
        double c = optinc_onn_domain_count(w->d, i);
        if (c > 0) {
            w->left--;
            *index = i;
            *count = c;
            optinc_onn_domain_point(w->d, i, p);
            return 1;
        }
    }
}

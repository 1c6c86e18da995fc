/*
 * spec_fields.c - the checks every section of the spec loader uses (see
 * spec_internal.h): the shape of mappings, scalars, numbers, names, word
 * lists and the field tables.
 *
 * Each mapping is first checked as a whole (keys are scalars, unique, and
 * known, or extensions starting with "x-"; libyaml itself accepts duplicate
 * keys silently), then its values are read by key, so the order of keys in
 * the file never matters.  Plain numeric and integer keys are described by
 * tables of `field` (key, type, offset, allowed range), so the range a value
 * must be in, the check and the message come from one place.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/fileio.h"
#include "compiler/core/numtext.h"
#include "compiler/spec/spec_internal.h"

/* --------------------------------------------------------------- nodes -- */

optinc_status optinc_spec_fail(ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return optinc_fail(c->err, OPTINC_EINPUT, c->path, (int)n->start_mark.line + 1,
                       (int)n->start_mark.column + 1, "%s", msg);
}

/* "a list", "a mapping" or "'text'" for messages. */
const char *optinc_spec_describe(const yaml_node_t *n, char *buf, size_t size)
{
    if (n->type == YAML_MAPPING_NODE)
        return "a mapping";
    if (n->type == YAML_SEQUENCE_NODE)
        return "a list";
    snprintf(buf, size, "'%.60s'", scalar_of(n));
    return buf;
}

optinc_status optinc_spec_want_map(ctx *c, yaml_node_t *n, const char *what)
{
    char buf[80];
    if (n->type == YAML_MAPPING_NODE)
        return OPTINC_OK;
    return optinc_spec_fail(c, n, "%s must be a mapping of 'key: value' entries, not %s", what,
                            optinc_spec_describe(n, buf, sizeof buf));
}

typedef struct key_ref { const char *name; int order; const yaml_node_t *node; } key_ref;

static int key_ref_cmp(const void *a, const void *b)
{
    const key_ref *x = a, *y = b;
    int r = strcmp(x->name, y->name);
    return r ? r : x->order - y->order;
}

/* Duplicate keys, found by sorting so that huge mappings stay O(n log n); the
 * error names the repeat that comes first in the file. */
static optinc_status check_duplicates(ctx *c, yaml_node_t *map, const char *what)
{
    size_t n = map_len(map);
    if (n < 2)
        return OPTINC_OK;
    key_ref *refs = malloc(n * sizeof *refs);
    if (!refs)
        return optinc_fail(c->err, OPTINC_ERUN, c->path, 0, 0, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const yaml_node_t *k = node(c, map->data.mapping.pairs.start[i].key);
        refs[i] = (key_ref){scalar_of(k), (int)i, k};
    }
    qsort(refs, n, sizeof *refs, key_ref_cmp);
    const key_ref *dup = NULL, *first = NULL;
    for (size_t i = 1; i < n; i++)
        if (!strcmp(refs[i].name, refs[i - 1].name) && (!dup || refs[i].order < dup->order)) {
            dup = &refs[i];
            first = &refs[i - 1];
            while (first > refs && !strcmp((first - 1)->name, dup->name))
                first--;
        }
    optinc_status st = OPTINC_OK;
    if (dup)
        st = optinc_spec_fail(c, dup->node, "duplicate key '%s' in %s (first given at line "
                              "%d); remove one of them", dup->name, what,
                              (int)first->node->start_mark.line + 1);
    free(refs);
    return st;
}

/* n must be a mapping whose keys are unique scalars from keys[] (NULL-ended),
 * or extensions "x-..."; keys == NULL allows any key.  A plain << is YAML's
 * merge key, which libyaml's document API leaves to the application (it
 * would be an ordinary key named "<<"); merging is refused by name rather
 * than implemented, so that what a key means never depends on keys pulled
 * in from elsewhere (and a quoted "<<" stays an ordinary unknown key). */
optinc_status optinc_spec_check_map(ctx *c, yaml_node_t *n, const char *what,
                                    const char *const *keys)
{
    optinc_status st = optinc_spec_want_map(c, n, what);
    if (st)
        return st;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(c, p->key);
        char buf[80];
        if (k->type != YAML_SCALAR_NODE)
            return optinc_spec_fail(c, k, "keys in %s must be plain names, not %s", what,
                                    optinc_spec_describe(k, buf, sizeof buf));
        const char *name = scalar_of(k);
        if (!strcmp(name, "<<") && k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
            return optinc_spec_fail(c, k, "YAML merge keys ('<<') are not supported; write the "
                                    "keys of %s out", what);
        if (!keys || !strncmp(name, "x-", 2))
            continue;
        int known = 0;
        for (const char *const *q = keys; *q && !known; q++)
            known = !strcmp(*q, name);
        if (!known) {
            char list[512] = "";
            size_t len = 0;
            for (const char *const *q = keys; *q && len < sizeof list; q++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                        q == keys ? "" : ", ", *q);
            return optinc_spec_fail(c, k, "unknown key '%s' in %s; expected one of: %s "
                                    "(extensions start with 'x-')", name, what, list);
        }
    }
    return check_duplicates(c, n, what);
}

/* The value of key in map, or NULL when absent or null. */
yaml_node_t *optinc_spec_get(ctx *c, yaml_node_t *map, const char *key)
{
    if (map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = node(c, p->key);
        if (k->type == YAML_SCALAR_NODE && !strcmp(scalar_of(k), key)) {
            yaml_node_t *v = node(c, p->value);
            return is_null(v) ? NULL : v;
        }
    }
    return NULL;
}

optinc_status optinc_spec_require(ctx *c, yaml_node_t *map, const char *key, const char *what,
                                  const char *hint, yaml_node_t **v)
{
    if ((*v = optinc_spec_get(c, map, key)))
        return OPTINC_OK;
    return optinc_spec_fail(c, map, "missing key '%s' in %s; %s", key, what, hint);
}

optinc_status optinc_spec_too_many(ctx *c, yaml_node_t *n, const char *what, size_t count)
{
    return optinc_spec_fail(c, n, "'%s' has %zu entries, more than the limit of %d "
                            "(OPTINC_LAYERS_MAX); split the network over several specs", what,
                            count, OPTINC_LAYERS_MAX);
}

optinc_status optinc_spec_entries(ctx *c, yaml_node_t *n, const char *what, size_t count,
                                  size_t max, size_t size, void **out)
{
    *out = NULL;
    if (count > max)
        return optinc_spec_too_many(c, n, what, count);
    if (count && !(*out = calloc(count, size)))
        return optinc_fail(c->err, OPTINC_ERUN, c->path, 0, 0, "out of memory");
    return OPTINC_OK;
}

/* ------------------------------------------------------------- scalars -- */

optinc_status optinc_spec_want_scalar(ctx *c, yaml_node_t *n, const char *key, const char *what,
                                      const char *expected)
{
    char buf[80];
    if (n->type == YAML_SCALAR_NODE)
        return OPTINC_OK;
    return optinc_spec_fail(c, n, "'%s' in %s must be %s, not %s", key, what, expected,
                            optinc_spec_describe(n, buf, sizeof buf));
}

static int yaml_nonfinite(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    return !strcmp(s, ".inf") || !strcmp(s, ".Inf") || !strcmp(s, ".INF") ||
           !strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN");
}

/* A finite number, real or complex (NumPy spelling); *imag says a 'j' part was
 * given.  real_only only changes the hint of the message. */
optinc_status optinc_spec_number_any(ctx *c, yaml_node_t *n, const char *key, const char *what,
                                     int real_only, double complex *z, int *imag)
{
    optinc_status st = optinc_spec_want_scalar(c, n, key, what, "a number");
    if (st)
        return st;
    const char *s = scalar_of(n);
    int r = yaml_nonfinite(s) ? 1 : optinc_parse_number(s, z, imag);
    if (r > 0)
        return optinc_spec_fail(c, n, "'%s' in %s is '%s', which is not a finite number; NaN and "
                                "infinity are not allowed, give an ordinary number", key, what, s);
    if (r < 0)
        return optinc_spec_fail(c, n, "'%s' in %s must be a number such as 0.25 or -1e-3%s, "
                                "got '%.60s'", key, what,
                                real_only ? "" : " (complex: 1+2j or [re, im])", s);
    return OPTINC_OK;
}

optinc_status optinc_spec_number(ctx *c, yaml_node_t *n, const char *key, const char *what,
                                 double *out)
{
    double complex z;
    int imag = 0;
    optinc_status st = optinc_spec_number_any(c, n, key, what, 1, &z, &imag);
    if (st)
        return st;
    if (imag)
        return optinc_spec_fail(c, n, "'%s' in %s must be a real number, got '%.60s'", key, what,
                                scalar_of(n));
    /* 1e-400 reads as 0, which for some keys means something else (a gain
     * of 0 is "the largest singular value") */
    if (optinc_num_underflowed(scalar_of(n), strlen(scalar_of(n)), creal(z)))
        return optinc_spec_fail(c, n, "'%s' in %s is '%.60s', too small for a double (it reads "
                                "as 0); give 0 or a number of at least 1e-300", key, what,
                                scalar_of(n));
    *out = creal(z);
    return OPTINC_OK;
}

/* A whole decimal number (no sign for unsigned). */
optinc_status optinc_spec_whole(ctx *c, yaml_node_t *n, const char *key, const char *what,
                                int is_unsigned, long long *s_out, unsigned long long *u_out)
{
    optinc_status st = optinc_spec_want_scalar(c, n, key, what, "a whole number");
    if (st)
        return st;
    const char *s = scalar_of(n);
    char *end;
    errno = 0;
    if (is_unsigned && isdigit((unsigned char)s[0]))
        *u_out = strtoull(s, &end, 10);
    else if (!is_unsigned && (isdigit((unsigned char)s[0]) || s[0] == '-' || s[0] == '+'))
        *s_out = strtoll(s, &end, 10);
    else
        end = (char *)s;
    if (end == s || *end || errno == ERANGE)
        return optinc_spec_fail(c, n, "'%s' in %s must be a whole number%s, got '%.60s'", key, what,
                                errno == ERANGE ? " that fits in 64 bits"
                                : is_unsigned   ? " (0 or more)" : "", s);
    return OPTINC_OK;
}

/* -------------------------------------------------------- field tables -- */

/* The bounds exactly (optinc_shortest), so the message's number is one the
 * field takes: 6.283185307179586, not 6.28319, which it refuses. */
static void range_text(const field *f, char *buf, size_t size)
{
    const char *kind = f->type == 'd' ? "a number" : "a whole number";
    char lo[OPTINC_SHORTEST_MAX], hi[OPTINC_SHORTEST_MAX];
    optinc_shortest(lo, f->lo);
    optinc_shortest(hi, f->hi);
    if (f->type != 'd' && isfinite(f->hi))
        snprintf(buf, size, "%s in %.0f..%.0f", kind, f->lo, f->hi);
    else if (isfinite(f->lo) && isfinite(f->hi))
        snprintf(buf, size, "%s in %c%s, %s%c", kind, f->lo_open ? '(' : '[', lo, hi,
                 f->hi_open ? ')' : ']');
    else if (isfinite(f->lo))
        snprintf(buf, size, "%s %s %s", kind, f->lo_open ? ">" : ">=", lo);
    else
        snprintf(buf, size, "%s %s %s", kind, f->hi_open ? "<" : "<=", hi);
}

static int in_range(const field *f, double v)
{
    return (f->lo_open ? v > f->lo : v >= f->lo) && (f->hi_open ? v < f->hi : v <= f->hi);
}

static optinc_status out_of_range(ctx *c, yaml_node_t *n, const field *f, const char *what)
{
    char want[96];
    range_text(f, want, sizeof want);
    return optinc_spec_fail(c, n, "'%s' in %s is %s, out of range; use %s%s%s", f->key, what,
                            scalar_of(n), want, f->hint ? " " : "", f->hint ? f->hint : "");
}

static optinc_status read_range_pair(ctx *c, yaml_node_t *n, const field *f, const char *what,
                                     double *out)
{
    char buf[80];
    if (n->type != YAML_SEQUENCE_NODE ||
        n->data.sequence.items.top - n->data.sequence.items.start != 2)
        return optinc_spec_fail(c, n, "'%s' in %s must be a list [lo, hi] of two numbers, "
                                "not %s", f->key, what,
                                n->type == YAML_SEQUENCE_NODE
                                    ? "a list of another length"
                                    : optinc_spec_describe(n, buf, sizeof buf));
    double v[2];
    for (int k = 0; k < 2; k++) {
        yaml_node_t *bound = node(c, n->data.sequence.items.start[k]);
        optinc_status st = optinc_spec_number(c, bound, f->key, what, &v[k]);
        if (st)
            return st;
    }
    /* What range_rad must be is checked with the bits beside it
     * (optinc_phase_range_problem). */
    memcpy(out, v, sizeof v);
    return OPTINC_OK;
}

optinc_status optinc_spec_read_fields(ctx *c, yaml_node_t *map, const char *what,
                                      const field *fields, void *base)
{
    for (const field *f = fields; f->key; f++) {
        yaml_node_t *v = optinc_spec_get(c, map, f->key);
        if (!v)
            continue;
        char *dst = (char *)base + f->off;
        optinc_status st;
        if (f->type == 'r') {
            st = read_range_pair(c, v, f, what, (double *)dst);
        } else if (f->type == 'd') {
            double d;
            if (!(st = optinc_spec_number(c, v, f->key, what, &d)) && !in_range(f, d))
                st = out_of_range(c, v, f, what);
            if (!st)
                *(double *)dst = d;
        } else {
            long long s = 0;
            unsigned long long u = 0;
            int is_u = f->type == 'u';
            if (!(st = optinc_spec_whole(c, v, f->key, what, is_u, &s, &u)) && !is_u &&
                !in_range(f, (double)s))
                st = out_of_range(c, v, f, what);
            if (!st && is_u)
                *(uint64_t *)dst = u;
            else if (!st)
                *(int *)dst = (int)s;
        }
        if (st)
            return st;
    }
    return OPTINC_OK;
}

/* ------------------------------------------------- words, names, lists -- */

/* The value of key when it is present (else *v = NULL), which must be a scalar. */
static optinc_status get_scalar(ctx *c, yaml_node_t *map, const char *key, const char *what,
                                const char *expected, yaml_node_t **v)
{
    *v = optinc_spec_get(c, map, key);
    return *v ? optinc_spec_want_scalar(c, *v, key, what, expected) : OPTINC_OK;
}

optinc_status optinc_spec_read_enum(ctx *c, yaml_node_t *map, const char *key,
                                    const char *what, const char *const *names, int *out)
{
    yaml_node_t *v;
    optinc_status st = get_scalar(c, map, key, what, "a name", &v);
    if (st || !v)
        return st;
    int found = optinc_word_index(names, scalar_of(v));
    if (found >= 0) {
        *out = found;
        return OPTINC_OK;
    }
    char list[256] = "";
    size_t len = 0;
    for (int i = 0; names[i]; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? " | " : "", names[i]);
    return optinc_spec_fail(c, v, "'%s' in %s is '%.60s', which is not known; use one of: %s",
                            key, what, scalar_of(v), list);
}

optinc_status optinc_spec_read_bool(ctx *c, yaml_node_t *map, const char *key, const char *what,
                                    int *out)
{
    static const char *const names[] = {"false", "true", NULL};
    return optinc_spec_read_enum(c, map, key, what, names, out);
}

optinc_status optinc_spec_read_string(ctx *c, yaml_node_t *map, const char *key, const char *what,
                                      char *out, size_t size)
{
    yaml_node_t *v;
    optinc_status st = get_scalar(c, map, key, what, "text", &v);
    if (st || !v)
        return st;
    if (strlen(scalar_of(v)) >= size)
        return optinc_spec_fail(c, v, "'%s' in %s is longer than %zu characters; shorten it",
                                key, what, size - 1);
    memcpy(out, scalar_of(v), strlen(scalar_of(v)) + 1);
    return OPTINC_OK;
}

int optinc_spec_is_ident(const char *s)
{
    if (!isalpha((unsigned char)s[0]) && s[0] != '_')
        return 0;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return 0;
    return strlen(s) < OPTINC_NAME_MAX;
}

/* An identifier scalar n (a value or a key) into out. */
optinc_status optinc_spec_ident(ctx *c, yaml_node_t *n, const char *key, const char *what,
                                char *out)
{
    optinc_status st = optinc_spec_want_scalar(c, n, key, what, "a name");
    if (st)
        return st;
    if (!optinc_spec_is_ident(scalar_of(n)))
        return optinc_spec_fail(c, n, "'%.80s' in %s is not a valid %s; use letters, digits "
                                "and '_', starting with a letter or '_', at most %d characters",
                                scalar_of(n), what, key, OPTINC_NAME_MAX - 1);
    strcpy(out, scalar_of(n));
    return OPTINC_OK;
}

/* A list of whole numbers in lo..hi, at most max entries. */
optinc_status optinc_spec_read_int_list(ctx *c, yaml_node_t *n, const char *key, const char *what,
                                        int lo, int hi, int *out, int max, int *count)
{
    char buf[80];
    if (n->type != YAML_SEQUENCE_NODE)
        return optinc_spec_fail(c, n, "'%s' in %s must be a list of whole numbers such as "
                                "[64, 64], not %s", key, what,
                                optinc_spec_describe(n, buf, sizeof buf));
    int k = 0;
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++, k++) {
        yaml_node_t *v = node(c, *it);
        if (k == max)
            return optinc_spec_fail(c, v, "'%s' in %s has more than %d entries; that is the "
                                    "limit", key, what, max);
        long long s = 0;
        unsigned long long u;
        optinc_status st = optinc_spec_whole(c, v, key, what, 0, &s, &u);
        if (st)
            return st;
        if (s < lo || s > hi)
            return optinc_spec_fail(c, v, "entry %d of '%s' in %s is %lld, out of range; use "
                                    "%d..%d", k + 1, key, what, s, lo, hi);
        out[k] = (int)s;
    }
    *count = k;
    return OPTINC_OK;
}

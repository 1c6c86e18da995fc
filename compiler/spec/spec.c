/*
 * spec.c - loading and validating the YAML topology spec (optinc-spec(5)).
 *
 * The spec is the user's only way in, so every mistake in it must come back as
 * one precise "FILE:LINE:COL: error: what is wrong; how to fix it" and never as
 * a wrong circuit.  Hence the design:
 *
 *  - The whole file (at most OPTINC_SPEC_FILE_MAX bytes) is read once, hashed
 *    (the netlist header records the sha256) and handed to libyaml's document
 *    API, which gives a node tree with a start mark on every node.  The tree is
 *    then walked against the schema: each mapping is first checked as a whole
 *    (keys are scalars, unique, and known, or extensions starting with "x-";
 *    libyaml itself accepts duplicate keys silently), then its values are read
 *    by key, so the order of keys in the file never matters.
 *  - Errors point at the node that is wrong: an unknown or duplicate key at the
 *    key, a bad value at the value, a missing key at the mapping that lacks it.
 *  - Plain numeric and integer fields are described by tables of `field`
 *    (key, type, offset, allowed range), so the range a value must be in, the
 *    check and the message come from one place; the components table is
 *    parsed by the same code for the global defaults and for per-layer
 *    overrides, which start from a copy of the global table (that copy is the
 *    merge).
 *  - YAML null (an empty value, "~", "null") means "not given": the default
 *    applies.
 *  - Resource limits (optinc-limits(7)): the file size first; then one pass
 *    of libyaml's event parser checks the nesting depth and counts nodes,
 *    anchors and aliases before the document is built, because libyaml has
 *    no limits of its own: its time grows with the square of the flow
 *    nesting and of the number of anchors (a 100 kB file of '[' took 49 s,
 *    100,000 anchors 50 s) and its memory is ~90 bytes per byte of "1,1,"
 *    (a 64 MiB spec would need 5 GB).  The pass stops at the first event
 *    past a limit, so it costs no more than the file's size.  Matrix sizes,
 *    their sum, the number of matrices and layers and the size of the
 *    circuit the layers compile to are checked before anything is allocated
 *    or generated.  Aliases share nodes and the walk visits only what the
 *    schema asks for, so alias bombs cost nothing beyond the alias count.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>
#include "optinc/fileio.h"
#include "optinc/limits.h"
#include "optinc/matrix.h"
#include "optinc/spec.h"
#include "optinc/train.h"

typedef struct ctx {
    const char *path;          /* the spec file, for error records */
    yaml_document_t *doc;
    optinc_error *err;
    optinc_spec *spec;
    long long cards;           /* the layers so far would compile to */
    const optinc_limits *lim;  /* NULL: the defaults */
} ctx;

static yaml_node_t *node(ctx *c, int index) { return yaml_document_get_node(c->doc, index); }

static optinc_status fail(ctx *c, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static optinc_status fail(ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return optinc_fail(c->err, OPTINC_EINPUT, c->path, (int)n->start_mark.line + 1,
                       (int)n->start_mark.column + 1, "%s", msg);
}

static const char *scalar_of(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static int is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    const char *s = scalar_of(n);
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
           !strcmp(s, "NULL");
}

/* "a list", "a mapping" or "'text'" for messages. */
static const char *describe(const yaml_node_t *n, char *buf, size_t size)
{
    if (n->type == YAML_MAPPING_NODE)
        return "a mapping";
    if (n->type == YAML_SEQUENCE_NODE)
        return "a list";
    snprintf(buf, size, "'%.60s'", scalar_of(n));
    return buf;
}

/* ------------------------------------------------------- mapping shape -- */

static optinc_status want_map(ctx *c, yaml_node_t *n, const char *what)
{
    char buf[80];
    if (n->type == YAML_MAPPING_NODE)
        return OPTINC_OK;
    return fail(c, n, "%s must be a mapping of 'key: value' entries, not %s", what,
                describe(n, buf, sizeof buf));
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
    size_t n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
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
        st = fail(c, dup->node, "duplicate key '%s' in %s (first given at line %d); "
                  "remove one of them", dup->name, what, (int)first->node->start_mark.line + 1);
    free(refs);
    return st;
}

/* n must be a mapping whose keys are unique scalars from keys[] (NULL-ended),
 * or extensions "x-..."; keys == NULL allows any key. */
static optinc_status check_map(ctx *c, yaml_node_t *n, const char *what,
                               const char *const *keys)
{
    optinc_status st = want_map(c, n, what);
    if (st)
        return st;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(c, p->key);
        char buf[80];
        if (k->type != YAML_SCALAR_NODE)
            return fail(c, k, "keys in %s must be plain names, not %s", what,
                        describe(k, buf, sizeof buf));
        const char *name = scalar_of(k);
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
            return fail(c, k, "unknown key '%s' in %s; expected one of: %s "
                        "(extensions start with 'x-')", name, what, list);
        }
    }
    return check_duplicates(c, n, what);
}

/* The value of key in map, or NULL when absent or null. */
static yaml_node_t *get(ctx *c, yaml_node_t *map, const char *key)
{
    if (map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(c, p->key);
        if (k->type == YAML_SCALAR_NODE && !strcmp(scalar_of(k), key)) {
            yaml_node_t *v = node(c, p->value);
            return is_null(v) ? NULL : v;
        }
    }
    return NULL;
}

static optinc_status require(ctx *c, yaml_node_t *map, const char *key, const char *what,
                             const char *hint, yaml_node_t **v)
{
    if ((*v = get(c, map, key)))
        return OPTINC_OK;
    return fail(c, map, "missing key '%s' in %s; %s", key, what, hint);
}

/* ------------------------------------------------------------- scalars -- */

static optinc_status want_scalar(ctx *c, yaml_node_t *n, const char *key, const char *what,
                                 const char *expected)
{
    char buf[80];
    if (n->type == YAML_SCALAR_NODE)
        return OPTINC_OK;
    return fail(c, n, "'%s' in %s must be %s, not %s", key, what, expected,
                describe(n, buf, sizeof buf));
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
static optinc_status number_any(ctx *c, yaml_node_t *n, const char *key, const char *what,
                                int real_only, double complex *z, int *imag)
{
    optinc_status st = want_scalar(c, n, key, what, "a number");
    if (st)
        return st;
    const char *s = scalar_of(n);
    int r = yaml_nonfinite(s) ? 1 : optinc_parse_number(s, z, imag);
    if (r > 0)
        return fail(c, n, "'%s' in %s is '%s', which is not a finite number; NaN and "
                    "infinity are not allowed, give an ordinary number", key, what, s);
    if (r < 0)
        return fail(c, n, "'%s' in %s must be a number such as 0.25 or -1e-3%s, got '%.60s'",
                    key, what, real_only ? "" : " (complex: 1+2j or [re, im])", s);
    return OPTINC_OK;
}

static optinc_status number(ctx *c, yaml_node_t *n, const char *key, const char *what,
                            double *out)
{
    double complex z;
    int imag = 0;
    optinc_status st = number_any(c, n, key, what, 1, &z, &imag);
    if (st)
        return st;
    if (imag)
        return fail(c, n, "'%s' in %s must be a real number, got '%.60s'", key, what,
                    scalar_of(n));
    *out = creal(z);
    return OPTINC_OK;
}

/* A whole decimal number (no sign for unsigned). */
static optinc_status whole(ctx *c, yaml_node_t *n, const char *key, const char *what,
                           int is_unsigned, long long *s_out, unsigned long long *u_out)
{
    optinc_status st = want_scalar(c, n, key, what, "a whole number");
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
        return fail(c, n, "'%s' in %s must be a whole number%s, got '%.60s'", key, what,
                    errno == ERANGE ? " that fits in 64 bits"
                    : is_unsigned   ? " (0 or more)" : "", s);
    return OPTINC_OK;
}

/* ---------------------------------------------------------- field tables -- */

typedef struct field {
    const char *key;
    char type;                 /* 'd' double, 'i' int, 'u' uint64_t, 'r' range pair */
    size_t off;                /* into the struct being filled */
    double lo, hi;             /* allowed range */
    char lo_open, hi_open;     /* 1 when the bound itself is excluded */
    const char *hint;          /* said after a range error */
} field;

#define FIELDS_END {NULL, 0, 0, 0, 0, 0, 0, NULL}

static void range_text(const field *f, char *buf, size_t size)
{
    const char *kind = f->type == 'd' ? "a number" : "a whole number";
    if (f->type != 'd' && isfinite(f->hi))
        snprintf(buf, size, "%s in %.0f..%.0f", kind, f->lo, f->hi);
    else if (isfinite(f->lo) && isfinite(f->hi))
        snprintf(buf, size, "%s in %c%g, %g%c", kind, f->lo_open ? '(' : '[', f->lo, f->hi,
                 f->hi_open ? ')' : ']');
    else if (isfinite(f->lo))
        snprintf(buf, size, "%s %s %g", kind, f->lo_open ? ">" : ">=", f->lo);
    else
        snprintf(buf, size, "%s %s %g", kind, f->hi_open ? "<" : "<=", f->hi);
}

static int in_range(const field *f, double v)
{
    return (f->lo_open ? v > f->lo : v >= f->lo) && (f->hi_open ? v < f->hi : v <= f->hi);
}

static optinc_status out_of_range(ctx *c, yaml_node_t *n, const field *f, const char *what)
{
    char want[96];
    range_text(f, want, sizeof want);
    return fail(c, n, "'%s' in %s is %s, out of range; use %s%s%s", f->key, what, scalar_of(n),
                want, f->hint ? " " : "", f->hint ? f->hint : "");
}

static optinc_status read_range_pair(ctx *c, yaml_node_t *n, const field *f, const char *what,
                                     double *out)
{
    char buf[80];
    if (n->type != YAML_SEQUENCE_NODE ||
        n->data.sequence.items.top - n->data.sequence.items.start != 2)
        return fail(c, n, "'%s' in %s must be a list [lo, hi] of two numbers, not %s", f->key,
                    what, n->type == YAML_SEQUENCE_NODE ? "a list of another length"
                                                        : describe(n, buf, sizeof buf));
    double v[2];
    for (int k = 0; k < 2; k++) {
        optinc_status st = number(c, node(c, n->data.sequence.items.start[k]), f->key, what,
                                  &v[k]);
        if (st)
            return st;
    }
    /* Every phase in [0, 2 pi) must be reachable; allow for the rounding of a
     * decimal 2 pi such as 6.283185307179586. */
    if (v[1] - v[0] < 2 * M_PI * (1 - 1e-12))
        return fail(c, n, "'%s' in %s spans %g rad, less than 2*pi: a phase shifter must "
                    "reach every phase modulo 2*pi, or some MZI settings cannot be "
                    "programmed; use a range at least 2*pi wide, e.g. "
                    "[0, 6.283185307179586]", f->key, what, v[1] - v[0]);
    memcpy(out, v, sizeof v);
    return OPTINC_OK;
}

static optinc_status read_fields(ctx *c, yaml_node_t *map, const char *what,
                                 const field *fields, void *base)
{
    for (const field *f = fields; f->key; f++) {
        yaml_node_t *v = get(c, map, f->key);
        if (!v)
            continue;
        char *dst = (char *)base + f->off;
        optinc_status st;
        if (f->type == 'r') {
            st = read_range_pair(c, v, f, what, (double *)dst);
        } else if (f->type == 'd') {
            double d;
            if (!(st = number(c, v, f->key, what, &d)) && !in_range(f, d))
                st = out_of_range(c, v, f, what);
            if (!st)
                *(double *)dst = d;
        } else {
            long long s = 0;
            unsigned long long u = 0;
            int is_u = f->type == 'u';
            if (!(st = whole(c, v, f->key, what, is_u, &s, &u)) && !is_u && !in_range(f, (double)s))
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

/* The keys of a field table, NULL-ended, for check_map. */
static void field_keys(const field *fields, const char **keys, size_t size)
{
    size_t n = 0;
    for (; fields[n].key && n + 1 < size; n++)
        keys[n] = fields[n].key;
    keys[n] = NULL;
}

/* The value of key when it is present (else *v = NULL), which must be a scalar. */
static optinc_status get_scalar(ctx *c, yaml_node_t *map, const char *key, const char *what,
                                const char *expected, yaml_node_t **v)
{
    *v = get(c, map, key);
    return *v ? want_scalar(c, *v, key, what, expected) : OPTINC_OK;
}

static optinc_status read_enum(ctx *c, yaml_node_t *map, const char *key, const char *what,
                               const char *const *names, int *out)
{
    yaml_node_t *v;
    optinc_status st = get_scalar(c, map, key, what, "a name", &v);
    if (st || !v)
        return st;
    char list[256] = "";
    size_t len = 0;
    for (int i = 0; names[i]; i++) {
        if (!strcmp(names[i], scalar_of(v))) {
            *out = i;
            return OPTINC_OK;
        }
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? " | " : "", names[i]);
    }
    return fail(c, v, "'%s' in %s is '%.60s', which is not known; use one of: %s", key, what,
                scalar_of(v), list);
}

static optinc_status read_bool(ctx *c, yaml_node_t *map, const char *key, const char *what,
                               int *out)
{
    static const char *const names[] = {"false", "true", NULL};
    return read_enum(c, map, key, what, names, out);
}

static optinc_status read_string(ctx *c, yaml_node_t *map, const char *key, const char *what,
                                 char *out, size_t size)
{
    yaml_node_t *v;
    optinc_status st = get_scalar(c, map, key, what, "text", &v);
    if (st || !v)
        return st;
    if (strlen(scalar_of(v)) >= size)
        return fail(c, v, "'%s' in %s is longer than %zu characters; shorten it", key, what,
                    size - 1);
    memcpy(out, scalar_of(v), strlen(scalar_of(v)) + 1);
    return OPTINC_OK;
}

static int is_ident(const char *s)
{
    if (!isalpha((unsigned char)s[0]) && s[0] != '_')
        return 0;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return 0;
    return strlen(s) < OPTINC_NAME_MAX;
}

/* An identifier scalar n (a value or a key) into out. */
static optinc_status ident(ctx *c, yaml_node_t *n, const char *key, const char *what, char *out)
{
    optinc_status st = want_scalar(c, n, key, what, "a name");
    if (st)
        return st;
    if (!is_ident(scalar_of(n)))
        return fail(c, n, "'%.80s' in %s is not a valid %s; use letters, digits and '_', "
                    "starting with a letter or '_', at most %d characters", scalar_of(n), what,
                    key, OPTINC_NAME_MAX - 1);
    strcpy(out, scalar_of(n));
    return OPTINC_OK;
}

/* A list of whole numbers in lo..hi, at most max entries. */
static optinc_status read_int_list(ctx *c, yaml_node_t *n, const char *key, const char *what,
                                   int lo, int hi, int *out, int max, int *count)
{
    char buf[80];
    if (n->type != YAML_SEQUENCE_NODE)
        return fail(c, n, "'%s' in %s must be a list of whole numbers such as [64, 64], not %s",
                    key, what, describe(n, buf, sizeof buf));
    int k = 0;
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++, k++) {
        yaml_node_t *v = node(c, *it);
        if (k == max)
            return fail(c, v, "'%s' in %s has more than %d entries; that is the limit", key,
                        what, max);
        long long s = 0;
        unsigned long long u;
        optinc_status st = whole(c, v, key, what, 0, &s, &u);
        if (st)
            return st;
        if (s < lo || s > hi)
            return fail(c, v, "entry %d of '%s' in %s is %lld, out of range; use %d..%d", k + 1,
                        key, what, s, lo, hi);
        out[k] = (int)s;
    }
    *count = k;
    return OPTINC_OK;
}

/* ------------------------------------------------------------ sections -- */

static const char *const mesh_names[] = {"clements", "reck", NULL};
static const char *const att_names[] = {"middle", "none", "input", "output", NULL};
static const char *const act_names[] = {"none", "relu_eo", "abs2", NULL};

#define CF(f) offsetof(optinc_components, f)
static const field mzi_fields[] = {
    {"insertion_loss_dB", 'd', CF(mzi.insertion_loss_dB), 0, INFINITY, 0, 0, "(a loss in dB)"},
    {"phase_error_sigma_rad", 'd', CF(mzi.phase_error_sigma_rad), 0, INFINITY, 0, 0, NULL},
    {"splitter_error_sigma", 'd', CF(mzi.splitter_error_sigma), 0, INFINITY, 0, 0, NULL},
    FIELDS_END};
static const field ps_fields[] = {
    {"bits", 'i', CF(phase_shifter.bits), 0, 16, 0, 0, "(0 = not quantized)"},
    {"range_rad", 'r', CF(phase_shifter.range_rad), 0, 0, 0, 0, NULL},
    {"noise_sigma_rad", 'd', CF(phase_shifter.noise_sigma_rad), 0, INFINITY, 0, 0, NULL},
    {"thermal_crosstalk", 'd', CF(phase_shifter.thermal_crosstalk), 0, 0.5, 0, 1,
     "(the fraction of a heater's phase reaching each neighbour)"},
    FIELDS_END};
static const field att_fields[] = {
    {"insertion_loss_dB", 'd', CF(attenuator.insertion_loss_dB), 0, INFINITY, 0, 0,
     "(a loss in dB)"},
    {"max_attenuation_dB", 'd', CF(attenuator.max_attenuation_dB), 0, INFINITY, 1, 0, NULL},
    {"bits", 'i', CF(attenuator.bits), 0, 16, 0, 0, "(0 = continuous)"},
    FIELDS_END};
static const field wg_fields[] = {
    {"loss_dB_cm", 'd', CF(waveguide.loss_dB_cm), 0, INFINITY, 0, 0, NULL},
    FIELDS_END};
static const field cross_fields[] = {
    {"insertion_loss_dB", 'd', CF(crossing.insertion_loss_dB), 0, INFINITY, 0, 0,
     "(a loss in dB)"},
    {"crosstalk_dB", 'd', CF(crossing.crosstalk_dB), -INFINITY, 0, 0, 0,
     "(a power ratio in dB such as -40; 0 = not modelled)"},
    FIELDS_END};
static const field pd_fields[] = {
    {"responsivity_A_W", 'd', CF(detector.responsivity_A_W), 0, INFINITY, 1, 0, NULL},
    FIELDS_END};

static const struct { const char *name; const field *fields; } comp_sections[] = {
    {"mzi", mzi_fields},         {"phase_shifter", ps_fields}, {"attenuator", att_fields},
    {"waveguide", wg_fields},    {"crossing", cross_fields},   {"detector", pd_fields},
};
#define N_COMP_SECTIONS (sizeof comp_sections / sizeof comp_sections[0])

void optinc_components_defaults(optinc_components *comp)
{
    memset(comp, 0, sizeof *comp);
    comp->phase_shifter.range_rad[1] = 2 * M_PI;
    comp->attenuator.max_attenuation_dB = 60;
    comp->detector.responsivity_A_W = 1;
}

/* Reads a components table over *comp (which holds the defaults or the table
 * being overridden); `owner` is "" or " of layer 'L1'" for messages. */
static optinc_status parse_components(ctx *c, yaml_node_t *n, const char *owner,
                                      optinc_components *comp)
{
    const char *names[N_COMP_SECTIONS + 1];
    char what[192];
    for (size_t i = 0; i < N_COMP_SECTIONS; i++)
        names[i] = comp_sections[i].name;
    names[N_COMP_SECTIONS] = NULL;
    snprintf(what, sizeof what, "components%s", owner);
    optinc_status st = check_map(c, n, what, names);
    for (size_t i = 0; i < N_COMP_SECTIONS && !st; i++) {
        yaml_node_t *sec = get(c, n, comp_sections[i].name);
        const char *keys[8];
        if (!sec)
            continue;
        snprintf(what, sizeof what, "components.%s%s", comp_sections[i].name, owner);
        field_keys(comp_sections[i].fields, keys, 8);
        if (!(st = check_map(c, sec, what, keys)))
            st = read_fields(c, sec, what, comp_sections[i].fields, comp);
    }
    return st;
}

static optinc_status parse_settings(ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"wavelength_um", "mesh", "attenuators",
                                       "mzi_convention", "seed", NULL};
    static const char *const conventions[] = {"clements2016", NULL};
    static const field fields[] = {
        {"wavelength_um", 'd', offsetof(optinc_spec, settings.wavelength_um), 0, INFINITY, 1,
         0, "(microns, e.g. 1.55)"},
        {"seed", 'u', offsetof(optinc_spec, settings.seed), 0, 0, 0, 0, NULL},
        FIELDS_END};
    optinc_spec *s = c->spec;
    int mesh = (int)s->settings.mesh, att = (int)s->settings.attenuators, conv = 0;
    optinc_status st;
    if ((st = check_map(c, n, "settings", keys)) || (st = read_fields(c, n, "settings", fields, s)) ||
        (st = read_enum(c, n, "mesh", "settings", mesh_names, &mesh)) ||
        (st = read_enum(c, n, "attenuators", "settings", att_names, &att)) ||
        (st = read_enum(c, n, "mzi_convention", "settings", conventions, &conv)))
        return st;
    s->settings.mesh = (optinc_mesh_kind)mesh;
    s->settings.attenuators = (optinc_att_position)att;
    return OPTINC_OK;
}

static optinc_status parse_info(ctx *c, yaml_node_t *n)
{
    optinc_status st = check_map(c, n, "info", NULL);
    if (st)
        return st;
    size_t count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    if (!count)
        return OPTINC_OK;
    if (!(c->spec->info = calloc(count, sizeof *c->spec->info)))
        return optinc_fail(c->err, OPTINC_ERUN, c->path, 0, 0, "out of memory");
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(c, p->key), *v = node(c, p->value);
        if ((st = want_scalar(c, v, scalar_of(k), "info", "text")))
            return st;
        optinc_spec_info *e = &c->spec->info[c->spec->n_info++];
        if (!(e->key = strdup(scalar_of(k))) || !(e->value = strdup(scalar_of(v))))
            return optinc_fail(c->err, OPTINC_ERUN, c->path, 0, 0, "out of memory");
    }
    return OPTINC_OK;
}

/* ------------------------------------------------------------ matrices -- */

/* A layer of this matrix would need a mesh on more modes than the limit. */
static optinc_status too_many_modes(ctx *c, yaml_node_t *v, const char *what, int k, long long d)
{
    char lim[160];
    return fail(c, v, "'shape' in %s has %lld %s: its mesh would have more modes than %s; "
                "or split the layer into smaller ones", what, d, k ? "columns" : "rows",
                optinc_limits_text(c->lim, OPTINC_LIMIT_MODES, lim, sizeof lim));
}

static optinc_status parse_shape(ctx *c, yaml_node_t *n, const char *what, int *rows, int *cols)
{
    char buf[80];
    if (n->type != YAML_SEQUENCE_NODE || n->data.sequence.items.top - n->data.sequence.items.start != 2)
        return fail(c, n, "'shape' in %s must be a list [rows, cols] of two whole numbers, "
                    "not %s", what, n->type == YAML_SEQUENCE_NODE ? "a list of another length"
                                                                   : describe(n, buf, sizeof buf));
    long long d[2];
    for (int k = 0; k < 2; k++) {
        yaml_node_t *v = node(c, n->data.sequence.items.start[k]);
        unsigned long long u;
        optinc_status st = whole(c, v, "shape", what, 0, &d[k], &u);
        if (st)
            return st;
        if (d[k] < 1)
            return fail(c, v, "'shape' in %s has %s %lld; each dimension must be at least 1",
                        what, k ? "cols" : "rows", d[k]);
        if (d[k] > OPTINC_MATRIX_DIM_MAX)
            return too_many_modes(c, v, what, k, d[k]);
    }
    if (d[0] * d[1] > OPTINC_MATRIX_ENTRIES_MAX)
        return fail(c, n, "'shape' [%lld, %lld] of %s has %lld entries, more than the limit "
                    "of %ld (2^26); split the weights over smaller layers", d[0], d[1], what,
                    d[0] * d[1], OPTINC_MATRIX_ENTRIES_MAX);
    for (int k = 0; k < 2; k++)
        if (d[k] > optinc_limits_get(c->lim, OPTINC_LIMIT_MODES))
            return too_many_modes(c, node(c, n->data.sequence.items.start[k]), what, k, d[k]);
    *rows = (int)d[0];
    *cols = (int)d[1];
    return OPTINC_OK;
}

static optinc_status parse_entry(ctx *c, yaml_node_t *n, optinc_spec_matrix *m, int r, int k,
                                 double complex *z)
{
    char where[160], buf[80];
    optinc_status st;
    snprintf(where, sizeof where, "matrix '%s' (row %d, column %d)", m->name, r + 1, k + 1);
    if (n->type == YAML_SEQUENCE_NODE && n->data.sequence.items.top - n->data.sequence.items.start == 2) {
        double v[2];
        for (int j = 0; j < 2; j++)
            if ((st = number(c, node(c, n->data.sequence.items.start[j]), "entry", where, &v[j])))
                return st;
        *z = CMPLX(v[0], v[1]);
    } else if (n->type == YAML_SCALAR_NODE) {
        int imag = 0;
        if ((st = number_any(c, n, "entry", where, 0, z, &imag)))
            return st;
    } else {
        return fail(c, n, "entry of %s must be a number, a complex string like '1+2j' or a "
                    "pair [re, im], not %s", where, describe(n, buf, sizeof buf));
    }
    if (!m->is_complex && cimag(*z) != 0)
        return fail(c, n, "entry of %s has imaginary part %g but the matrix has dtype real; "
                    "set 'dtype: complex' or drop the imaginary part", where, cimag(*z));
    return OPTINC_OK;
}

static optinc_status parse_data(ctx *c, yaml_node_t *n, optinc_spec_matrix *m)
{
    char buf[80];
    if (n->type != YAML_SEQUENCE_NODE)
        return fail(c, n, "'data' of matrix '%s' must be a list of rows, not %s", m->name,
                    describe(n, buf, sizeof buf));
    yaml_node_item_t *rows = n->data.sequence.items.start;
    long nrows = (long)(n->data.sequence.items.top - rows);
    if (nrows != m->rows)
        return fail(c, n, "matrix '%s' has shape [%d, %d] but its data has %ld rows; give one "
                    "list per row (%d rows) or fix 'shape'", m->name, m->rows, m->cols, nrows,
                    m->rows);
    for (int r = 0; r < m->rows; r++) {
        yaml_node_t *row = node(c, rows[r]);
        if (row->type != YAML_SEQUENCE_NODE)
            return fail(c, row, "row %d of matrix '%s' must be a list of %d entries, not %s",
                        r + 1, m->name, m->cols, describe(row, buf, sizeof buf));
        long len = (long)(row->data.sequence.items.top - row->data.sequence.items.start);
        if (len != m->cols)
            return fail(c, row, "row %d of matrix '%s' has %ld entries but shape [%d, %d] "
                        "needs %d columns; fix the row or 'shape'", r + 1, m->name, len,
                        m->rows, m->cols, m->cols);
        for (int k = 0; k < m->cols; k++) {
            optinc_status st = parse_entry(c, node(c, row->data.sequence.items.start[k]), m, r,
                                           k, &m->data[(size_t)r * m->cols + k]);
            if (st)
                return st;
        }
    }
    return OPTINC_OK;
}

/* Moves a cmat's entries into m->data and frees it. */
static void take_cmat(optinc_spec_matrix *m, optinc_cmat *a)
{
    memcpy(m->data, a->a, (size_t)m->rows * m->cols * sizeof *m->data);
    optinc_cmat_free(a);
}

static optinc_status parse_file(ctx *c, yaml_node_t *n, yaml_node_t *shape,
                                optinc_spec_matrix *m)
{
    char path[2048];
    char what[128];
    snprintf(what, sizeof what, "matrix '%s'", m->name);
    optinc_status st = want_scalar(c, n, "file", what, "a file name");
    if (st)
        return st;
    const char *rel = scalar_of(n), *dot = strrchr(rel, '.');
    int npy = dot && !strcmp(dot, ".npy");
    if (!npy && !(dot && !strcmp(dot, ".csv")))
        return fail(c, n, "matrix file '%.200s' of matrix '%s' must end in .csv or .npy", rel,
                    m->name);
    optinc_path_join(c->spec->dir, rel, path, sizeof path);
    if (access(path, R_OK) != 0)
        return fail(c, n, "cannot read matrix file '%.200s' of matrix '%s' (looked for "
                    "'%.400s', relative to the spec's directory): %s", rel, m->name, path,
                    strerror(errno));
    optinc_cmat *a;
    int is_complex;
    if ((st = npy ? optinc_npy_read(path, &a, &is_complex, c->err)
                  : optinc_csv_read(path, &a, &is_complex, c->err)))
        return st;
    if (a->rows != m->rows || a->cols != m->cols)
        st = fail(c, shape, "matrix '%s' has shape [%d, %d] but its file '%.200s' holds a "
                  "%d x %d matrix; fix 'shape' or the file", m->name, m->rows, m->cols, rel,
                  a->rows, a->cols);
    else if (is_complex && !m->is_complex)
        st = fail(c, n, "matrix '%s' has dtype real but its file '%.200s' holds complex "
                  "values; set 'dtype: complex' or store real values", m->name, rel);
    if (st)
        optinc_cmat_free(a);
    else
        take_cmat(m, a);
    return st;
}

static optinc_status parse_generate(ctx *c, yaml_node_t *n, optinc_spec_matrix *m)
{
    static const char *const keys[] = {"kind", "seed", NULL};
    static const char *const kinds[] = {"haar_unitary", "gaussian", NULL};
    static const field fields[] = {{"seed", 'u', 0, 0, 0, 0, 0, NULL},
                                   FIELDS_END};
    char what[128];
    yaml_node_t *kn;
    int kind = 0;
    uint64_t seed = c->spec->settings.seed;
    snprintf(what, sizeof what, "generate of matrix '%s'", m->name);
    optinc_status st;
    if ((st = check_map(c, n, what, keys)) ||
        (st = require(c, n, "kind", what, "add 'kind: haar_unitary' or 'kind: gaussian'", &kn)) ||
        (st = read_enum(c, n, "kind", what, kinds, &kind)) ||
        (st = read_fields(c, n, what, fields, &seed)))
        return st;
    if (kind == 0 && m->rows != m->cols)
        return fail(c, kn, "haar_unitary makes a square unitary matrix but matrix '%s' has "
                    "shape [%d, %d]; use a square shape or 'kind: gaussian'", m->name, m->rows,
                    m->cols);
    if (kind == 0 && !m->is_complex)
        return fail(c, kn, "haar_unitary makes a complex matrix but matrix '%s' has dtype "
                    "real; set 'dtype: complex'", m->name);
    optinc_rng rng;
    optinc_rng_seed(&rng, seed);
    optinc_cmat *a = kind == 0 ? optinc_cmat_haar(m->rows, &rng)
                               : optinc_cmat_gaussian(m->rows, m->cols, m->is_complex, &rng);
    if (!a)
        return optinc_fail(c->err, OPTINC_ERUN, c->path, 0, 0,
                           "out of memory generating matrix '%s'", m->name);
    take_cmat(m, a);
    return OPTINC_OK;
}

static optinc_status parse_matrix(ctx *c, yaml_node_t *key, yaml_node_t *def,
                                  optinc_spec_matrix *m)
{
    static const char *const keys[] = {"shape", "dtype", "data", "file", "generate", NULL};
    static const char *const sources[] = {"data", "file", "generate"};
    static const char *const dtypes[] = {"real", "complex", NULL};
    char what[128];
    optinc_status st;
    yaml_node_t *shape, *src = NULL;
    const char *src_name = NULL;
    if ((st = ident(c, key, "matrix name", "matrices", m->name)))
        return st;
    snprintf(what, sizeof what, "matrix '%s'", m->name);
    m->line = (int)key->start_mark.line + 1;
    m->column = (int)key->start_mark.column + 1;
    if ((st = check_map(c, def, what, keys)) ||
        (st = require(c, def, "shape", what, "add 'shape: [rows, cols]'", &shape)) ||
        (st = parse_shape(c, shape, what, &m->rows, &m->cols)) ||
        (st = read_enum(c, def, "dtype", what, dtypes, &m->is_complex)))
        return st;
    for (yaml_node_pair_t *p = def->data.mapping.pairs.start; p < def->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(c, p->key);
        for (int i = 0; i < 3; i++) {
            if (strcmp(scalar_of(k), sources[i]) || is_null(node(c, p->value)))
                continue;
            if (src)
                return fail(c, k, "matrix '%s' gives both '%s' and '%s'; keep exactly one of "
                            "data, file, generate", m->name, src_name, sources[i]);
            src = node(c, p->value);
            src_name = sources[i];
        }
    }
    if (!src)
        return fail(c, def, "matrix '%s' has no values; give exactly one of 'data' (inline "
                    "rows), 'file' (a .csv or .npy file) or 'generate' (haar_unitary or "
                    "gaussian)", m->name);
    if (!(m->data = calloc((size_t)m->rows * m->cols, sizeof *m->data)))
        return optinc_fail(c->err, OPTINC_ERUN, c->path, 0, 0,
                           "out of memory for matrix '%s'", m->name);
    if (src_name[0] == 'd')
        return parse_data(c, src, m);
    if (src_name[0] == 'f')
        return parse_file(c, src, shape, m);
    return parse_generate(c, src, m);
}

static optinc_status too_many(ctx *c, yaml_node_t *n, const char *what, size_t count)
{
    return fail(c, n, "'%s' has %zu entries, more than the limit of %d (OPTINC_LAYERS_MAX); "
                "split the network over several specs", what, count, OPTINC_LAYERS_MAX);
}

/* The entries of all matrices together, before any is read or generated;
 * a shape that is wrong is skipped here (c->err is swapped for a scratch
 * record) and reported by parse_matrix, in file order. */
static optinc_status check_total_entries(ctx *c, yaml_node_t *n)
{
    optinc_error scratch, *err = c->err;
    long long total = 0;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *shape = get(c, node(c, p->value), "shape");
        int rows, cols;
        c->err = &scratch;
        int ok = shape && !parse_shape(c, shape, "", &rows, &cols);
        c->err = err;
        if (ok && strncmp(scalar_of(node(c, p->key)), "x-", 2) &&
            (total += (long long)rows * cols) > OPTINC_MATRIX_ENTRIES_MAX)
            return fail(c, shape, "with matrix '%.64s' the matrices hold %lld entries in total, "
                        "more than the limit of %ld (2^26, 1 GiB of complex numbers); put "
                        "fewer or smaller matrices in one spec", scalar_of(node(c, p->key)),
                        total, OPTINC_MATRIX_ENTRIES_MAX);
    }
    return OPTINC_OK;
}

static optinc_status parse_matrices(ctx *c, yaml_node_t *n)
{
    optinc_status st = check_map(c, n, "matrices", NULL);
    if (st)
        return st;
    size_t count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    if (count > OPTINC_LAYERS_MAX)
        return too_many(c, n, "matrices", count);
    if ((st = check_total_entries(c, n)))
        return st;
    if (count && !(c->spec->matrices = calloc(count, sizeof *c->spec->matrices)))
        return optinc_fail(c->err, OPTINC_ERUN, c->path, 0, 0, "out of memory");
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *key = node(c, p->key);
        if (!strncmp(scalar_of(key), "x-", 2))
            continue;
        optinc_spec_matrix *m = &c->spec->matrices[c->spec->n_matrices++];
        if ((st = parse_matrix(c, key, node(c, p->value), m)))
            return st;
    }
    return OPTINC_OK;
}

/* -------------------------------------------------------------- layers -- */

static int find_matrix(const optinc_spec *s, const char *name)
{
    for (int i = 0; i < s->n_matrices; i++)
        if (!strcmp(s->matrices[i].name, name))
            return i;
    return -1;
}

static optinc_status undefined_matrix(ctx *c, yaml_node_t *v, const char *what)
{
    char list[512] = "";
    size_t len = 0;
    for (int i = 0; i < c->spec->n_matrices && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                c->spec->matrices[i].name);
    return fail(c, v, "%s uses matrix '%s', which is not defined under 'matrices'; define it "
                "there%s%s", what, scalar_of(v), len ? " or use one of: " : "", list);
}

/* Adds the cards layer L compiles to (a mesh of n modes is n(n-1)/2 MZIs and n
 * phase shifters; an attenuator column one card per channel) to the
 * circuit's count, which must stay within the limit; v is the matrix node. */
static optinc_status count_cards(ctx *c, yaml_node_t *v, const optinc_spec_layer *L)
{
    const optinc_spec_matrix *m = &c->spec->matrices[L->matrix];
    long long r = m->rows, k = m->cols, n = r > k ? r : k;
    if (L->attenuators == OPTINC_ATT_MIDDLE)
        c->cards += r * (r + 1) / 2 + k * (k + 1) / 2 + (r < k ? r : k);
    else
        c->cards += n * (n + 1) / 2 + (L->attenuators == OPTINC_ATT_NONE ? 0 : n);
    if (c->cards <= optinc_limits_get(c->lim, OPTINC_LIMIT_CARDS))
        return OPTINC_OK;
    char lim[160];
    return fail(c, v, "with layer '%s' the circuit would have %lld cards (MZIs, phase shifters "
                "and attenuators), more than %s; or split the network over several specs",
                L->name, c->cards, optinc_limits_text(c->lim, OPTINC_LIMIT_CARDS, lim, sizeof lim));
}

static optinc_status parse_layer(ctx *c, yaml_node_t *n, int index)
{
    static const char *const keys[] = {"name", "matrix", "mesh", "attenuators", "gain",
                                       "activation", "components", NULL};
    static const field fields[] = {{"gain", 'd', offsetof(optinc_spec_layer, gain), 0,
                                    INFINITY, 0, 0, "(0 = the largest singular value)"},
                                   FIELDS_END};
    optinc_spec *s = c->spec;
    optinc_spec_layer *L = &s->layers[index];
    char what[128], owner[144];
    yaml_node_t *v, *name = get(c, n, "name");
    if (name && name->type == YAML_SCALAR_NODE && is_ident(scalar_of(name)))
        snprintf(what, sizeof what, "layer '%s'", scalar_of(name));
    else
        snprintf(what, sizeof what, "layer %d", index + 1);
    optinc_status st;
    if ((st = check_map(c, n, what, keys)) ||
        (st = require(c, n, "name", what, "add 'name: L1' (an identifier)", &name)) ||
        (st = ident(c, name, "name", what, L->name)))
        return st;
    for (int i = 0; i < index; i++)
        if (!strcmp(s->layers[i].name, L->name))
            return fail(c, name, "layer name '%s' is already used by layer %d (line %d); give "
                        "every layer its own name", L->name, i + 1, s->layers[i].line);
    L->line = (int)n->start_mark.line + 1;
    L->column = (int)n->start_mark.column + 1;
    if ((st = require(c, n, "matrix", what, "add 'matrix: NAME' naming one of the matrices", &v)) ||
        (st = want_scalar(c, v, "matrix", what, "a matrix name")))
        return st;
    if ((L->matrix = find_matrix(s, scalar_of(v))) < 0)
        return undefined_matrix(c, v, what);
    int mesh = (int)s->settings.mesh, att = (int)s->settings.attenuators, act = 0;
    L->components = s->components;
    snprintf(owner, sizeof owner, " of %s", what);
    yaml_node_t *comp = get(c, n, "components");
    if ((st = read_enum(c, n, "mesh", what, mesh_names, &mesh)) ||
        (st = read_enum(c, n, "attenuators", what, att_names, &att)) ||
        (st = read_enum(c, n, "activation", what, act_names, &act)) ||
        (st = read_fields(c, n, what, fields, L)) ||
        (comp && (st = parse_components(c, comp, owner, &L->components))))
        return st;
    L->mesh = (optinc_mesh_kind)mesh;
    L->attenuators = (optinc_att_position)att;
    L->activation = (optinc_activation)act;
    if ((st = count_cards(c, v, L)))
        return st;
    if (index > 0) {
        const optinc_spec_matrix *prev = &s->matrices[s->layers[index - 1].matrix];
        const optinc_spec_matrix *cur = &s->matrices[L->matrix];
        if (cur->cols != prev->rows)
            return fail(c, v, "%s takes %d inputs (matrix '%s' is %d x %d) but layer '%s' "
                        "before it gives %d outputs (matrix '%s' is %d x %d); layers are "
                        "wired in order, so the widths must match", what, cur->cols,
                        cur->name, cur->rows, cur->cols, s->layers[index - 1].name, prev->rows,
                        prev->name, prev->rows, prev->cols);
    }
    return OPTINC_OK;
}

static optinc_status parse_layers(ctx *c, yaml_node_t *n)
{
    char buf[80];
    if (n->type != YAML_SEQUENCE_NODE)
        return fail(c, n, "'layers' must be a list of layers ('- name: L1 ...'), not %s",
                    describe(n, buf, sizeof buf));
    size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (count > OPTINC_LAYERS_MAX)
        return too_many(c, n, "layers", count);
    if (count && !(c->spec->layers = calloc(count, sizeof *c->spec->layers)))
        return optinc_fail(c->err, OPTINC_ERUN, c->path, 0, 0, "out of memory");
    for (size_t i = 0; i < count; i++) {
        optinc_status st = parse_layer(c, node(c, n->data.sequence.items.start[i]), (int)i);
        if (st)
            return st;
        c->spec->n_layers++;
    }
    return OPTINC_OK;
}

/* ---------------------------------------- connections, ports, outputs -- */

static optinc_status parse_connections(ctx *c, yaml_node_t *n)
{
    optinc_status st = check_map(c, n, "connections", NULL);
    if (!st && n->data.mapping.pairs.top != n->data.mapping.pairs.start)
        st = fail(c, node(c, n->data.mapping.pairs.start->key),
                  "explicit connections are not supported yet: layers are wired in order; "
                  "remove the entries (leave 'connections: {}')");
    return st;
}

static optinc_status parse_ports(ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"in", "out", NULL};
    optinc_status st = check_map(c, n, "ports", keys);
    for (int i = 0; i < 2 && !st; i++) {
        yaml_node_t *v = get(c, n, keys[i]);
        if (!v)
            continue;
        if ((st = want_scalar(c, v, keys[i], "ports", "'LAYER,in' or 'LAYER,out'")))
            break;
        const char *s = scalar_of(v), *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : 0;
        int found = 0;
        for (int k = 0; k < c->spec->n_layers && !found; k++)
            found = strlen(c->spec->layers[k].name) == len &&
                    !strncmp(c->spec->layers[k].name, s, len);
        if (!comma || (strcmp(comma + 1, "in") && strcmp(comma + 1, "out")) || !found)
            st = fail(c, v, "'%s' in ports is '%.60s'; write 'LAYER,in' or 'LAYER,out' with "
                      "LAYER the name of a layer", keys[i], s);
    }
    return st;
}

/* outputs: only checked here (the commands read their own options). */
static optinc_status parse_outputs(ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"netlist", "graphviz", NULL};
    static const char *const nl_keys[] = {"file", "flatten", "expand_mzi", "profile", NULL};
    static const char *const gv_keys[] = {"dir", "formats", "png_max_modes", "overview", NULL};
    static const field gv_fields[] = {{"png_max_modes", 'i', 0, 1, 65536, 0, 0, NULL},
                                      FIELDS_END};
    char text[1024], name[OPTINC_NAME_MAX];
    int flag, modes;
    optinc_status st = check_map(c, n, "outputs", keys);
    yaml_node_t *nl = get(c, n, "netlist"), *gv = get(c, n, "graphviz"), *v;
    if (!st && nl &&
        ((st = check_map(c, nl, "outputs.netlist", nl_keys)) ||
         (st = read_string(c, nl, "file", "outputs.netlist", text, sizeof text)) ||
         (st = read_bool(c, nl, "flatten", "outputs.netlist", &flag)) ||
         (st = read_bool(c, nl, "expand_mzi", "outputs.netlist", &flag)) ||
         ((v = get(c, nl, "profile")) && (st = ident(c, v, "profile", "outputs.netlist", name)))))
        return st;
    if (!st && gv &&
        ((st = check_map(c, gv, "outputs.graphviz", gv_keys)) ||
         (st = read_string(c, gv, "dir", "outputs.graphviz", text, sizeof text)) ||
         (st = read_fields(c, gv, "outputs.graphviz", gv_fields, &modes)) ||
         ((v = get(c, gv, "overview")) && (st = ident(c, v, "overview", "outputs.graphviz", name)))))
        return st;
    if (!st && gv && (v = get(c, gv, "formats"))) {
        char buf[80];
        if (v->type != YAML_SEQUENCE_NODE)
            return fail(c, v, "'formats' in outputs.graphviz must be a list such as [svg, png], "
                        "not %s", describe(v, buf, sizeof buf));
        for (yaml_node_item_t *it = v->data.sequence.items.start;
             it < v->data.sequence.items.top && !st; it++)
            st = ident(c, node(c, *it), "formats", "outputs.graphviz", name);
    }
    return st;
}

/* ----------------------------------------------------- allreduce, train -- */

static optinc_status parse_onn(ctx *c, yaml_node_t *n, optinc_spec_allreduce *a)
{
    static const char *const keys[] = {"hidden", "activation", "approximation",
                                       "approximate_layers", NULL};
    static const char *const approx[] = {"none", "unitary_diagonal", NULL};
    const char *what = "allreduce.onn";
    int act = (int)a->activation;
    optinc_status st;
    yaml_node_t *v;
    if ((st = check_map(c, n, what, keys)) ||
        ((v = get(c, n, "hidden")) &&
         (st = read_int_list(c, v, "hidden", what, 1, OPTINC_MATRIX_DIM_MAX, a->hidden,
                             OPTINC_MAX_HIDDEN, &a->n_hidden))) ||
        (st = read_enum(c, n, "activation", what, act_names, &act)) ||
        (st = read_enum(c, n, "approximation", what, approx, &a->approximate)))
        return st;
    a->activation = (optinc_activation)act;
    if (!(v = get(c, n, "approximate_layers")) ||
        (v->type == YAML_SCALAR_NODE && !strcmp(scalar_of(v), "all")))
        return OPTINC_OK;
    if (v->type == YAML_SCALAR_NODE)
        return fail(c, v, "'approximate_layers' in %s must be 'all' or a list of layer "
                    "numbers such as [4, 5, 6], got '%.60s'", what, scalar_of(v));
    return read_int_list(c, v, "approximate_layers", what, 1, a->n_hidden + 1,
                         a->approximate_layers, OPTINC_MAX_HIDDEN + 1, &a->n_approximate_layers);
}

static optinc_status parse_cascade(ctx *c, yaml_node_t *n, optinc_spec_allreduce *a)
{
    static const char *const keys[] = {"fan_in", "levels", NULL};
    static const field fields[] = {
        {"fan_in", 'i', offsetof(optinc_spec_allreduce, cascade_fan_in), 2, 4096, 0, 0, NULL},
        {"levels", 'i', offsetof(optinc_spec_allreduce, cascade_levels), 1, 8, 0, 0, NULL},
        FIELDS_END};
    const char *what = "allreduce.cascade";
    optinc_status st;
    yaml_node_t *v;
    if ((st = check_map(c, n, what, keys)) || (st = read_fields(c, n, what, fields, a)))
        return st;
    if (a->cascade_levels > 1 &&
        (st = require(c, n, "fan_in", what, "give the number of inputs of each unit", &v)))
        return st;
    double served = pow(a->cascade_fan_in, a->cascade_levels);   /* exact below 2^53 */
    if (served != a->servers)
        return fail(c, n, "cascade of %d levels with fan_in %d serves %d^%d = %.0f servers, "
                    "but allreduce.servers is %d; make fan_in^levels equal servers (e.g. "
                    "fan_in 4, levels 2 for 16 servers)", a->cascade_levels,
                    a->cascade_fan_in, a->cascade_fan_in, a->cascade_levels, served, a->servers);
    return OPTINC_OK;
}

static optinc_status parse_allreduce(ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"enabled", "servers", "gradient_bits", "symbol",
                                       "block_quantization", "preprocessing", "onn",
                                       "cascade", NULL};
    static const char *const bq_keys[] = {"block_size", NULL};
    static const char *const symbols[] = {"pam4", NULL};
    static const char *const pre[] = {"digit_sums", "weighted_sum", "none", NULL};
    static const field fields[] = {
        {"servers", 'i', offsetof(optinc_spec_allreduce, servers), 2, 65536, 0, 0, NULL},
        {"gradient_bits", 'i', offsetof(optinc_spec_allreduce, gradient_bits), 2, 16, 0, 0,
         NULL},
        FIELDS_END};
    static const field bq_fields[] = {
        {"block_size", 'i', offsetof(optinc_spec_allreduce, block_size), 1, 1 << 30, 0, 0,
         NULL},
        FIELDS_END};
    const char *what = "allreduce";
    optinc_spec_allreduce *a = &c->spec->allreduce;
    int symbol = 0, prep = 0;
    optinc_status st;
    yaml_node_t *v;
    a->present = 1;
    if ((st = check_map(c, n, what, keys)) || (st = read_bool(c, n, "enabled", what, &a->enabled)) ||
        (st = require(c, n, "servers", what, "add 'servers: N' (N >= 2)", &v)) ||
        (st = read_fields(c, n, what, fields, a)) ||
        (st = read_enum(c, n, "symbol", what, symbols, &symbol)) ||
        (st = read_enum(c, n, "preprocessing", what, pre, &prep)))
        return st;
    if (a->gradient_bits % 2)
        return fail(c, get(c, n, "gradient_bits"), "'gradient_bits' in allreduce is %d, an odd "
                    "width; PAM4 carries 2 bits per symbol, so use an even width such as 8 "
                    "or 16", a->gradient_bits);
    snprintf(a->preprocessing, sizeof a->preprocessing, "%s", pre[prep]);
    a->cascade_fan_in = a->servers;
    if ((v = get(c, n, "block_quantization")) &&
        ((st = check_map(c, v, "allreduce.block_quantization", bq_keys)) ||
         (st = read_fields(c, v, "allreduce.block_quantization", bq_fields, a))))
        return st;
    if ((v = get(c, n, "onn")) && (st = parse_onn(c, v, a)))
        return st;
    if ((v = get(c, n, "cascade")) && (st = parse_cascade(c, v, a)))
        return st;
    return OPTINC_OK;
}

static optinc_status parse_train(ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"dataset", "servers", "epochs", "batch", "lr",
                                       "momentum", "hidden", "allreduce", "checkpoint_every",
                                       "onn", NULL};
    static const char *const datasets[] = {"fashion_mnist", NULL};
    static const char *const modes[] = {"ring", "optinc", "exact", "quantized", NULL};
#define TF(f) offsetof(optinc_spec_train, f)
    static const field fields[] = {
        {"servers", 'i', TF(servers), 1, 65536, 0, 0, NULL},
        {"epochs", 'i', TF(epochs), 1, 1000000, 0, 0, NULL},
        {"batch", 'i', TF(batch), 1, 1 << 20, 0, 0, "(examples per server and step)"},
        {"lr", 'd', TF(lr), 0, INFINITY, 1, 0, "(the learning rate)"},
        {"momentum", 'd', TF(momentum), 0, 1, 0, 1, NULL},
        {"checkpoint_every", 'i', TF(checkpoint_every), 0, 1000000, 0, 0, "(0 = never)"},
        FIELDS_END};
#undef TF
    const char *what = "train";
    optinc_spec_train *t = &c->spec->train;
    int dataset = 0, mode = 0;
    char onn[1024] = "";
    optinc_status st;
    yaml_node_t *v;
    t->present = 1;
    if ((st = check_map(c, n, what, keys)) || (st = read_fields(c, n, what, fields, t)) ||
        (st = read_enum(c, n, "dataset", what, datasets, &dataset)) ||
        (st = read_enum(c, n, "allreduce", what, modes, &mode)) ||
        ((v = get(c, n, "hidden")) &&
         (st = read_int_list(c, v, "hidden", what, 1, OPTINC_MATRIX_DIM_MAX, t->hidden,
                             OPTINC_MAX_HIDDEN, &t->n_hidden))) ||
        (st = read_string(c, n, "onn", what, onn, sizeof onn)))
        return st;
    snprintf(t->dataset, sizeof t->dataset, "%s", datasets[dataset]);
    snprintf(t->allreduce, sizeof t->allreduce, "%s", modes[mode]);
    if (onn[0])
        optinc_path_join(c->spec->dir, onn, t->onn, sizeof t->onn);
    return OPTINC_OK;
}

/* ------------------------------------------------------------ the file -- */

static void spec_defaults(optinc_spec *s)
{
    s->settings.wavelength_um = 1.55;
    s->settings.mesh = OPTINC_MESH_CLEMENTS;
    s->settings.attenuators = OPTINC_ATT_MIDDLE;
    snprintf(s->settings.mzi_convention, sizeof s->settings.mzi_convention, "clements2016");
    s->settings.seed = 1;
    optinc_components_defaults(&s->components);
    optinc_spec_allreduce *a = &s->allreduce;
    a->enabled = 1;
    a->gradient_bits = OPTINC_AR_DEFAULT_BITS;     /* the trainer's, allreduce.h */
    a->block_size = OPTINC_AR_DEFAULT_BLOCK;
    snprintf(a->preprocessing, sizeof a->preprocessing, "digit_sums");
    a->hidden[0] = a->hidden[1] = 64;
    a->n_hidden = 2;
    a->activation = OPTINC_ACT_RELU_EO;
    a->cascade_levels = 1;
    optinc_train_spec_defaults(&s->train);    /* a field left out trains as without a spec */
}

static optinc_status parse_root(ctx *c, yaml_node_t *root)
{
    static const char *const keys[] = {"schema_version", "name", "info", "settings",
                                       "components", "matrices", "layers", "connections",
                                       "ports", "outputs", "allreduce", "train", NULL};
    optinc_spec *s = c->spec;
    optinc_status st;
    yaml_node_t *v;
    long long version = 0;
    unsigned long long u;
    if ((st = want_map(c, root, "the spec")) ||
        (st = require(c, root, "schema_version", "the spec", "start the file with "
                      "'schema_version: 1'", &v)) ||
        (st = whole(c, v, "schema_version", "the spec", 0, &version, &u)))
        return st;
    if (version != 1)
        return fail(c, v, "schema_version %lld is not supported: this optinc reads schema "
                    "version 1; write 'schema_version: 1' and check the file against "
                    "optinc-spec(5)", version);
    s->schema_version = 1;
    if ((st = check_map(c, root, "the spec", keys)) ||
        (st = require(c, root, "name", "the spec", "add 'name: my_circuit' (an identifier)", &v)) ||
        (st = ident(c, v, "name", "the spec", s->name)) ||
        ((v = get(c, root, "info")) && (st = parse_info(c, v))) ||
        ((v = get(c, root, "settings")) && (st = parse_settings(c, v))) ||
        ((v = get(c, root, "components")) && (st = parse_components(c, v, "", &s->components))) ||
        ((v = get(c, root, "matrices")) && (st = parse_matrices(c, v))) ||
        ((v = get(c, root, "layers")) && (st = parse_layers(c, v))) ||
        ((v = get(c, root, "connections")) && (st = parse_connections(c, v))) ||
        ((v = get(c, root, "ports")) && (st = parse_ports(c, v))) ||
        ((v = get(c, root, "outputs")) && (st = parse_outputs(c, v))) ||
        ((v = get(c, root, "allreduce")) && (st = parse_allreduce(c, v))) ||
        ((v = get(c, root, "train")) && (st = parse_train(c, v))))
        return st;
    return OPTINC_OK;
}

static optinc_status syntax_error(ctx *c, yaml_parser_t *p, const char *text, size_t len)
{
    if (p->error == YAML_MEMORY_ERROR)
        return optinc_fail(c->err, OPTINC_ERUN, c->path, 0, 0, "out of memory parsing the spec");
    size_t line = p->problem_mark.line, col = p->problem_mark.column;
    if (p->error == YAML_READER_ERROR) {     /* only a byte offset is known */
        line = col = 0;
        for (size_t i = 0; i < p->problem_offset && i < len; i++, col++)
            if (text[i] == '\n')
                line++, col = (size_t)-1;
    }
    /* Tabs in the indentation are the classic cause; say so. */
    size_t at = 0;
    for (size_t l = 0; l < line && at < len; at++)
        if (text[at] == '\n')
            l++;
    int tab = 0;
    while (at < len && (text[at] == ' ' || text[at] == '\t'))
        tab |= text[at++] == '\t';
    char ctxbuf[160] = "";
    if (p->context)
        snprintf(ctxbuf, sizeof ctxbuf, " (%s at line %zu, column %zu)", p->context,
                 p->context_mark.line + 1, p->context_mark.column + 1);
    return optinc_fail(c->err, OPTINC_EINPUT, c->path, (int)line + 1, (int)col + 1,
                       "YAML syntax error: %s%s; %s", p->problem ? p->problem : "unknown",
                       ctxbuf,
                       p->error == YAML_READER_ERROR ? "the spec must be UTF-8 text without "
                                                       "control characters"
                       : tab ? "YAML does not allow tabs in indentation, indent with spaces"
                             : "check indentation, brackets, colons and quotes");
}

static optinc_status too_much(ctx *c, const yaml_event_t *ev, const char *verb, long limit,
                              const char *unit, const char *name, const char *fix)
{
    return optinc_fail(c->err, OPTINC_EINPUT, c->path, (int)ev->start_mark.line + 1,
                       (int)ev->start_mark.column + 1, "the YAML %s %ld %s, the limit (%s); %s",
                       verb, limit, unit, name, fix);
}

/* The limits on the YAML itself, in one pass of events (see the top): the
 * nesting depth (the root is level 1; a scalar counts as a level, as a node
 * does), the number of nodes, anchors and aliases. */
static optinc_status check_yaml_limits(ctx *c, const char *text, size_t len)
{
    yaml_parser_t p;
    yaml_event_t ev;
    long depth = 0, nodes = 0, anchors = 0, aliases = 0;
    optinc_status st = OPTINC_OK;
    if (!yaml_parser_initialize(&p))
        return optinc_fail(c->err, OPTINC_ERUN, c->path, 0, 0, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    for (int done = 0; !done && !st;) {
        if (!yaml_parser_parse(&p, &ev)) {
            st = syntax_error(c, &p, text, len);
            break;
        }
        const yaml_char_t *anchor = NULL;
        long level = 0;
        if (ev.type == YAML_SCALAR_EVENT) {
            anchor = ev.data.scalar.anchor;
            level = depth + 1;
        } else if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
            anchor = ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.anchor
                                                          : ev.data.mapping_start.anchor;
            level = ++depth;
        } else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) {
            depth--;
        } else if (ev.type == YAML_STREAM_END_EVENT) {
            done = 1;
        }
        if (level > OPTINC_SPEC_DEPTH_MAX)
            st = too_much(c, &ev, "is nested more than", OPTINC_SPEC_DEPTH_MAX,
                          "levels deep", "OPTINC_SPEC_DEPTH_MAX",
                          "a spec needs about 6, so flatten this part");
        else if (level && ++nodes > OPTINC_SPEC_NODES_MAX)
            st = too_much(c, &ev, "has more than", OPTINC_SPEC_NODES_MAX,
                          "nodes (values, lists and mappings)", "OPTINC_SPEC_NODES_MAX",
                          "put large matrices in .npy or .csv files and refer to them with "
                          "'file:'");
        else if (anchor && ++anchors > OPTINC_SPEC_ANCHORS_MAX)
            st = too_much(c, &ev, "defines more than", OPTINC_SPEC_ANCHORS_MAX,
                          "anchors (&name)", "OPTINC_SPEC_ANCHORS_MAX",
                          "write the repeated parts out instead");
        else if (ev.type == YAML_ALIAS_EVENT && ++aliases > OPTINC_SPEC_ALIASES_MAX)
            st = too_much(c, &ev, "uses more than", OPTINC_SPEC_ALIASES_MAX,
                          "aliases (*name)", "OPTINC_SPEC_ALIASES_MAX",
                          "write the repeated parts out, or put large matrices in .npy files");
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    return st;
}

static optinc_status read_spec_file(const char *path, char **text, size_t *len,
                                    optinc_error *err)
{
    FILE *f = fopen(path, "rb");
    struct stat sb;
    if (!f)
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "cannot open spec '%s': %s", path,
                           strerror(errno));
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "'%s' is not a regular file; give "
                           "the path of a YAML spec", path);
    }
    if (sb.st_size > OPTINC_SPEC_FILE_MAX) {
        fclose(f);
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "spec file is %lld bytes, more than "
                           "the limit of 64 MiB; put large matrices in .npy files and refer "
                           "to them with 'file:'", (long long)sb.st_size);
    }
    *len = (size_t)sb.st_size;
    if (!(*text = malloc(*len + 1))) {
        fclose(f);
        return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "out of memory reading the spec");
    }
    size_t got = fread(*text, 1, *len, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || got != *len) {
        free(*text);
        return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "cannot read spec '%s'", path);
    }
    return OPTINC_OK;
}

/* Parses text as exactly one YAML document and walks it. */
static optinc_status load_document(ctx *c, const char *text, size_t len)
{
    yaml_parser_t parser;
    yaml_document_t doc, extra;
    optinc_status st = check_yaml_limits(c, text, len);
    if (st)
        return st;
    if (!yaml_parser_initialize(&parser))
        return optinc_fail(c->err, OPTINC_ERUN, c->path, 0, 0, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        st = syntax_error(c, &parser, text, len);
        yaml_parser_delete(&parser);
        return st;
    }
    c->doc = &doc;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        st = optinc_fail(c->err, OPTINC_EINPUT, c->path, 1, 1, "the spec is empty; it must "
                         "be a mapping that starts with 'schema_version: 1' (see optinc-spec(5))");
    } else if (!yaml_parser_load(&parser, &extra)) {
        st = syntax_error(c, &parser, text, len);
    } else {
        yaml_node_t *more = yaml_document_get_root_node(&extra);
        if (more)
            st = optinc_fail(c->err, OPTINC_EINPUT, c->path, (int)more->start_mark.line + 1,
                             (int)more->start_mark.column + 1, "the file holds a second YAML "
                             "document (after '---'); keep one spec per file");
        else
            st = OPTINC_OK;
        yaml_document_delete(&extra);
        if (!st)
            st = parse_root(c, root);
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return st;
}

optinc_status optinc_spec_load(const char *path, const optinc_read_opts *opts, optinc_spec **out,
                               optinc_error *err)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    optinc_spec *s = calloc(1, sizeof *s);
    if (!s)
        return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "out of memory");
    if (strlen(path) >= sizeof s->path) {
        free(s);
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "spec path is longer than %zu "
                           "bytes; use a shorter path", sizeof s->path - 1);
    }
    strcpy(s->path, path);
    optinc_path_dir(path, s->dir, sizeof s->dir);
    spec_defaults(s);
    optinc_status st = read_spec_file(path, &text, &len, err);
    if (st) {
        optinc_spec_free(s);
        return st;
    }
    optinc_sha256(text, len, s->sha256);
    ctx c = {s->path, NULL, err, s, 0, optinc_read_limits(opts)};
    st = load_document(&c, text, len);
    free(text);
    if (st) {
        optinc_spec_free(s);
        return st;
    }
    *out = s;
    return OPTINC_OK;
}

void optinc_spec_free(optinc_spec *spec)
{
    if (!spec)
        return;
    for (int i = 0; i < spec->n_info; i++) {
        free(spec->info[i].key);
        free(spec->info[i].value);
    }
    free(spec->info);
    for (int i = 0; i < spec->n_matrices; i++)
        free(spec->matrices[i].data);
    free(spec->matrices);
    free(spec->layers);
    free(spec);
}

/*
 * spec_internal.h - what the files of the spec loader share (not installed;
 * the public view is optinc/spec.h).
 *
 * The loader is one walk over libyaml's node tree, checked against the
 * schema of optinc-spec(5), one file per part of the spec:
 *
 *   spec.c            the document: the limits on the YAML, the root mapping
 *                     and its table of sections, the entry points
 *   spec_fields.c     the checks every section uses: mappings, scalars,
 *                     numbers, names, word lists and the field tables
 *   spec_components.c settings:, info: and the components: table
 *   spec_matrices.c   matrices: (data:, file:, generate:)
 *   spec_layers.c     layers:, connections:, ports:, outputs:
 *   spec_allreduce.c  allreduce:
 *   spec_train.c      train:
 *   spec_layout.c     layout:
 *   spec_chip.c       the chip file: a components: table and a calibration:
 *                     table on their own, for the runtime's simulated chips
 *
 * Every reader takes the walk's ctx and a node, fills c->spec, and on bad
 * input returns the status optinc_spec_fail() filled in, pointing at the
 * node that is wrong: an unknown or duplicate key at the key, a bad value at
 * the value, a missing key at the mapping that lacks it.  YAML null (an
 * empty value, "~", "null") means "not given": optinc_spec_get() returns
 * NULL for it, so the default applies.
 */
#ifndef OPTINC_SPEC_INTERNAL_H
#define OPTINC_SPEC_INTERNAL_H

#include <complex.h>
#include <stddef.h>
#include <string.h>
#include <yaml.h>
#include "optinc/error.h"
#include "optinc/limits.h"
#include "optinc/spec.h"
#include "optinc/text.h"

typedef struct ctx {
    const char *path;          /* the spec's display name, for error records */
    yaml_document_t *doc;
    optinc_error *err;
    optinc_spec *spec;
    long long cards;           /* the layers so far would compile to */
    const optinc_limits *lim;  /* NULL: the defaults */
    const optinc_read_opts *opts; /* the resolver of `file:` matrices (NULL: the files
                                   * beside the spec) */
} ctx;

static inline yaml_node_t *node(ctx *c, int index)
{
    return yaml_document_get_node(c->doc, index);
}

static inline const char *scalar_of(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* YAML's null: a plain scalar that is empty, "~" or "null". */
static inline int is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    const char *s = scalar_of(n);
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
           !strcmp(s, "NULL");
}

/* The number of key: value pairs of mapping node n. */
static inline size_t map_len(const yaml_node_t *n)
{
    return (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
}

/* The number of entries of list node n; -1 when n is not a list. */
static inline long seq_len(const yaml_node_t *n)
{
    if (n->type != YAML_SEQUENCE_NODE)
        return -1;
    return (long)(n->data.sequence.items.top - n->data.sequence.items.start);
}

/* Entry i of list node n. */
static inline yaml_node_t *seq_item(ctx *c, const yaml_node_t *n, long i)
{
    return node(c, n->data.sequence.items.start[i]);
}

/* The number of entries of an array. */
#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* ------------------------------------------------------------ nodes -- */

/* Bad input at node n: FILE:LINE:COL of n and the message. */
optinc_status optinc_spec_fail(ctx *c, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "a list", "a mapping" or "'text'" for messages; buf holds the text. */
const char *optinc_spec_describe(const yaml_node_t *n, char *buf, size_t size);

optinc_status optinc_spec_want_map(ctx *c, yaml_node_t *n, const char *what);
/* n must be a mapping whose keys are unique scalars from keys[] (NULL-ended),
 * or extensions "x-..."; keys == NULL allows any key. */
optinc_status optinc_spec_check_map(ctx *c, yaml_node_t *n, const char *what,
                                    const char *const *keys);
/* The value of key in map, or NULL when absent or null. */
yaml_node_t *optinc_spec_get(ctx *c, yaml_node_t *map, const char *key);
/* The value of key in map into *v; missing, it is an error at map that ends
 * with hint. */
optinc_status optinc_spec_require(ctx *c, yaml_node_t *map, const char *key, const char *what,
                                  const char *hint, yaml_node_t **v);
/* 'key' in what has too many entries (more than OPTINC_LAYERS_MAX). */
optinc_status optinc_spec_too_many(ctx *c, yaml_node_t *n, const char *what, size_t count);
/* The zeroed array of count entries of size bytes for the items of section
 * what (node n) into *out, NULL when count is 0; more than max
 * (OPTINC_LAYERS_MAX or SIZE_MAX) is an error at n. */
optinc_status optinc_spec_entries(ctx *c, yaml_node_t *n, const char *what, size_t count,
                                  size_t max, size_t size, void **out);

/* ---------------------------------------------------------- scalars -- */

/* n must be a scalar; expected says what it should be ("a number"). */
optinc_status optinc_spec_want_scalar(ctx *c, yaml_node_t *n, const char *key,
                                      const char *what, const char *expected);
/* A finite number, real or complex (NumPy spelling); *imag says a 'j' part
 * was given.  real_only only changes the hint of the message. */
optinc_status optinc_spec_number_any(ctx *c, yaml_node_t *n, const char *key,
                                     const char *what, int real_only, double complex *z,
                                     int *imag);
/* A finite real number. */
optinc_status optinc_spec_number(ctx *c, yaml_node_t *n, const char *key, const char *what,
                                 double *out);
/* A whole decimal number into *s_out, or with is_unsigned one without a sign
 * into *u_out. */
optinc_status optinc_spec_whole(ctx *c, yaml_node_t *n, const char *key, const char *what,
                                int is_unsigned, long long *s_out, unsigned long long *u_out);
/* The value of key in map, when present, as the index of its word in
 * names[0 .. n); an unknown word is an error that lists them. */
optinc_status optinc_spec_read_enum(ctx *c, yaml_node_t *map, const char *key,
                                    const char *what, const char *const *names, int *out);
/* false | true as 0 | 1. */
optinc_status optinc_spec_read_bool(ctx *c, yaml_node_t *map, const char *key,
                                    const char *what, int *out);
/* The text of key in map, when present, into out[size]. */
optinc_status optinc_spec_read_string(ctx *c, yaml_node_t *map, const char *key,
                                      const char *what, char *out, size_t size);
/* [A-Za-z_][A-Za-z0-9_]*, shorter than OPTINC_NAME_MAX. */
int optinc_spec_is_ident(const char *s);
/* An identifier scalar n (a value or a key) into out[OPTINC_NAME_MAX]. */
optinc_status optinc_spec_ident(ctx *c, yaml_node_t *n, const char *key, const char *what,
                                char *out);
/* A list of whole numbers in lo..hi, at most max entries. */
optinc_status optinc_spec_read_int_list(ctx *c, yaml_node_t *n, const char *key,
                                        const char *what, int lo, int hi, int *out, int max,
                                        int *count);

/* ----------------------------------------------------- field tables -- */

/* A plain numeric key of a section: where it goes and the range it must be
 * in, so that the check and its message come from one place. */
typedef struct field {
    const char *key;
    char type;                 /* 'd' double, 'i' int, 'u' uint64_t, 'r' range pair */
    size_t off;                /* into the struct being filled */
    double lo, hi;             /* allowed range */
    char lo_open, hi_open;     /* 1 when the bound itself is excluded */
    const char *hint;          /* said after a range error */
} field;

#define FIELDS_END {NULL, 0, 0, 0, 0, 0, 0, NULL}

/* Reads every key of fields[] (FIELDS_END-ended) present in map into base. */
optinc_status optinc_spec_read_fields(ctx *c, yaml_node_t *map, const char *what,
                                      const field *fields, void *base);

/* --------------------------------------------------------- sections -- */

/* spec.c: text as exactly one YAML document, within the limits on the YAML
 * (nesting, nodes, anchors, aliases), its root handed to walk (NULL for an
 * empty document).  The spec and the chip file (spec_chip.c) both read
 * through it. */
optinc_status optinc_spec_load_document(ctx *c, const char *text, size_t len,
                                        optinc_status (*walk)(ctx *c, yaml_node_t *root));

/* The readers of the top-level keys, in spec_components.c, spec_matrices.c,
 * spec_layers.c, spec_allreduce.c, spec_train.c and spec_layout.c. */
optinc_status optinc_spec_parse_settings(ctx *c, yaml_node_t *n);
optinc_status optinc_spec_parse_info(ctx *c, yaml_node_t *n);
optinc_status optinc_spec_parse_components(ctx *c, yaml_node_t *n);
optinc_status optinc_spec_parse_matrices(ctx *c, yaml_node_t *n);
optinc_status optinc_spec_parse_layers(ctx *c, yaml_node_t *n);
optinc_status optinc_spec_parse_connections(ctx *c, yaml_node_t *n);
optinc_status optinc_spec_parse_ports(ctx *c, yaml_node_t *n);
optinc_status optinc_spec_parse_outputs(ctx *c, yaml_node_t *n);
optinc_status optinc_spec_parse_allreduce(ctx *c, yaml_node_t *n);
optinc_status optinc_spec_parse_train(ctx *c, yaml_node_t *n);
optinc_status optinc_spec_parse_layout(ctx *c, yaml_node_t *n);

/* A components table read over *comp (which holds the global table or its
 * defaults); owner is "" or " of layer 'L1'" for messages. */
optinc_status optinc_spec_components_over(ctx *c, yaml_node_t *n, const char *owner,
                                          optinc_components *comp);

/* The allreduce: section before the spec is read. */
void optinc_spec_allreduce_defaults(optinc_spec_allreduce *a);

#endif

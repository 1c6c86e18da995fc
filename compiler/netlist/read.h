/*
 * read.h - the netlist reader's state and the functions its passes share
 * (private to compiler/netlist/).
 *
 * The reader runs in passes, one file each (netlist_read.c lists them and
 * runs them: read_lex.c, read_parse.c, read_check.c, read_header.c,
 * read_flatten.c, read_trace.c); read_util.c holds what they all use: the
 * first error with the FILE:LINE:COL of its token, tokens, values and the
 * table of names.  Every function returns 0 (or an id) on success and -1 on
 * failure; the first error is kept in the reader (st, err) and later ones
 * are dropped.
 *
 * Tokens are (offset, length) pairs into the bytes of their file, 8 bytes
 * each, so a 100 MB netlist costs little more than itself; line and column
 * are computed only for an error (optinc_text_position).
 */
#ifndef OPTINC_NETLIST_READ_H
#define OPTINC_NETLIST_READ_H

#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include "compiler/netlist/dialect.h"
#include "optinc/limits.h"
#include "optinc/netlist.h"

/* A token: its bytes [off, off + len) of its file (len fits 21 bits: a
 * token is on one line, OPTINC_NETLIST_LINE_MAX).  What the tokenizer saw of
 * them, so that later passes need not look again: name is 1 when they are
 * a PNL name (nl_need_name), which a mesh's names and nets nearly all are;
 * eq is 1 + the offset of their first '=' (a key=value), TOK_NO_EQ when
 * they have none.  0 in either says nothing (a token cut out of another
 * one, or an '=' further in than eq holds). */
typedef struct tok {
    uint32_t off;
    uint32_t len : 21, name : 1, eq : 10;
} tok;

enum { TOK_NO_EQ = 1023 };

typedef struct stmt {
    int file;
    int tok0, ntok;         /* tokens toks[tok0 .. tok0+ntok) */
} stmt;

typedef struct meta {       /* `*! KEY = REST` */
    int file;
    tok key, rest;
} meta;

/* One input: the main one (borrowed) or an included file (owned). */
typedef struct source {
    optinc_input in;        /* its bytes and the name messages give it */
    char *name, *data;      /* what the reader allocated for in.name and in.data, or NULL */
    char *key;              /* in.name normalised, to recognise an include cycle */
    int parent;             /* the file of the .include that read it (-1: the main input) */
    uint32_t at;            /* and the offset of its file name there */
} source;

typedef struct param { const char *key; int klen; double v; } param;

/* Parameter scope of the cell being flattened. */
typedef struct scope { const param *p; int n; } scope;

typedef struct cell {
    int stmt;
    int nports;
    int first, n;           /* instances insts[first .. first+n) */
    int param0, nparams;    /* defaults: cparams[param0 ..] */
    int nnets;              /* local nets: ports 0..nports-1, then internal */
    int state;              /* recursion check: 0 new, 1 on stack, 2 done */
    int height;             /* levels of cells from this one down (when done) */
    long size;              /* flattened: cards + instances + their parameters (saturated) */
} cell;

typedef struct inst {
    int stmt;
    int nnets;              /* net tokens 1..nnets of the statement */
    int model;              /* card kind, or OPTINC_CARD_COUNT + cell index */
    int pins;               /* local net ids: pool[pins .. pins+nnets) */
} inst;

/* A card of the flattened netlist.  An end of a net is card * 4 + pin (a
 * card has at most 4 pins), or -(1 + k) for port k of the top cell.  Its
 * values are the reader's vals[val ..], one per parameter given, in the
 * order of the card's parameters (nl_value): a mesh's MZI gives two of
 * seven, and the cards of a big mesh are tens of MB. */
typedef struct prim {
    unsigned char kind, used, busy;
    int pin[OPTINC_CARD_PINS_MAX];  /* global nets */
    int stmt, frame;        /* card line; flattening frame (for the name) */
    unsigned has;           /* bit k: parameter k given */
    int val;
} prim;

typedef struct frame { int stmt, parent; } frame;

typedef struct htab {       /* (ptr, len) -> id, open addressing */
    uint64_t *slot;         /* hash << 32 | (id + 1); 0 = empty */
    size_t cap;
    const char **key;
    int *klen;
    int n, kcap;
} htab;

/* A layer of the circuit and the `*! layer.NAME` line it was read from. */
typedef struct layer_meta {
    int meta;
    int scale_meta;         /* its input_scale line, when it has one */
    optinc_layer *L;
} layer_meta;

typedef struct reader {
    optinc_error *err;
    const optinc_read_opts *opts;   /* the resolver for .include, the limits */
    const optinc_limits *lim;       /* NULL: the defaults */
    optinc_status st;
    source *files; int nfiles; size_t cfiles;
    size_t total_bytes;     /* of the inputs, each inclusion counted (read_lex.c) */
    long nincludes;         /* .include lines followed, repeats counted */
    int stack[OPTINC_NETLIST_INCLUDE_DEPTH_MAX + 2];  /* include chain (file ids) */
    tok *toks; size_t ntoks, ctoks;
    stmt *stmts; int nstmts; size_t cstmts;
    meta *metas; int nmetas; size_t cmetas;
    cell *cells; int ncells; size_t ccells;
    htab cell_names;
    inst *insts; int ninsts; size_t cinsts;
    int *pool; size_t npool, cpool;
    param *cparams; int ncparams; size_t ccparams;
    param *globals; int nglobals; size_t cglobals;
    int top;                /* statement of the top instance line, -1 none */
    int top_cell;
    /* flattened */
    prim *prims; int nprims; size_t cprims;
    double *vals; size_t nvals, cvals;  /* the cards' values */
    int ncouplers;          /* dc cards among them: none, no expanded MZI to fuse */
    frame *frames; int nframes; size_t cframes;
    int *end0, *end1; int nnets; size_t cnets;
    int *stk; size_t nstk, cstk;      /* scratch stack for net maps */
    int nin, nout;                     /* top ports */
} reader;

/* ---------------------------------------------------------------- passes */

int nl_lex(reader *r, const optinc_input *in);
int nl_parse(reader *r);
int nl_check(reader *r);
int nl_flatten(reader *r);
/* The header into c (layers in the order of their lines, lm beside them). */
int nl_header(reader *r, optinc_circuit *c, layer_meta *lm);
int nl_top_ports(reader *r);
int nl_trace(reader *r, optinc_circuit *c, layer_meta *lm);

/* ---------------------------------------------------------------- errors */

/* Records the error at byte off of file (file < 0: no position), unless one
 * is recorded already, and returns -1; prefix starts the message. */
int nl_vfail_at(reader *r, int file, uint32_t off, const char *prefix, const char *fmt,
                va_list ap);
int nl_fail_at(reader *r, int file, uint32_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Out of memory (status 1) while doing what. */
int nl_fail_run(reader *r, const char *what);
/* Line and column of byte off of file. */
void nl_position(const reader *r, int file, uint32_t off, int *line, int *col);

/* Doubles the capacity of *arr (at least 64 items); 0 on success. */
int nl_grow(reader *r, void **arr, size_t *cap, size_t size);
/* Grows an array to hold at least n+1 items; 0 on success. */
#define GROW(r, arr, n, cap)                                                       \
    ((size_t)(n) < (size_t)(cap) ? 0 : nl_grow(r, (void **)&(arr), &(cap), sizeof *(arr)))

/* ---------------------------------------------------------------- tokens */

static inline const char *tp(const reader *r, int file, tok t)
{
    return r->files[file].in.data + t.off;
}

/* Token i of statement s. */
static inline const tok *stok(const reader *r, int s, int i)
{
    return &r->toks[r->stmts[s].tok0 + i];
}

static inline int teq(const reader *r, int file, tok t, const char *s)
{
    size_t n = strlen(s);
    return t.len == n && !memcmp(tp(r, file, t), s, n);
}

static inline int tcaseeq(const reader *r, int file, tok t, const char *s)
{
    size_t n = strlen(s);
    return t.len == n && !strncasecmp(tp(r, file, t), s, n);
}

static inline int nl_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

/* The card kind token t names, or -1. */
static inline int nl_card(const reader *r, int file, tok t)
{
    return optinc_card_find(tp(r, file, t), t.len);
}

/* Fails unless token t is a PNL name; what says what it names. */
int nl_need_name(reader *r, int file, tok t, const char *what);
/* Splits "key=value" at its first '='; returns 0 when t has no '=' (a name
 * has none). */
int nl_split_param(const reader *r, int file, tok t, tok *k, tok *v);
/* Appends the tokens of bytes [a, b) of file to r->toks: blank-separated,
 * a "quoted string" (with \-escapes) one token; returns the count or -1. */
long nl_tokenize(reader *r, int file, size_t a, size_t b);
/* The contents of the "quoted" token t into out, \xHH (two hex digits) as
 * the byte HH and \c as c for any other c; what names it in messages.
 * Contents that do not fit in size bytes are refused at t, never cut (a
 * cut file name would be another file's). */
int nl_unquote(reader *r, int file, tok t, char *out, size_t size, const char *what);
/* nl_unquote for a quoted token, any other token as it is (refused, not
 * cut, when it does not fit either). */
int nl_string(reader *r, int file, tok t, char *out, size_t size, const char *what);

/* ---------------------------------------------------------------- values */

const param *nl_find_param(const param *p, int n, const char *k, int klen);
/* A value token: a decimal number or the name of a parameter in scope sc
 * (NULL: none) or of a global one. */
int nl_value_of(reader *r, int file, tok v, const scope *sc, double *out);
/* A whole number in [lo, hi] written without fraction or exponent. */
int nl_int_value(reader *r, int file, tok v, long long lo, long long hi, long long *out);

/* ---------------------------------------------------------------- names */

void nl_ht_free(htab *h);
/* Makes room for `want` keys; -1 when out of memory. */
int nl_ht_reserve(reader *r, htab *h, size_t want);
/* The id of (p, n), adding it when absent (*added = 1); -1 when out of memory. */
int nl_ht_id(reader *r, htab *h, const char *p, int n, int *added);
/* The hash of (p, n) the table files it under: eight bytes at a time (a
 * net name of a mesh is about fifteen), the last eight overlapping those
 * before, each word mixed in by one multiplication, and the sum scrambled
 * at the end so that names differing in one digit land far apart.  Only
 * the table's speed depends on it: ids are given in the order names are
 * first seen. */
static inline uint32_t nl_ht_hash(const char *p, int n)
{
    const uint64_t mul = 0x9e3779b97f4a7c15u;
    uint64_t h = (uint64_t)n * mul, w = 0;
    int left = n;
    for (; left > 8; p += 8, left -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * mul;
        h ^= h >> 29;
    }
    if (n >= 8)
        memcpy(&w, p + left - 8, 8);
    else
        for (int i = 0; i < left; i++)
            w |= (uint64_t)(unsigned char)p[i] << 8 * i;
    h = (h ^ w) * 0xbf58476d1ce4e5b9u;
    h ^= h >> 32;
    h *= mul;
    return (uint32_t)(h >> 32);
}
/* nl_ht_id with the hash of (p, n) already computed (nl_ht_hash). */
int nl_ht_id_hashed(reader *r, htab *h, const char *p, int n, uint32_t hv, int *added);

/* Starts loading the slot where a key of hash hv is looked for: a table of
 * a big mesh's nets is larger than the caches and read at random, so each
 * lookup would otherwise wait for memory on its own; prefetched a few
 * lookups ahead, the waits overlap.  The table must not grow in between
 * (nl_ht_reserve first) for the hint to be of use; it is harmless if it does. */
static inline void nl_ht_prefetch(const htab *h, uint32_t hv)
{
    if (h->cap)
        __builtin_prefetch(&h->slot[hv & (h->cap - 1)]);
}
/* The id of (p, n), or -1. */
int nl_ht_find(const htab *h, const char *p, int n);

/* ---------------------------------------------------------------- nets */

/* The other end of global net g, seen from end e (INT_MIN: none yet). */
static inline int nl_other_end(const reader *r, int g, int e)
{
    return r->end0[g] == e ? r->end1[g] : r->end0[g];
}

/* Parameter k of card p: the value given, 0 when it was not. */
static inline double nl_value(const reader *r, const prim *p, int k)
{
    if (!(p->has & (1u << k)))
        return 0;
    return r->vals[p->val + __builtin_popcount(p->has & ((1u << k) - 1))];
}

/* 1 when end e is pin `pin` of an unused card of this kind. */
static inline int nl_driver_kind(const reader *r, int e, int kind, int pin)
{
    return e >= 0 && r->prims[e >> 2].kind == kind && (e & 3) == pin && !r->prims[e >> 2].used;
}

#endif

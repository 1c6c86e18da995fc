/*
 * netlist_read.c - reads a PNL netlist (optinc-netlist(5)), validates it and
 * rebuilds the compiled circuit it describes.
 *
 * The reader works in five passes, each of which can stop with
 * FILE:LINE:COL of the offending token:
 *
 *   1. lex     the file and its .include files into statements (a statement
 *              is a line plus its `+` continuations) and `*!` header lines.
 *              Tokens are (offset, length) pairs into the file's bytes, 8
 *              bytes each, so a 100 MB netlist costs little more than
 *              itself; line and column are computed only for an error.
 *   2. parse   statements into cells (.subckt ... .ends), instances, global
 *              .params and the one top instance line; check names.
 *   3. check   each cell: models exist, pin counts, unique instance names,
 *              every net with exactly two ends (one when it is a port), and
 *              no cell that instantiates itself.
 *   4. flatten the top instance into primitive cards on global nets,
 *              resolving parameter references and checking every value
 *              against its card's table (ranges, codes < 2^bits).  An
 *              expanded MZI (ps -> dc -> ps -> dc, couplings 0.5, as
 *              --expand-mzi writes it, flat or as .subckt mzi2x2) is fused
 *              back into one mzi card.
 *   5. trace   the light from the top cell's input ports through the layers
 *              the header lists, stage by stage as the layer's attenuator
 *              position plans them: a mesh is MZIs (each on two adjacent
 *              modes, in0 on the lower index) closed by one ps per mode; an
 *              attenuator column is one att per channel, a term on each extra
 *              input, and a term starting each extra (unlit) output.
 *
 * Why trace the connectivity instead of trusting instance names: the names
 * are a convenience for people; the wiring is the circuit.  Tracing makes
 * hierarchical, --flatten and --expand-mzi files (and hand-written ones)
 * rebuild the same meshes, and any mis-wiring is an error at the card that
 * breaks the structure.  MZI columns are recomputed as early as their modes
 * allow, which is how the compiler places them.  An unlit mode (a term that
 * starts a waveguide) has no position of its own; it takes the mode of the
 * MZI input it feeds, and MZIs fed only by unlit modes are placed when a lit
 * MZI needs their output ("pulled").
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "compiler/netlist/cards.h"
#include "optinc/fileio.h"
#include "optinc/limits.h"
#include "optinc/netlist.h"

/* ================================================================= data */

typedef struct tok { uint32_t off, len; } tok;

typedef struct stmt {
    int file;
    int tok0, ntok;         /* tokens toks[tok0 .. tok0+ntok) */
} stmt;

typedef struct meta {       /* `*! KEY = REST` */
    int file;
    tok key, rest;
} meta;

typedef struct source {
    char *path;             /* as opened (relative to the cwd) */
    char *real;             /* realpath, for include cycles */
    char *buf;
    size_t len;
} source;

typedef struct param { const char *key; int klen; double v; } param;

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
    int model;              /* card id, or OPTINC_CARD_COUNT + cell index */
    int pins;               /* local net ids: pool[pins .. pins+nnets) */
} inst;

typedef struct prim {
    unsigned char kind, used, busy;
    int pin[4];             /* global nets */
    int stmt, frame;        /* card line; flattening frame (for the name) */
    unsigned has;           /* bit k: parameter k given */
    double v[OPTINC_CARD_PARAMS_MAX];
} prim;

typedef struct frame { int stmt, parent; } frame;

typedef struct htab {       /* (ptr, len) -> id, open addressing */
    uint64_t *slot;         /* hash << 32 | (id + 1); 0 = empty */
    size_t cap;
    const char **key;
    int *klen;
    int n, kcap;
} htab;

typedef struct reader {
    optinc_error *err;
    const optinc_limits *lim;   /* NULL: the defaults */
    optinc_status st;
    source *files; int nfiles;
    size_t total_bytes;
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
    frame *frames; int nframes; size_t cframes;
    int *end0, *end1; int nnets; size_t cnets;
    int *stk; size_t nstk, cstk;      /* scratch stack for net maps */
    int nin, nout;                     /* top ports */
} reader;

/* Grows an array to hold at least n+1 items; 0 on success. */
#define GROW(r, arr, n, cap)                                                       \
    ((size_t)(n) < (size_t)(cap) ? 0 : grow_array(r, (void **)&(arr), &(cap), sizeof *(arr)))

static int grow_array(reader *r, void **arr, size_t *cap, size_t size);

/* ================================================================= errors */

static void position(const reader *r, int file, uint32_t off, int *line, int *col)
{
    const char *b = r->files[file].buf;
    int ln = 1;
    uint32_t start = 0;
    for (uint32_t i = 0; i < off && i < r->files[file].len; i++)
        if (b[i] == '\n') {
            ln++;
            start = i + 1;
        }
    *line = ln;
    *col = (int)(off - start) + 1;
}

/* Records the error (the first one wins) and returns -1; prefix starts the
 * message. */
static int vfail_at(reader *r, int file, uint32_t off, const char *prefix, const char *fmt,
                    va_list ap)
{
    if (r->st)
        return -1;
    char msg[1024];
    int n = snprintf(msg, sizeof msg, "%s", prefix);
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    int line = 0, col = 0;
    if (file >= 0)
        position(r, file, off, &line, &col);
    r->st = optinc_fail(r->err, OPTINC_EINPUT, file >= 0 ? r->files[file].path : NULL, line,
                        col, "%s", msg);
    return -1;
}

static int fail_at(reader *r, int file, uint32_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_at(reader *r, int file, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(r, file, off, "", fmt, ap);
    va_end(ap);
    return -1;
}

static int fail_run(reader *r, const char *what)
{
    if (!r->st)
        r->st = optinc_fail(r->err, OPTINC_ERUN, NULL, 0, 0, "out of memory %s", what);
    return -1;
}

static int grow_array(reader *r, void **arr, size_t *cap, size_t size)
{
    size_t ncap = *cap ? *cap * 2 : 64;
    void *p = realloc(*arr, ncap * size);
    if (!p)
        return fail_run(r, "reading the netlist");
    *arr = p;
    *cap = ncap;
    return 0;
}

/* ================================================================= tokens */

static const char *tp(const reader *r, int file, tok t) { return r->files[file].buf + t.off; }

static const tok *stok(const reader *r, int s, int i) { return &r->toks[r->stmts[s].tok0 + i]; }

static int teq(const reader *r, int file, tok t, const char *s)
{
    size_t n = strlen(s);
    return t.len == n && !memcmp(tp(r, file, t), s, n);
}

static int tcaseeq(const reader *r, int file, tok t, const char *s)
{
    size_t n = strlen(s);
    return t.len == n && !strncasecmp(tp(r, file, t), s, n);
}

static int is_name(const char *p, size_t n)
{
    if (!n || !((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_'))
        return 0;
    for (size_t i = 1; i < n; i++) {
        char ch = p[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_'
              || (ch >= '0' && ch <= '9')))
            return 0;
    }
    return 1;
}

/* Fails unless token t is a PNL name; what says what it names. */
static int need_name(reader *r, int file, tok t, const char *what)
{
    if (is_name(tp(r, file, t), t.len))
        return 0;
    return fail_at(r, file, t.off, "%s '%.*s' is not a name: names match "
                   "[A-Za-z_][A-Za-z0-9_]*", what, (int)(t.len > 80 ? 80 : t.len),
                   tp(r, file, t));
}

/* Splits "key=value" at its first '='; returns 0 when t has no '='. */
static int split_param(const reader *r, int file, tok t, tok *k, tok *v)
{
    const char *p = tp(r, file, t);
    const char *eq = memchr(p, '=', t.len);
    if (!eq)
        return 0;
    *k = (tok){t.off, (uint32_t)(eq - p)};
    *v = (tok){t.off + k->len + 1, t.len - k->len - 1};
    return 1;
}

static int blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v'; }

/* Appends the tokens of buf[a..b) to *v; returns the count or -1. */
static long tokenize(reader *r, int file, size_t a, size_t b)
{
    const char *buf = r->files[file].buf;
    long count = 0;
    size_t i = a;
    while (i < b) {
        while (i < b && blank(buf[i]))
            i++;
        if (i >= b)
            break;
        size_t start = i;
        while (i < b && !blank(buf[i])) {
            if (buf[i] == '"') {
                size_t q = i++;
                while (i < b && buf[i] != '"')
                    i += buf[i] == '\\' && i + 1 < b ? 2 : 1;
                if (i >= b)
                    return fail_at(r, file, (uint32_t)q, "unterminated string: add the "
                                   "closing '\"'");
            }
            i++;
        }
        if (GROW(r, r->toks, r->ntoks, r->ctoks))
            return -1;
        r->toks[r->ntoks++] = (tok){(uint32_t)start, (uint32_t)(i - start)};
        count++;
    }
    return count;
}

/* The contents of a "quoted" token (or the token itself) into out. */
static int unquote(reader *r, int file, tok t, char *out, size_t size, const char *what)
{
    const char *p = tp(r, file, t);
    size_t n = 0;
    if (t.len < 2 || p[0] != '"' || p[t.len - 1] != '"')
        return fail_at(r, file, t.off, "%s must be a double-quoted string, as in \"name\"", what);
    for (size_t i = 1; i + 1 < t.len; i++) {
        if (p[i] == '\\')
            i++;
        if (n + 1 >= size)
            return fail_at(r, file, t.off, "%s is too long (over %zu bytes)", what, size - 1);
        out[n++] = p[i];
    }
    out[n] = '\0';
    return 0;
}

/* ================================================================= hash */

static uint32_t hash(const char *p, int n)
{
    uint32_t h = 2166136261u;
    for (int i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

static void ht_free(htab *h)
{
    free(h->slot);
    free(h->key);
    free(h->klen);
    memset(h, 0, sizeof *h);
}

/* The slot of (p, n): where it is, or the empty slot where it would go.
 * The hash kept in each slot spares most key comparisons (and their cache
 * misses) on a mismatch. */
static size_t ht_slot(const htab *h, const char *p, int n, uint32_t hv)
{
    size_t j = hv & (h->cap - 1);
    for (; h->slot[j]; j = (j + 1) & (h->cap - 1)) {
        int id = (int)(uint32_t)h->slot[j] - 1;
        if ((uint32_t)(h->slot[j] >> 32) == hv && h->klen[id] == n
            && !memcmp(h->key[id], p, (size_t)n))
            break;
    }
    return j;
}

/* Makes room for `want` keys at a load of at most 1/2.  -1 on OOM. */
static int ht_reserve(reader *r, htab *h, size_t want)
{
    if (want * 2 <= h->cap)
        return 0;
    size_t cap = h->cap ? h->cap : 256;
    while (cap < want * 2)
        cap *= 2;
    {
        uint64_t *slot = calloc(cap, sizeof *slot);
        if (!slot)
            return fail_run(r, "reading the netlist");
        for (size_t i = 0; i < h->cap; i++)
            if (h->slot[i]) {
                size_t j = (h->slot[i] >> 32) & (cap - 1);
                while (slot[j])
                    j = (j + 1) & (cap - 1);
                slot[j] = h->slot[i];
            }
        free(h->slot);
        h->slot = slot;
        h->cap = cap;
    }
    return 0;
}

/* The id of (p, n), adding it when absent (*added = 1).  -1 on OOM. */
static int ht_id(reader *r, htab *h, const char *p, int n, int *added)
{
    if (ht_reserve(r, h, (size_t)h->n + 1))
        return -1;
    uint32_t hv = hash(p, n);
    size_t j = ht_slot(h, p, n, hv);
    if (h->slot[j]) {
        *added = 0;
        return (int)(uint32_t)h->slot[j] - 1;
    }
    if (h->n >= h->kcap) {
        int kcap = h->kcap ? h->kcap * 2 : 256;
        const char **key = realloc(h->key, sizeof *key * (size_t)kcap);
        if (!key)
            return fail_run(r, "reading the netlist");
        h->key = key;
        int *klen = realloc(h->klen, sizeof *klen * (size_t)kcap);
        if (!klen)
            return fail_run(r, "reading the netlist");
        h->klen = klen;
        h->kcap = kcap;
    }
    h->key[h->n] = p;
    h->klen[h->n] = n;
    h->slot[j] = (uint64_t)hv << 32 | (uint32_t)++h->n;
    *added = 1;
    return h->n - 1;
}

static int ht_find(const htab *h, const char *p, int n)
{
    if (!h->cap)
        return -1;
    size_t j = ht_slot(h, p, n, hash(p, n));
    return h->slot[j] ? (int)(uint32_t)h->slot[j] - 1 : -1;
}

/* ================================================================= pass 1: lex */

static int lex_file(reader *r, int file, int depth);

/* Opens path (relative to the cwd), checks the limits, appends a source. */
static int load_source(reader *r, const char *path, int from_file, tok from)
{
    char *real = realpath(path, NULL);
    FILE *f = real ? fopen(path, "rb") : NULL;
    if (!f) {
        int e = errno;
        free(real);
        if (from_file < 0) {
            r->st = optinc_fail(r->err, e == ENOENT || e == ENOTDIR || e == EACCES
                                ? OPTINC_EINPUT : OPTINC_ERUN, path, 0, 0,
                                "cannot open netlist '%s': %s", path, strerror(e));
            return -1;
        }
        return fail_at(r, from_file, from.off, "cannot open included file '%s': %s; paths "
                       "are relative to the including file", path, strerror(e));
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode)) {
        fclose(f);
        free(real);
        if (from_file < 0) {
            r->st = optinc_fail(r->err, OPTINC_EINPUT, path, 0, 0,
                                "'%s' is not a regular file", path);
            return -1;
        }
        return fail_at(r, from_file, from.off, "included '%s' is not a regular file", path);
    }
    if ((uint64_t)sb.st_size + r->total_bytes > (uint64_t)OPTINC_NETLIST_BYTES_MAX) {
        fclose(f);
        free(real);
        if (from_file < 0) {
            r->st = optinc_fail(r->err, OPTINC_EINPUT, path, 0, 0,
                                "netlist '%s' is larger than %ld MiB, the reader's limit "
                                "(OPTINC_NETLIST_BYTES_MAX); split it or raise the limit",
                                path, OPTINC_NETLIST_BYTES_MAX >> 20);
            return -1;
        }
        return fail_at(r, from_file, from.off, "with '%s' the netlist grows past %ld MiB, the "
                       "reader's limit (OPTINC_NETLIST_BYTES_MAX)", path,
                       OPTINC_NETLIST_BYTES_MAX >> 20);
    }
    size_t len = (size_t)sb.st_size;
    char *buf = malloc(len + 1);
    size_t got = buf ? fread(buf, 1, len, f) : 0;
    int bad = ferror(f);
    fclose(f);
    source *s = NULL;
    if (!buf || bad || got != len) {
        free(buf);
        free(real);
        if (!r->st)
            r->st = optinc_fail(r->err, OPTINC_ERUN, path, 0, 0, "cannot read '%s'", path);
        return -1;
    }
    source *files = realloc(r->files, sizeof *files * (size_t)(r->nfiles + 1));
    if (!files) {
        free(buf);
        free(real);
        return fail_run(r, "reading the netlist");
    }
    r->files = files;
    s = &r->files[r->nfiles];
    s->path = strdup(path);
    s->real = real;
    s->buf = buf;
    s->len = len;
    buf[len] = '\0';
    r->nfiles++;
    r->total_bytes += len;
    if (!s->path)
        return fail_run(r, "reading the netlist");
    if (memchr(buf, '\0', len))
        return fail_at(r, r->nfiles - 1, (uint32_t)((char *)memchr(buf, '\0', len) - buf),
                       "NUL byte: a netlist is a text file");
    return r->nfiles - 1;
}

/* .include "file": the path is relative to the including file. */
static int do_include(reader *r, int s, int depth)
{
    const stmt *st = &r->stmts[s];
    int file = st->file;
    if (st->ntok != 2)
        return fail_at(r, file, stok(r, s, st->ntok > 2 ? 2 : 0)->off,
                       ".include takes one file name, as in .include \"cells.pnl.sp\"");
    tok t = *stok(r, s, 1);
    char rel[1024], dir[1024], path[2200];
    if (tp(r, file, t)[0] == '"') {
        if (unquote(r, file, t, rel, sizeof rel, "the file name of .include"))
            return -1;
    } else {
        snprintf(rel, sizeof rel, "%.*s", (int)(t.len < 1023 ? t.len : 1023), tp(r, file, t));
    }
    if (depth + 1 > OPTINC_NETLIST_INCLUDE_DEPTH_MAX)
        return fail_at(r, file, t.off, ".include nests deeper than %d files, the reader's "
                       "limit (OPTINC_NETLIST_INCLUDE_DEPTH_MAX); is there an include cycle?",
                       OPTINC_NETLIST_INCLUDE_DEPTH_MAX);
    optinc_path_dir(r->files[file].path, dir, sizeof dir);
    optinc_path_join(dir, rel, path, sizeof path);
    int nf = load_source(r, path, file, t);
    if (nf < 0)
        return -1;
    for (int d = 0; d <= depth; d++)
        if (!strcmp(r->files[r->stack[d]].real, r->files[nf].real))
            return fail_at(r, file, t.off, "include cycle: '%s' includes itself (through "
                           "'%s')", r->files[nf].path, r->files[file].path);
    r->stack[depth + 1] = nf;
    return lex_file(r, nf, depth + 1);
}

/* A statement is complete: run it now if it is an .include, so the included
 * statements follow it in order. */
static int finish(reader *r, int s, int depth)
{
    if (s < 0)
        return 0;
    if (!tcaseeq(r, r->stmts[s].file, *stok(r, s, 0), ".include"))
        return 0;
    return do_include(r, s, depth);
}

/* `*! KEY = REST`; other `*!` lines are comments. */
static int lex_meta(reader *r, int file, size_t a, size_t b)
{
    const char *buf = r->files[file].buf;
    size_t i = a + 2;
    while (i < b && blank(buf[i]))
        i++;
    size_t k = i;
    while (i < b && !blank(buf[i]) && buf[i] != '=')
        i++;
    size_t klen = i - k;
    while (i < b && blank(buf[i]))
        i++;
    if (!klen || i >= b || buf[i] != '=')
        return 0;
    i++;
    if (GROW(r, r->metas, r->nmetas, r->cmetas))
        return -1;
    r->metas[r->nmetas++] = (meta){file, {(uint32_t)k, (uint32_t)klen},
                                   {(uint32_t)i, (uint32_t)(b - i)}};
    return 0;
}

static int lex_file(reader *r, int file, int depth)
{
    const char *buf = r->files[file].buf;
    size_t len = r->files[file].len, a = 0;
    int pending = -1;       /* the statement a `+` line continues */
    while (a < len) {
        const char *nl = memchr(buf + a, '\n', len - a);
        size_t b = nl ? (size_t)(nl - buf) : len;
        if (b - a > (size_t)OPTINC_NETLIST_LINE_MAX)
            return fail_at(r, file, (uint32_t)a, "line longer than %ld bytes, the reader's "
                           "limit (OPTINC_NETLIST_LINE_MAX); break it with '+' continuation "
                           "lines", OPTINC_NETLIST_LINE_MAX);
        size_t i = a;
        while (i < b && blank(buf[i]))
            i++;
        if (i == b) {
            /* blank line */
        } else if (buf[a] == '*') {
            if (b - a >= 2 && buf[a + 1] == '!' && lex_meta(r, file, a, b))
                return -1;
        } else if (buf[a] == '+') {
            if (pending < 0)
                return fail_at(r, file, (uint32_t)a, "continuation line '+' with no "
                               "statement before it to continue");
            long n = tokenize(r, file, a + 1, b);
            if (n < 0)
                return -1;
            r->stmts[pending].ntok += (int)n;
        } else {
            if (finish(r, pending, depth))
                return -1;
            if (GROW(r, r->stmts, r->nstmts, r->cstmts))
                return -1;
            if (r->ntoks > (size_t)INT_MAX / 2)
                return fail_at(r, file, (uint32_t)a, "too many tokens");
            int tok0 = (int)r->ntoks;
            long n = tokenize(r, file, a, b);
            if (n < 0)
                return -1;
            pending = r->nstmts++;
            r->stmts[pending] = (stmt){file, tok0, (int)n};
        }
        a = b + 1;
    }
    return finish(r, pending, depth);
}

/* ================================================================= values */

/* Parameter scope of the cell being flattened. */
typedef struct scope { const param *p; int n; } scope;

static const param *find_param(const param *p, int n, const char *k, int klen)
{
    for (int i = 0; i < n; i++)
        if (p[i].klen == klen && !memcmp(p[i].key, k, (size_t)klen))
            return &p[i];
    return NULL;
}

/* A value token: a decimal number or the name of a parameter in scope. */
static int value_of(reader *r, int file, tok v, const scope *sc, double *out)
{
    const char *p = tp(r, file, v);
    if (!v.len)
        return fail_at(r, file, v.off, "missing value after '='");
    if (is_name(p, v.len)) {
        const param *q = sc ? find_param(sc->p, sc->n, p, (int)v.len) : NULL;
        if (!q)
            q = find_param(r->globals, r->nglobals, p, (int)v.len);
        if (q) {
            *out = q->v;
            return 0;
        }
        if ((v.len == 3 && (!strncasecmp(p, "nan", 3) || !strncasecmp(p, "inf", 3)))
            || (v.len == 8 && !strncasecmp(p, "infinity", 8)))
            return fail_at(r, file, v.off, "'%.*s': NaN and infinite values are not allowed; "
                           "write a finite decimal number", (int)v.len, p);
        return fail_at(r, file, v.off, "undefined parameter '%.*s': define it with .param "
                       "or in the .subckt line, or write a number", (int)v.len, p);
    }
    if (p[0] == '"')
        return fail_at(r, file, v.off, "a string is not allowed here; write a number");
    char tmp[64], *end;
    if (v.len >= sizeof tmp)
        return fail_at(r, file, v.off, "bad number '%.20s...': too long", p);
    memcpy(tmp, p, v.len);
    tmp[v.len] = '\0';
    errno = 0;
    double x = strtod(tmp, &end);
    if (end == tmp || *end)
        return fail_at(r, file, v.off, "bad number '%s': write a plain decimal number such as "
                       "1.5 or -2e-3, with the unit in the parameter name", tmp);
    if (isnan(x))
        return fail_at(r, file, v.off, "'%s': NaN and infinite values are not allowed; write a "
                       "finite decimal number", tmp);
    if (!isfinite(x))
        return fail_at(r, file, v.off, "number '%s' is out of range (not a finite double)", tmp);
    *out = x;
    return 0;
}

/* An integer in [lo, hi] written without fraction or exponent. */
static int int_value(reader *r, int file, tok v, long long lo, long long hi, long long *out)
{
    const char *p = tp(r, file, v);
    size_t i = p[0] == '-' || p[0] == '+';
    if (v.len <= i || v.len > 20)
        return fail_at(r, file, v.off, "bad integer '%.*s'", (int)(v.len > 30 ? 30 : v.len), p);
    for (size_t j = i; j < v.len; j++)
        if (p[j] < '0' || p[j] > '9')
            return fail_at(r, file, v.off, "bad integer '%.*s': write whole decimal digits",
                           (int)v.len, p);
    char tmp[32];
    memcpy(tmp, p, v.len);
    tmp[v.len] = '\0';
    errno = 0;
    long long x = strtoll(tmp, NULL, 10);
    if (errno || x < lo || x > hi)
        return fail_at(r, file, v.off, "%s is out of range; use %lld..%lld", tmp, lo, hi);
    *out = x;
    return 0;
}

/* ================================================================= pass 2: parse */

static int card_id(const reader *r, int file, tok t)
{
    return optinc_card_find(tp(r, file, t), t.len);
}

static int too_many_params(reader *r, int file, tok at)
{
    return fail_at(r, file, at.off, "more than %d parameters here, the reader's limit "
                   "(OPTINC_NETLIST_PARAMS_MAX) for the globals, a .subckt or an instance",
                   OPTINC_NETLIST_PARAMS_MAX);
}

/* k=v tokens of statement s from index i on, into a param list (duplicates
 * refused); values resolve against the globals defined so far. */
static int parse_params(reader *r, int s, int i, param **arr, int *n, size_t *cap, int start)
{
    int file = r->stmts[s].file;
    for (; i < r->stmts[s].ntok; i++) {
        tok t = *stok(r, s, i), k = {0, 0}, v = {0, 0};
        if (!split_param(r, file, t, &k, &v))
            return fail_at(r, file, t.off, "expected key=value, found '%.*s'",
                           (int)(t.len > 80 ? 80 : t.len), tp(r, file, t));
        if (need_name(r, file, k, "parameter"))
            return -1;
        const char *kp = tp(r, file, k);
        if (*n - start == OPTINC_NETLIST_PARAMS_MAX)
            return too_many_params(r, file, k);
        if (*n > start && find_param(*arr + start, *n - start, kp, (int)k.len))
            return fail_at(r, file, k.off, "parameter '%.*s' is given twice", (int)k.len, kp);
        double x;
        if (value_of(r, file, v, NULL, &x))
            return -1;
        if (GROW(r, *arr, *n, *cap))
            return -1;
        (*arr)[(*n)++] = (param){kp, (int)k.len, x};
    }
    return 0;
}

static int parse_subckt(reader *r, int s)
{
    const stmt *st = &r->stmts[s];
    int file = st->file;
    if (st->ntok < 2)
        return fail_at(r, file, stok(r, s, 0)->off, ".subckt needs a name and its ports, as "
                       "in .subckt NAME in0 out0");
    tok name = *stok(r, s, 1), k = {0, 0}, v = {0, 0};
    if (need_name(r, file, name, "cell"))
        return -1;
    if (card_id(r, file, name) >= 0)
        return fail_at(r, file, name.off, "cell name '%.*s' is a card name; rename the cell",
                       (int)name.len, tp(r, file, name));
    int added, id = ht_id(r, &r->cell_names, tp(r, file, name), (int)name.len, &added);
    if (id < 0)
        return -1;
    if (!added) {
        int line, col;
        position(r, r->stmts[r->cells[id].stmt].file, stok(r, r->cells[id].stmt, 1)->off,
                 &line, &col);
        return fail_at(r, file, name.off, ".subckt '%.*s' is defined twice (first at line %d "
                       "of %s)", (int)name.len, tp(r, file, name), line,
                       r->files[r->stmts[r->cells[id].stmt].file].path);
    }
    if (GROW(r, r->cells, r->ncells, r->ccells))
        return -1;
    cell *c = &r->cells[r->ncells++];
    memset(c, 0, sizeof *c);
    c->stmt = s;
    c->first = r->ninsts;
    int i = 2;
    while (i < st->ntok && !split_param(r, file, *stok(r, s, i), &k, &v))
        i++;
    if (i - 2 > 2 * optinc_limits_get(r->lim, OPTINC_LIMIT_MODES)) {
        char lim[160];
        return fail_at(r, file, name.off, ".subckt '%.*s' has %d ports, more than twice %s",
                       (int)name.len, tp(r, file, name), i - 2,
                       optinc_limits_text(r->lim, OPTINC_LIMIT_MODES, lim, sizeof lim));
    }
    for (i = 2; i < st->ntok && !split_param(r, file, *stok(r, s, i), &k, &v); i++) {
        tok p = *stok(r, s, i);
        if (need_name(r, file, p, "port"))
            return -1;
        for (int j = 2; j < i; j++)
            if (stok(r, s, j)->len == p.len
                && !memcmp(tp(r, file, *stok(r, s, j)), tp(r, file, p), p.len))
                return fail_at(r, file, p.off, "port '%.*s' is listed twice", (int)p.len,
                               tp(r, file, p));
    }
    c->nports = i - 2;
    c->param0 = r->ncparams;
    if (parse_params(r, s, i, &r->cparams, &r->ncparams, &r->ccparams, c->param0))
        return -1;
    c->nparams = r->ncparams - c->param0;
    return 0;
}

static int parse_instance(reader *r, int s, int in_cell)
{
    const stmt *st = &r->stmts[s];
    int file = st->file;
    tok name = *stok(r, s, 0), k = {0, 0}, v = {0, 0};
    if (need_name(r, file, name, "instance"))
        return -1;
    int model = st->ntok - 1;
    while (model > 0 && split_param(r, file, *stok(r, s, model), &k, &v))
        model--;
    if (model < 1)
        return fail_at(r, file, name.off, "instance '%.*s' has no model: write NAME NETS... "
                       "MODEL [key=value ...]", (int)name.len, tp(r, file, name));
    if (st->ntok - 1 - model > OPTINC_NETLIST_PARAMS_MAX)
        return too_many_params(r, file, *stok(r, s, model + 1 + OPTINC_NETLIST_PARAMS_MAX));
    for (int i = 1; i <= model; i++) {
        tok t = *stok(r, s, i);
        if (split_param(r, file, t, &k, &v))
            return fail_at(r, file, t.off, "parameter '%.*s' comes before the model; "
                           "parameters follow the model name", (int)t.len, tp(r, file, t));
        if (need_name(r, file, t, i == model ? "model" : "net"))
            return -1;
    }
    if (!in_cell) {
        if (r->top >= 0) {
            int line, col;
            position(r, r->stmts[r->top].file, stok(r, r->top, 0)->off, &line, &col);
            return fail_at(r, file, name.off, "a second top-level instance line; a netlist "
                           "has exactly one (the first is at %s:%d)",
                           r->files[r->stmts[r->top].file].path, line);
        }
        r->top = s;
        return 0;
    }
    if (GROW(r, r->insts, r->ninsts, r->cinsts))
        return -1;
    r->insts[r->ninsts++] = (inst){s, model - 1, -1, -1};
    r->cells[r->ncells - 1].n++;
    return 0;
}

static int parse(reader *r)
{
    int open = -1;          /* statement of the open .subckt */
    int ended = -1;         /* statement of .end */
    for (int s = 0; s < r->nstmts; s++) {
        int file = r->stmts[s].file;
        tok t0 = *stok(r, s, 0);
        if (ended >= 0)
            return fail_at(r, file, t0.off, "statement after .end; .end closes the netlist");
        if (tp(r, file, t0)[0] != '.') {
            if (parse_instance(r, s, open >= 0))
                return -1;
            continue;
        }
        if (tcaseeq(r, file, t0, ".include"))
            continue;
        if (tcaseeq(r, file, t0, ".subckt")) {
            if (open >= 0)
                return fail_at(r, file, t0.off, ".subckt inside .subckt '%.*s'; cells do not "
                               "nest: close it with .ends first", (int)stok(r, open, 1)->len,
                               tp(r, r->stmts[open].file, *stok(r, open, 1)));
            if (parse_subckt(r, s))
                return -1;
            open = s;
        } else if (tcaseeq(r, file, t0, ".ends")) {
            if (open < 0)
                return fail_at(r, file, t0.off, ".ends without a matching .subckt");
            tok name = *stok(r, open, 1);
            int ofile = r->stmts[open].file;
            if (r->stmts[s].ntok > 2)
                return fail_at(r, file, stok(r, s, 2)->off, ".ends takes at most the cell name");
            if (r->stmts[s].ntok == 2) {
                tok e = *stok(r, s, 1);
                if (e.len != name.len || memcmp(tp(r, file, e), tp(r, ofile, name), e.len))
                    return fail_at(r, file, e.off, "'.ends %.*s' does not match the open "
                                   "'.subckt %.*s'", (int)e.len, tp(r, file, e),
                                   (int)name.len, tp(r, ofile, name));
            }
            open = -1;
        } else if (tcaseeq(r, file, t0, ".param")) {
            if (r->stmts[s].ntok < 2)
                return fail_at(r, file, t0.off, ".param needs at least one key=value");
            if (open >= 0) {
                cell *c = &r->cells[r->ncells - 1];
                if (parse_params(r, s, 1, &r->cparams, &r->ncparams, &r->ccparams, c->param0))
                    return -1;
                c->nparams = r->ncparams - c->param0;
            } else if (parse_params(r, s, 1, &r->globals, &r->nglobals, &r->cglobals, 0)) {
                return -1;
            }
        } else if (tcaseeq(r, file, t0, ".end")) {
            if (file != 0)
                return fail_at(r, file, t0.off, ".end in an included file; only the main "
                               "netlist ends with .end");
            if (open >= 0)
                return fail_at(r, file, t0.off, ".end inside .subckt '%.*s': add .ends first",
                               (int)stok(r, open, 1)->len,
                               tp(r, r->stmts[open].file, *stok(r, open, 1)));
            if (r->stmts[s].ntok > 1)
                return fail_at(r, file, stok(r, s, 1)->off, ".end takes nothing after it");
            ended = s;
        } else {
            return fail_at(r, file, t0.off, "unknown statement '%.*s'; PNL has .subckt, .ends, "
                           ".param, .include and .end", (int)t0.len, tp(r, file, t0));
        }
    }
    if (open >= 0)
        return fail_at(r, r->stmts[open].file, stok(r, open, 0)->off,
                       ".subckt '%.*s' has no .ends", (int)stok(r, open, 1)->len,
                       tp(r, r->stmts[open].file, *stok(r, open, 1)));
    if (ended < 0) {
        /* Point just past the last statement of the main file. */
        uint32_t off = 0;
        for (int s = r->nstmts - 1; s >= 0; s--)
            if (r->stmts[s].file == 0) {
                tok t = *stok(r, s, r->stmts[s].ntok - 1);
                off = t.off + t.len;
                break;
            }
        return fail_at(r, 0, off, "missing .end: a netlist ends with the top instance line "
                       "and .end");
    }
    if (r->top < 0)
        return fail_at(r, 0, stok(r, ended, 0)->off, "no top-level instance line: instantiate "
                       "the top cell before .end, as in 'net in0 out0 net'");
    return 0;
}

/* ================================================================= pass 3: check */

/* The model of statement s (token 1+nnets) as a card id or OPTINC_CARD_COUNT + cell. */
static int resolve_model(reader *r, int s, int nnets)
{
    int file = r->stmts[s].file;
    tok m = *stok(r, s, 1 + nnets);
    int c = card_id(r, file, m);
    if (c < 0) {
        int id = ht_find(&r->cell_names, tp(r, file, m), (int)m.len);
        if (id < 0) {
            char names[128] = "";
            for (int k = 0; k < OPTINC_CARD_COUNT; k++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                         k ? " " : "", optinc_cards[k].name);
            return fail_at(r, file, m.off, "unknown model '%.*s': not a card (%s) nor a "
                           ".subckt of this netlist", (int)m.len, tp(r, file, m), names);
        }
        c = OPTINC_CARD_COUNT + id;
    }
    int want = c < OPTINC_CARD_COUNT ? optinc_cards[c].n_pins
                                     : r->cells[c - OPTINC_CARD_COUNT].nports;
    if (nnets != want) {
        if (c < OPTINC_CARD_COUNT) {
            char pins[64] = "";
            for (int j = 0; j < want; j++)
                snprintf(pins + strlen(pins), sizeof pins - strlen(pins), "%s%s", j ? " " : "",
                         optinc_cards[c].pin[j]);
            return fail_at(r, file, stok(r, s, 0)->off, "card '%s' has %d pin%s (%s) but "
                           "'%.*s' gives %d net%s", optinc_cards[c].name, want,
                           want == 1 ? "" : "s", pins, (int)stok(r, s, 0)->len,
                           tp(r, file, *stok(r, s, 0)), nnets, nnets == 1 ? "" : "s");
        }
        return fail_at(r, file, stok(r, s, 0)->off, ".subckt '%.*s' has %d port%s but '%.*s' "
                       "gives %d net%s", (int)m.len, tp(r, file, m), want, want == 1 ? "" : "s",
                       (int)stok(r, s, 0)->len, tp(r, file, *stok(r, s, 0)), nnets,
                       nnets == 1 ? "" : "s");
    }
    return c;
}

/* Instances, nets and their ends in one cell. */
static int check_cell(reader *r, int ci)
{
    cell *c = &r->cells[ci];
    int cs = c->stmt, cfile = r->stmts[cs].file, added;
    htab nets = {0}, names = {0};
    int *count = NULL, *first = NULL, cap = 0, rc = -1;
    /* Sized up front: a valid cell has (ports + pins) / 2 nets. */
    size_t ends = (size_t)c->nports;
    for (int i = c->first; i < c->first + c->n; i++)
        ends += (size_t)r->insts[i].nnets;
    if (ht_reserve(r, &nets, ends / 2 + 1) || ht_reserve(r, &names, (size_t)c->n))
        goto out;
    for (int p = 0; p < c->nports; p++)
        if (ht_id(r, &nets, tp(r, cfile, *stok(r, cs, 2 + p)), (int)stok(r, cs, 2 + p)->len,
                  &added) < 0)
            goto out;
    for (int i = c->first; i < c->first + c->n; i++) {
        inst *in = &r->insts[i];
        int s = in->stmt, file = r->stmts[s].file;
        tok name = *stok(r, s, 0);
        if (ht_id(r, &names, tp(r, file, name), (int)name.len, &added) < 0)
            goto out;
        if (!added) {
            fail_at(r, file, name.off, "instance name '%.*s' is used twice in .subckt '%.*s'",
                    (int)name.len, tp(r, file, name), (int)stok(r, cs, 1)->len,
                    tp(r, cfile, *stok(r, cs, 1)));
            goto out;
        }
        if ((in->model = resolve_model(r, s, in->nnets)) < 0)
            goto out;
        if (r->npool + (size_t)in->nnets > (size_t)INT_MAX) {
            fail_run(r, "(too many pins)");
            goto out;
        }
        while (r->npool + (size_t)in->nnets >= r->cpool)
            if (grow_array(r, (void **)&r->pool, &r->cpool, sizeof *r->pool))
                goto out;
        in->pins = (int)r->npool;
        for (int j = 0; j < in->nnets; j++) {
            tok t = *stok(r, s, 1 + j);
            int id = ht_id(r, &nets, tp(r, file, t), (int)t.len, &added);
            if (id < 0)
                goto out;
            while (id >= cap) {
                int ncap = cap ? cap * 2 : 1024;
                int *nc = realloc(count, sizeof *nc * (size_t)ncap);
                int *nf = nc ? realloc(first, sizeof *nf * (size_t)ncap) : NULL;
                if (nc)
                    count = nc;
                if (!nf) {
                    fail_run(r, "reading the netlist");
                    goto out;
                }
                first = nf;
                for (int q = cap; q < ncap; q++)
                    count[q] = q < c->nports ? 1 : 0;
                cap = ncap;
            }
            if (++count[id] == 1)
                first[id] = (int)t.off;
            if (count[id] == 3) {
                fail_at(r, file, t.off, "net '%.*s' has a third end here; photonic nets are "
                        "point-to-point (two ends, or one inside a cell for a port): insert a "
                        "splitter card or rename one net", (int)t.len, tp(r, file, t));
                goto out;
            }
            r->pool[r->npool++] = id;
        }
    }
    if (cap < nets.n) {
        /* only ports and no instance touched them */
        int *nc = realloc(count, sizeof *nc * (size_t)(nets.n + 1));
        if (!nc) {
            fail_run(r, "reading the netlist");
            goto out;
        }
        count = nc;
        for (int q = cap; q < nets.n; q++)
            count[q] = q < c->nports ? 1 : 0;
    }
    c->nnets = nets.n;
    for (int id = 0; id < nets.n; id++) {
        if (id < c->nports && count[id] == 1) {
            tok p = *stok(r, cs, 2 + id);
            fail_at(r, cfile, p.off, "port '%.*s' of .subckt '%.*s' is not connected inside "
                    "it (a dangling port)", (int)p.len, tp(r, cfile, p),
                    (int)stok(r, cs, 1)->len, tp(r, cfile, *stok(r, cs, 1)));
            goto out;
        }
        if (id >= c->nports && count[id] == 1) {
            /* first[] holds an offset in the file of the cell's instances; find it. */
            for (int i = c->first; i < c->first + c->n; i++) {
                inst *in = &r->insts[i];
                for (int j = 0; j < in->nnets; j++)
                    if (r->pool[in->pins + j] == id) {
                        int file = r->stmts[in->stmt].file;
                        tok t = *stok(r, in->stmt, 1 + j);
                        fail_at(r, file, t.off, "net '%.*s' is dangling: it has one end only; "
                                "connect it to a second pin, end it in a term card, or make "
                                "it a port of the .subckt", (int)t.len, tp(r, file, t));
                        goto out;
                    }
            }
        }
    }
    rc = 0;
out:
    ht_free(&nets);
    ht_free(&names);
    free(count);
    free(first);
    return rc;
}

/* No cell may instantiate itself, directly or through others, nor nest more
 * than OPTINC_NETLIST_NEST_MAX levels deep (flattening recurses once per
 * level).  depth is the number of cells above ci on the current path; the
 * height of every finished cell is kept, so each cell is walked once.  The
 * walk also sizes each cell's flattening (what flatten() will make and copy:
 * one per card, one per cell instance plus one per parameter it copies), so
 * a hierarchy that multiplies out to billions is refused before it starts;
 * sizes saturate just past OPTINC_CARDS_CAP. */
static int check_recursion(reader *r, int ci, int depth)
{
    cell *c = &r->cells[ci];
    if (c->state == 2 && depth + c->height <= OPTINC_NETLIST_NEST_MAX)
        return 0;
    c->state = 1;
    c->height = 1;
    c->size = 0;
    for (int i = c->first; i < c->first + c->n; i++) {
        int m = r->insts[i].model - OPTINC_CARD_COUNT;
        if (m < 0) {
            c->size = c->size < OPTINC_CARDS_CAP ? c->size + 1 : OPTINC_CARDS_CAP + 1;
            continue;
        }
        int s = r->insts[i].stmt, file = r->stmts[s].file;
        tok t = *stok(r, s, 1 + r->insts[i].nnets);
        if (r->cells[m].state == 1)
            return fail_at(r, file, t.off, "recursive cell: instantiating '%.*s' here makes "
                           "'%.*s' contain itself", (int)t.len, tp(r, file, t),
                           (int)stok(r, c->stmt, 1)->len,
                           tp(r, r->stmts[c->stmt].file, *stok(r, c->stmt, 1)));
        if (depth + 2 > OPTINC_NETLIST_NEST_MAX)
            return fail_at(r, file, t.off, "cells nest more than %d levels deep here, the "
                           "reader's limit (OPTINC_NETLIST_NEST_MAX); optinc writes 3 levels, "
                           "so flatten part of the hierarchy", OPTINC_NETLIST_NEST_MAX);
        if (check_recursion(r, m, depth + 1))
            return -1;
        if (r->cells[m].height + 1 > c->height)
            c->height = r->cells[m].height + 1;
        c->size += 1 + r->cells[m].nparams + r->cells[m].size;
        if (c->size > OPTINC_CARDS_CAP)
            c->size = OPTINC_CARDS_CAP + 1;
    }
    c->state = 2;
    return 0;
}

static int check(reader *r)
{
    for (int ci = 0; ci < r->ncells; ci++)
        if (check_cell(r, ci))
            return -1;
    for (int ci = 0; ci < r->ncells; ci++)
        if (check_recursion(r, ci, 0))
            return -1;
    int s = r->top, file = r->stmts[s].file;
    int nnets = r->stmts[s].ntok - 2;
    tok k = {0, 0}, v = {0, 0};
    while (nnets > 0 && split_param(r, file, *stok(r, s, nnets + 1), &k, &v))
        nnets--;
    if (nnets + 2 != r->stmts[s].ntok)
        return fail_at(r, file, stok(r, s, nnets + 2)->off, "the top instance line takes no "
                       "parameters");
    int m = resolve_model(r, s, nnets);
    if (m < 0)
        return -1;
    if (m < OPTINC_CARD_COUNT)
        return fail_at(r, file, stok(r, s, 1 + nnets)->off, "the top instance line must "
                       "instantiate a .subckt, not the card '%s'", optinc_cards[m].name);
    const cell *top = &r->cells[m - OPTINC_CARD_COUNT];
    if (top->size > optinc_limits_get(r->lim, OPTINC_LIMIT_CARDS)) {
        char lim[160];
        tok t = *stok(r, s, 1 + nnets);
        return fail_at(r, file, t.off, "'%.*s' flattens to %s%ld cards and cell instances "
                       "(with one per parameter a cell instance copies), more than %s",
                       (int)t.len, tp(r, file, t), top->size > OPTINC_CARDS_CAP ? "over " : "",
                       top->size > OPTINC_CARDS_CAP ? OPTINC_CARDS_CAP : top->size,
                       optinc_limits_text(r->lim, OPTINC_LIMIT_CARDS, lim, sizeof lim));
    }
    for (int i = 1; i <= nnets; i++)
        for (int j = 1; j < i; j++)
            if (stok(r, s, i)->len == stok(r, s, j)->len
                && !memcmp(tp(r, file, *stok(r, s, i)), tp(r, file, *stok(r, s, j)),
                           stok(r, s, i)->len))
                return fail_at(r, file, stok(r, s, i)->off, "net '%.*s' appears twice on the "
                               "top instance line; each port needs its own net",
                               (int)stok(r, s, i)->len, tp(r, file, *stok(r, s, i)));
    r->top_cell = m - OPTINC_CARD_COUNT;
    return 0;
}

/* ================================================================= pass 4: flatten */

static int new_net(reader *r)
{
    if ((size_t)r->nnets >= r->cnets) {
        size_t cap = r->cnets;
        if (grow_array(r, (void **)&r->end0, &cap, sizeof *r->end0))
            return -1;
        int *e1 = realloc(r->end1, sizeof *e1 * cap);
        if (!e1)
            return fail_run(r, "reading the netlist");
        r->end1 = e1;
        r->cnets = cap;
    }
    r->end0[r->nnets] = r->end1[r->nnets] = INT_MIN;
    return r->nnets++;
}

static void add_end(reader *r, int net, int e)
{
    if (r->end0[net] == INT_MIN)
        r->end0[net] = e;
    else
        r->end1[net] = e;
}

/* The parameters of a card instance, resolved in scope and checked. */
static int card_params(reader *r, int s, int nnets, int kind, const scope *sc, prim *p)
{
    const optinc_card *cd = &optinc_cards[kind];
    int file = r->stmts[s].file;
    tok at[OPTINC_CARD_PARAMS_MAX];
    p->has = 0;
    for (int i = 2 + nnets; i < r->stmts[s].ntok; i++) {
        tok t = *stok(r, s, i), k = {0, 0}, v = {0, 0};
        split_param(r, file, t, &k, &v);
        int j = 0;
        while (j < cd->n_params && !teq(r, file, k, cd->param[j].key))
            j++;
        if (j == cd->n_params) {
            char list[256] = "";
            for (int q = 0; q < cd->n_params; q++)
                snprintf(list + strlen(list), sizeof list - strlen(list), " %s", cd->param[q].key);
            return fail_at(r, file, k.off, "unknown parameter '%.*s' for card '%s'; it takes:%s",
                           (int)k.len, tp(r, file, k), cd->name, cd->n_params ? list : " none");
        }
        if (p->has & (1u << j))
            return fail_at(r, file, k.off, "parameter '%s' is given twice", cd->param[j].key);
        const optinc_card_param *cp = &cd->param[j];
        double x;
        if (value_of(r, file, v, sc, &x))
            return -1;
        if (cp->type == 'i' && x != floor(x))
            return fail_at(r, file, v.off, "%s must be a whole number, not %.17g", cp->key, x);
        if (x < cp->min || x > cp->max) {
            if (cp->max == INFINITY)
                return fail_at(r, file, v.off, "%s = %.17g must be %s 0", cp->key, x,
                               cp->min > 0 ? ">" : ">=");
            return fail_at(r, file, v.off, "%s = %.17g is out of range; use %g..%g", cp->key, x,
                           cp->min, cp->max);
        }
        p->v[j] = x;
        p->has |= 1u << j;
        at[j] = v;
    }
    for (int j = 0; j < cd->n_params; j++) {
        const optinc_card_param *cp = &cd->param[j];
        if (cp->required && !(p->has & (1u << j)))
            return fail_at(r, file, stok(r, s, 0)->off, "card '%s' needs %s=", cd->name, cp->key);
        if (cp->bits >= 0 && (p->has & (1u << j))) {
            if (!(p->has & (1u << cp->bits)))
                return fail_at(r, file, at[j].off, "%s needs bits= (the driver's resolution)",
                               cp->key);
            double levels = ldexp(1.0, (int)p->v[cp->bits]);
            if (p->v[j] >= levels)
                return fail_at(r, file, at[j].off, "%s = %.0f does not fit in bits=%d: codes are "
                               "0..%.0f", cp->key, p->v[j], (int)p->v[cp->bits], levels - 1);
        }
    }
    return 0;
}

static int stk_push(reader *r, size_t n)
{
    while (r->nstk + n > r->cstk)
        if (grow_array(r, (void **)&r->stk, &r->cstk, sizeof *r->stk))
            return -1;
    r->nstk += n;
    return 0;
}

/* Flattens cell ci whose local nets map to the global nets map[]. */
static int flatten(reader *r, int ci, size_t map, int fr, const scope *sc)
{
    const cell *c = &r->cells[ci];
    for (int i = c->first; i < c->first + c->n; i++) {
        const inst *in = &r->insts[i];
        int s = in->stmt, file = r->stmts[s].file;
        if (in->model < OPTINC_CARD_COUNT) {
            if (GROW(r, r->prims, r->nprims, r->cprims))
                return -1;
            prim *p = &r->prims[r->nprims];
            memset(p, 0, sizeof *p);
            p->kind = (unsigned char)in->model;
            p->stmt = s;
            p->frame = fr;
            if (card_params(r, s, in->nnets, in->model, sc, p))
                return -1;
            for (int j = 0; j < in->nnets; j++) {
                p->pin[j] = r->stk[map + (size_t)r->pool[in->pins + j]];
                add_end(r, p->pin[j], r->nprims * 4 + j);
            }
            r->nprims++;
            continue;
        }
        const cell *d = &r->cells[in->model - OPTINC_CARD_COUNT];
        /* Child scope: the cell's defaults overridden by this instance. */
        param *ps = malloc(sizeof *ps * (size_t)(d->nparams + 1));
        if (!ps)
            return fail_run(r, "reading the netlist");
        if (d->nparams)
            memcpy(ps, r->cparams + d->param0, sizeof *ps * (size_t)d->nparams);
        for (int j = 2 + in->nnets; j < r->stmts[s].ntok; j++) {
            tok k = {0, 0}, v = {0, 0};
            split_param(r, file, *stok(r, s, j), &k, &v);
            param *q = (param *)find_param(ps, d->nparams, tp(r, file, k), (int)k.len);
            if (!q) {
                free(ps);
                return fail_at(r, file, k.off, "unknown parameter '%.*s' for .subckt '%.*s': "
                               "declare it on the .subckt line with a default", (int)k.len,
                               tp(r, file, k), (int)stok(r, d->stmt, 1)->len,
                               tp(r, r->stmts[d->stmt].file, *stok(r, d->stmt, 1)));
            }
            if (value_of(r, file, v, sc, &q->v)) {
                free(ps);
                return -1;
            }
        }
        size_t child = r->nstk;
        if (stk_push(r, (size_t)d->nnets) || GROW(r, r->frames, r->nframes, r->cframes)) {
            free(ps);
            return -1;
        }
        for (int j = 0; j < d->nports; j++)
            r->stk[child + (size_t)j] = r->stk[map + (size_t)r->pool[in->pins + j]];
        for (int j = d->nports; j < d->nnets; j++) {
            int g = new_net(r);
            if (g < 0) {
                free(ps);
                return -1;
            }
            r->stk[child + (size_t)j] = g;
        }
        r->frames[r->nframes] = (frame){s, fr};
        scope csc = {ps, d->nparams};
        int rc = flatten(r, in->model - OPTINC_CARD_COUNT, child, r->nframes++, &csc);
        free(ps);
        r->nstk = child;
        if (rc)
            return -1;
    }
    return 0;
}

/* The other end of net g, seen from end e. */
static int other_end(const reader *r, int g, int e)
{
    return r->end0[g] == e ? r->end1[g] : r->end0[g];
}

static int driver_kind(const reader *r, int e, int kind, int pin)
{
    return e >= 0 && r->prims[e >> 2].kind == kind && (e & 3) == pin && !r->prims[e >> 2].used;
}

/* Finds expanded MZIs (PS_ext -> DC_a -> PS_int -> DC_b, as --expand-mzi
 * writes them) and fuses each into one mzi card on the outer four nets. */
static int fuse_mzis(reader *r)
{
    int n = r->nprims;
    for (int a = 0; a < n; a++) {
        prim *A = &r->prims[a];
        if (A->kind != OPTINC_CARD_DC || A->used || A->v[0] != 0.5)
            continue;
        int e_ext = other_end(r, A->pin[0], a * 4 + 0);
        int e_int = other_end(r, A->pin[2], a * 4 + 2);
        int e_lo = other_end(r, A->pin[3], a * 4 + 3);
        if (!driver_kind(r, e_ext, OPTINC_CARD_PS, 1) || !driver_kind(r, e_int, OPTINC_CARD_PS, 0)
            || !driver_kind(r, e_lo, OPTINC_CARD_DC, 1))
            continue;
        int ext = e_ext >> 2, in = e_int >> 2, b = e_lo >> 2;
        int e_b0 = other_end(r, r->prims[in].pin[1], in * 4 + 1);
        if (e_b0 != b * 4 + 0 || r->prims[b].v[0] != 0.5)
            continue;
        prim *P = &r->prims[ext], *Q = &r->prims[in];
        if ((P->has & (1u << PS_BITS)) && (Q->has & (1u << PS_BITS)) && P->v[PS_BITS] != Q->v[PS_BITS])
            return fail_at(r, r->stmts[Q->stmt].file, stok(r, Q->stmt, 0)->off, "the two "
                           "phase shifters of one expanded MZI have different bits");
        if (GROW(r, r->prims, r->nprims, r->cprims))
            return -1;
        A = &r->prims[a];
        P = &r->prims[ext];
        Q = &r->prims[in];
        prim *M = &r->prims[r->nprims];
        memset(M, 0, sizeof *M);
        M->kind = OPTINC_CARD_MZI;
        M->stmt = P->stmt;
        M->frame = P->frame;
        /* theta is the internal shifter, phi the external one. */
        static const int from[4][2] = {{PS_PHASE, MZI_THETA}, {PS_CODE, MZI_THETA_CODE},
                                       {PS_BITS, MZI_BITS}, {PS_TARGET, MZI_THETA_TARGET}};
        for (int k = 0; k < 4; k++) {
            if (Q->has & (1u << from[k][0])) {
                M->v[from[k][1]] = Q->v[from[k][0]];
                M->has |= 1u << from[k][1];
            }
            int to = from[k][1] == MZI_THETA ? MZI_PHI : from[k][1] == MZI_THETA_CODE ? MZI_PHI_CODE
                     : from[k][1] == MZI_THETA_TARGET ? MZI_PHI_TARGET : MZI_BITS;
            if (P->has & (1u << from[k][0])) {
                M->v[to] = P->v[from[k][0]];
                M->has |= 1u << to;
            }
        }
        int outer[4] = {P->pin[0], A->pin[1], r->prims[b].pin[2], r->prims[b].pin[3]};
        int old[4] = {ext * 4 + 0, a * 4 + 1, b * 4 + 2, b * 4 + 3};
        for (int k = 0; k < 4; k++) {
            M->pin[k] = outer[k];
            if (r->end0[outer[k]] == old[k])
                r->end0[outer[k]] = r->nprims * 4 + k;
            else
                r->end1[outer[k]] = r->nprims * 4 + k;
        }
        A->used = P->used = Q->used = r->prims[b].used = 1;
        r->nprims++;
    }
    return 0;
}

/* ================================================================= pass 5: trace */

/* "X_L1__MZ_L1_V_c0_r0": the flattened name of primitive p. */
static void prim_name(const reader *r, const prim *p, char *buf, size_t size)
{
    int chain[64], n = 0;
    for (int f = p->frame; f >= 0 && n < 64; f = r->frames[f].parent)
        chain[n++] = r->frames[f].stmt;
    size_t len = 0;
    buf[0] = '\0';
    for (int i = n - 1; i >= -1 && len < size; i--) {
        int s = i >= 0 ? chain[i] : p->stmt;
        tok t = *stok(r, s, 0);
        len += (size_t)snprintf(buf + len, size - len, "%s%.*s", i == n - 1 ? "" : "__",
                                (int)t.len, tp(r, r->stmts[s].file, t));
    }
}

static int fail_prim(reader *r, int pi, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Fails at primitive pi's card line, naming its flattened instance. */
static int fail_prim(reader *r, int pi, const char *fmt, ...)
{
    char prefix[340], name[300];
    const prim *p = &r->prims[pi];
    prim_name(r, p, name, sizeof name);
    snprintf(prefix, sizeof prefix, "%s %s: ", optinc_cards[p->kind].name, name);
    va_list ap;
    va_start(ap, fmt);
    vfail_at(r, r->stmts[p->stmt].file, stok(r, p->stmt, 0)->off, prefix, fmt, ap);
    va_end(ap);
    return -1;
}

typedef struct layer_meta {
    int meta;               /* the `*! layer.NAME` line */
    optinc_layer *L;
} layer_meta;

typedef struct tracer {
    reader *r;
    int n;                  /* modes on the frontier */
    int *net, *from;        /* per mode: net (-1 = unlit), the end it was reached from */
    int *last;              /* per mode: next free column of the mesh being traced */
    int *pm, *pmode, *pcol, np, cp;   /* MZIs placed in the current mesh */
    char where[128];        /* "mesh V of layer L1" */
    const struct layer_meta *lm;
} tracer;

static int meta_fail(reader *r, const layer_meta *lm, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int meta_fail(reader *r, const layer_meta *lm, const char *fmt, ...)
{
    const meta *m = &r->metas[lm->meta];
    va_list ap;
    va_start(ap, fmt);
    vfail_at(r, m->file, m->key.off, "", fmt, ap);
    va_end(ap);
    return -1;
}

static int consumer(const tracer *t, int m)
{
    return t->net[m] < 0 ? INT_MIN : other_end(t->r, t->net[m], t->from[m]);
}

static int place(tracer *t, int p, int m)
{
    reader *r = t->r;
    if (t->np >= t->cp) {
        int cp = t->cp ? t->cp * 2 : 256;
        int *a = realloc(t->pm, sizeof *a * (size_t)cp), *b = a ? realloc(t->pmode, sizeof *b * (size_t)cp) : NULL;
        int *c = b ? realloc(t->pcol, sizeof *c * (size_t)cp) : NULL;
        if (a)
            t->pm = a;
        if (b)
            t->pmode = b;
        if (!c)
            return fail_run(r, "reading the netlist");
        t->pcol = c;
        t->cp = cp;
    }
    int col = t->last[m] > t->last[m + 1] ? t->last[m] : t->last[m + 1];
    t->last[m] = t->last[m + 1] = col + 1;
    t->pm[t->np] = p;
    t->pmode[t->np] = m;
    t->pcol[t->np++] = col;
    prim *q = &r->prims[p];
    q->used = 1;
    for (int j = 0; j < 2; j++) {
        t->net[m + j] = q->pin[2 + j];
        t->from[m + j] = p * 4 + 2 + j;
    }
    return 0;
}

static int pull(tracer *t, int q, int m);

/* Is input pin `pin` of MZI p on mode `mode` of the frontier?  An unlit mode
 * accepts a term (the waveguide starts there) or an unlit MZI's output,
 * which is then placed first.  1 yes, 0 not (yet), -1 error. */
static int input_ok(tracer *t, int p, int pin, int mode)
{
    reader *r = t->r;
    if (mode < 0 || mode >= t->n)
        return 0;
    int g = r->prims[p].pin[pin];
    if (t->net[mode] >= 0)
        return t->net[mode] == g;
    int e = other_end(r, g, p * 4 + pin);
    if (e < 0)
        return 0;
    prim *d = &r->prims[e >> 2];
    if (d->used)
        return 0;
    if (d->kind == OPTINC_CARD_TERM) {
        d->used = 1;
        t->net[mode] = g;
        t->from[mode] = e;
        return 1;
    }
    if (d->kind == OPTINC_CARD_MZI && (e & 3) >= 2) {
        int rc = pull(t, e >> 2, mode - ((e & 3) - 2));
        return rc == 1 ? t->net[mode] == g : rc;
    }
    return 0;
}

static int pull(tracer *t, int q, int m)
{
    reader *r = t->r;
    if (m < 0 || m + 1 >= t->n)
        return 0;
    if (r->prims[q].busy)
        return fail_prim(r, q, "is part of a loop of unlit MZIs; light must flow from the "
                         "inputs to the outputs");
    r->prims[q].busy = 1;
    int a = input_ok(t, q, 0, m), b = a == 1 ? input_ok(t, q, 1, m + 1) : a;
    r->prims[q].busy = 0;
    if (b != 1)
        return b;
    return place(t, q, m) ? -1 : 1;
}

typedef struct placed { long long key; int i; } placed;

static int cmp_placed(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static void set_phase(const prim *p, int rad, int code, int target, optinc_phase *ph)
{
    ph->rad = p->v[rad];
    ph->target_rad = p->has & (1u << target) ? p->v[target] : ph->rad;
    ph->code = p->has & (1u << code) ? (int)p->v[code] : -1;
}

/* A code's bits must be the layer's. */
static int check_bits(reader *r, int pi, int code, int bits, int want, const char *what)
{
    const prim *p = &r->prims[pi];
    if (!(p->has & (1u << code)) || (int)p->v[bits] == want)
        return 0;
    return fail_prim(r, pi, "bits=%d differs from the layer's %s bits=%d (its *! header line)",
                     (int)p->v[bits], what, want);
}

static int trace_mesh(tracer *t, optinc_layer *L, optinc_stage *s)
{
    reader *r = t->r;
    int n = s->modes_in;
    t->n = n;
    t->np = 0;
    memset(t->last, 0, sizeof *t->last * (size_t)n);
    for (int progress = 1; progress;) {
        progress = 0;
        for (int m = 0; m + 1 < n; m++) {
            int p = -1, e = consumer(t, m);
            if (driver_kind(r, e, OPTINC_CARD_MZI, 0))
                p = e >> 2;
            else if (driver_kind(r, (e = consumer(t, m + 1)), OPTINC_CARD_MZI, 1))
                p = e >> 2;
            if (p < 0)
                continue;
            int a = input_ok(t, p, 0, m), b = a == 1 ? input_ok(t, p, 1, m + 1) : a;
            if (b < 0)
                return -1;
            if (b == 1) {
                if (place(t, p, m))
                    return -1;
                progress = 1;
            }
        }
    }
    if (t->np > n * (n - 1) / 2)
        return fail_prim(r, t->pm[t->np - 1], "%s has more than %d MZIs, the most an %d-mode "
                         "mesh has", t->where, n * (n - 1) / 2, n);
    s->mesh = optinc_mesh_new(L->mesh_kind, n);
    if (!s->mesh)
        return fail_run(r, "rebuilding a mesh");
    optinc_mesh *M = s->mesh;
    M->n_mzi = t->np;
    M->n_columns = 0;
    /* Column-major, then by mode: the compiler's propagation order. */
    placed *key = malloc(sizeof *key * (size_t)(t->np + 1));
    if (!key)
        return fail_run(r, "rebuilding a mesh");
    for (int i = 0; i < t->np; i++)
        key[i] = (placed){(long long)t->pcol[i] * n + t->pmode[i], i};
    qsort(key, (size_t)t->np, sizeof *key, cmp_placed);
    for (int i = 0; i < t->np; i++) {
        int k = key[i].i;
        optinc_mzi *z = &M->mzi[i];
        const prim *p = &r->prims[t->pm[k]];
        z->mode = t->pmode[k];
        z->column = t->pcol[k];
        if (z->column + 1 > M->n_columns)
            M->n_columns = z->column + 1;
        set_phase(p, MZI_THETA, MZI_THETA_CODE, MZI_THETA_TARGET, &z->theta);
        set_phase(p, MZI_PHI, MZI_PHI_CODE, MZI_PHI_TARGET, &z->phi);
        if (check_bits(r, t->pm[k], MZI_THETA_CODE, MZI_BITS, L->components.phase_shifter.bits,
                       "phase_shifter")
            || check_bits(r, t->pm[k], MZI_PHI_CODE, MZI_BITS, L->components.phase_shifter.bits,
                          "phase_shifter")) {
            free(key);
            return -1;
        }
    }
    free(key);
    /* The output phase screen: one ps per mode. */
    for (int m = 0; m < n; m++) {
        if (t->net[m] < 0)
            return meta_fail(r, t->lm, "mode %d of %s is unlit: no MZI joins it to a lit "
                             "mode", m, t->where);
        int e = consumer(t, m);
        if (!driver_kind(r, e, OPTINC_CARD_PS, 0)) {
            if (e >= 0 && !r->prims[e >> 2].used && r->prims[e >> 2].kind == OPTINC_CARD_MZI)
                return fail_prim(r, e >> 2, "cannot be placed in %s: its in0 and in1 must "
                                 "carry two adjacent modes m and m+1 of the mesh", t->where);
            if (e >= 0)
                return fail_prim(r, e >> 2, "found where %s needs the output phase shifter "
                                 "(ps) of mode %d; every mesh ends with one ps per mode",
                                 t->where, m);
            return meta_fail(r, t->lm, "mode %d of %s reaches a port without passing the "
                             "mesh's output phase shifter (ps)", m, t->where);
        }
        int q = e >> 2;
        prim *p = &r->prims[q];
        set_phase(p, PS_PHASE, PS_CODE, PS_TARGET, &M->screen[m]);
        if (check_bits(r, q, PS_CODE, PS_BITS, L->components.phase_shifter.bits, "phase_shifter"))
            return -1;
        p->used = 1;
        t->net[m] = p->pin[1];
        t->from[m] = q * 4 + 1;
    }
    return 0;
}

static int trace_att(tracer *t, optinc_layer *L, optinc_stage *s)
{
    reader *r = t->r;
    s->att = calloc((size_t)s->n_att + 1, sizeof *s->att);
    if (!s->att)
        return fail_run(r, "rebuilding an attenuator column");
    for (int k = 0; k < s->modes_in; k++) {
        int e = consumer(t, k), want = k < s->n_att ? OPTINC_CARD_ATT : OPTINC_CARD_TERM;
        if (t->net[k] < 0)
            return meta_fail(r, t->lm, "mode %d is unlit at the input of %s", k, t->where);
        if (!driver_kind(r, e, want, 0)) {
            if (e >= 0)
                return fail_prim(r, e >> 2, "found where %s needs %s on mode %d", t->where,
                                 want == OPTINC_CARD_ATT ? "an att card" : "a term card (an input "
                                 "without a channel)", k);
            return meta_fail(r, t->lm, "mode %d of %s reaches a port without its %s card", k,
                             t->where, want == OPTINC_CARD_ATT ? "att" : "term");
        }
        int q = e >> 2;
        prim *p = &r->prims[q];
        p->used = 1;
        if (k >= s->n_att)
            continue;
        optinc_att *a = &s->att[k];
        a->att_dB = p->v[ATT_DB];
        a->t = pow(10.0, -a->att_dB / 20.0);
        a->t_target = p->has & (1u << ATT_T_TARGET) ? p->v[ATT_T_TARGET] : a->t;
        a->code = p->has & (1u << ATT_CODE) ? (int)p->v[ATT_CODE] : -1;
        if (check_bits(r, q, ATT_CODE, ATT_BITS, L->components.attenuator.bits, "attenuator"))
            return -1;
        t->net[k] = p->pin[1];
        t->from[k] = q * 4 + 1;
    }
    for (int k = s->n_att; k < s->modes_out; k++)
        t->net[k] = -1;     /* unlit: starts at a term the next stage finds */
    t->n = s->modes_out;
    return 0;
}

/* ================================================================= header */

/* The key=value tokens of a header line's REST, into r->toks (appended;
 * the caller drops them again). */
static int meta_tokens(reader *r, const meta *m, size_t *first, size_t *n)
{
    *first = r->ntoks;
    long k = tokenize(r, m->file, m->rest.off, m->rest.off + m->rest.len);
    if (k < 0)
        return -1;
    *n = (size_t)k;
    for (size_t i = *first; i < r->ntoks; i++) {
        tok kk = {0, 0}, v = {0, 0};
        if (!split_param(r, m->file, r->toks[i], &kk, &v))
            return fail_at(r, m->file, r->toks[i].off, "expected key=value in this *! header "
                           "line, found '%.*s'", (int)(r->toks[i].len > 60 ? 60 : r->toks[i].len),
                           tp(r, m->file, r->toks[i]));
    }
    return 0;
}

/* The index of v in a NULL-terminated word list (spec.h). */
static int word_of(reader *r, int file, tok v, const char *const *names, const char *what)
{
    for (int i = 0; names[i]; i++)
        if (teq(r, file, v, names[i]))
            return i;
    char list[128] = "";
    for (int i = 0; names[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    return fail_at(r, file, v.off, "%s '%.*s' is not one of %s", what, (int)v.len,
                   tp(r, file, v), list);
}

static int number_in(reader *r, int file, tok v, double lo, double hi, const char *key, double *out)
{
    if (value_of(r, file, v, NULL, out))
        return -1;
    if (*out < lo || *out > hi)
        return fail_at(r, file, v.off, "%s = %.17g is out of range (%g..%g)", key, *out, lo, hi);
    return 0;
}

static int unknown_key(reader *r, int file, tok k, const char *line, const char *keys)
{
    return fail_at(r, file, k.off, "unknown key '%.*s' in the %s header line; it takes: %s",
                   (int)k.len, tp(r, file, k), line, keys);
}

/* *! layer.NAME = rows=.. cols=.. gain=.. mesh=.. attenuators=.. activation=..
 *                 approximation_error=.. attenuators_capped=.. */
static int meta_layer(reader *r, const meta *m, optinc_layer *L)
{
    size_t first, n;
    if (meta_tokens(r, m, &first, &n))
        return -1;
    int file = m->file, seen = 0;
    for (size_t i = first; i < first + n; i++) {
        tok k = {0, 0}, v = {0, 0};
        split_param(r, file, r->toks[i], &k, &v);
        long long x;
        double d;
        int w;
        if (teq(r, file, k, "rows") || teq(r, file, k, "cols")) {
            if (int_value(r, file, v, 1, INT_MAX, &x))
                return -1;
            if (x > optinc_limits_get(r->lim, OPTINC_LIMIT_MODES)) {
                char lim[160];
                return fail_at(r, file, v.off, "layer '%s' has %lld %s, more modes than %s",
                               L->name, x, teq(r, file, k, "rows") ? "rows" : "columns",
                               optinc_limits_text(r->lim, OPTINC_LIMIT_MODES, lim, sizeof lim));
            }
            *(teq(r, file, k, "rows") ? &L->rows : &L->cols) = (int)x;
            seen |= teq(r, file, k, "rows") ? 1 : 2;
        } else if (teq(r, file, k, "gain")) {
            if (number_in(r, file, v, 1e-300, INFINITY, "gain", &L->gain))
                return -1;
            seen |= 4;
        } else if (teq(r, file, k, "mesh")) {
            if ((w = word_of(r, file, v, optinc_mesh_kind_names, "mesh")) < 0)
                return -1;
            L->mesh_kind = (optinc_mesh_kind)w;
        } else if (teq(r, file, k, "attenuators")) {
            if ((w = word_of(r, file, v, optinc_att_position_names, "attenuators")) < 0)
                return -1;
            L->attenuators = (optinc_att_position)w;
        } else if (teq(r, file, k, "activation")) {
            if ((w = word_of(r, file, v, optinc_activation_names, "activation")) < 0)
                return -1;
            L->activation = (optinc_activation)w;
        } else if (teq(r, file, k, "approximation_error")) {
            if (number_in(r, file, v, 0, INFINITY, "approximation_error", &d))
                return -1;
            L->approximation_error = d;
        } else if (teq(r, file, k, "attenuators_capped")) {
            if (int_value(r, file, v, 0, INT_MAX, &x))
                return -1;
            L->n_warnings_capped = (int)x;
        } else {
            return unknown_key(r, file, k, "layer", "rows cols gain mesh attenuators activation "
                               "approximation_error attenuators_capped");
        }
    }
    r->ntoks = first;
    if (seen != 7)
        return fail_at(r, file, m->key.off, "the header line of layer '%s' needs rows=, cols= "
                       "and gain=", L->name);
    if (L->attenuators != OPTINC_ATT_MIDDLE && L->rows != L->cols)
        return fail_at(r, file, m->key.off, "layer '%s' is %dx%d but attenuators=%s needs a "
                       "square layer", L->name, L->rows, L->cols,
                       optinc_att_position_names[L->attenuators]);
    return 0;
}

/* *! layer.NAME.SECTION = key=value ... (optinc_netlist_fields) */
static int meta_section(reader *r, const meta *m, tok section, optinc_layer *L)
{
    int file = m->file, any = 0;
    char keys[256] = "";
    for (int f = 0; f < optinc_netlist_n_fields; f++)
        if (teq(r, file, section, optinc_netlist_fields[f].section)) {
            any = 1;
            snprintf(keys + strlen(keys), sizeof keys - strlen(keys), " %s",
                     optinc_netlist_fields[f].key);
        }
    if (!any)
        return fail_at(r, file, section.off, "unknown device section '%.*s'; the sections are "
                       "mzi, phase_shifter, attenuator, waveguide, crossing, detector",
                       (int)section.len, tp(r, file, section));
    size_t first, n;
    if (meta_tokens(r, m, &first, &n))
        return -1;
    for (size_t i = first; i < first + n; i++) {
        tok k = {0, 0}, v = {0, 0};
        split_param(r, file, r->toks[i], &k, &v);
        int f = 0;
        while (f < optinc_netlist_n_fields
               && !(teq(r, file, section, optinc_netlist_fields[f].section)
                    && teq(r, file, k, optinc_netlist_fields[f].key)))
            f++;
        if (f == optinc_netlist_n_fields)
            return unknown_key(r, file, k, "device", keys + 1);
        const optinc_netlist_field *fd = &optinc_netlist_fields[f];
        char *at = (char *)&L->components + fd->offset;
        if (fd->type == 'i') {
            long long x;
            if (int_value(r, file, v, (long long)fd->min, (long long)fd->max, &x))
                return -1;
            *(int *)at = (int)x;
        } else if (number_in(r, file, v, fd->min, fd->max, fd->key, (double *)at)) {
            return -1;
        }
    }
    r->ntoks = first;
    return 0;
}

/* *! spec = path="..." sha256="..."   and   *! circuit = seed=.. wavelength_um=.. */
static int meta_circuit(reader *r, const meta *m, int is_spec, optinc_circuit *c)
{
    size_t first, n;
    if (meta_tokens(r, m, &first, &n))
        return -1;
    int file = m->file;
    for (size_t i = first; i < first + n; i++) {
        tok k = {0, 0}, v = {0, 0};
        split_param(r, file, r->toks[i], &k, &v);
        char hex[80];
        if (is_spec && teq(r, file, k, "path")) {
            if (unquote(r, file, v, c->spec_path, sizeof c->spec_path, "path"))
                return -1;
        } else if (is_spec && teq(r, file, k, "sha256")) {
            if (unquote(r, file, v, hex, sizeof hex, "sha256"))
                return -1;
            for (int b = 0; b < 32; b++) {
                unsigned x;
                if (strlen(hex) != 64 || sscanf(hex + 2 * b, "%2x", &x) != 1
                    || !strchr("0123456789abcdef", hex[2 * b])
                    || !strchr("0123456789abcdef", hex[2 * b + 1]))
                    return fail_at(r, file, v.off, "sha256 must be 64 lowercase hex digits");
                c->spec_sha256[b] = (uint8_t)x;
            }
        } else if (!is_spec && teq(r, file, k, "seed")) {
            const char *p = tp(r, file, v);
            char tmp[32];
            if (!v.len || v.len > 20 || p[0] < '0' || p[0] > '9')
                return fail_at(r, file, v.off, "seed must be a whole number 0..2^64-1");
            memcpy(tmp, p, v.len);
            tmp[v.len] = '\0';
            char *end;
            errno = 0;
            unsigned long long x = strtoull(tmp, &end, 10);
            if (errno || *end)
                return fail_at(r, file, v.off, "seed must be a whole number 0..2^64-1");
            c->seed = x;
        } else if (!is_spec && teq(r, file, k, "wavelength_um")) {
            if (number_in(r, file, v, 0, INFINITY, "wavelength_um", &c->wavelength_um))
                return -1;
        } else {
            return unknown_key(r, file, k, is_spec ? "spec" : "circuit",
                               is_spec ? "path sha256" : "seed wavelength_um");
        }
    }
    r->ntoks = first;
    return 0;
}

/* Reads every known `*! KEY` line into c: layers in the order of their
 * `*! layer.NAME` lines, then their device sections. */
static int read_header(reader *r, optinc_circuit *c, layer_meta *lm)
{
    int nl = 0, spec = -1, circ = -1;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < r->nmetas; i++) {
            const meta *m = &r->metas[i];
            const char *k = tp(r, m->file, m->key);
            int klen = (int)m->key.len;
            if (pass == 0 && (teq(r, m->file, m->key, "spec") || teq(r, m->file, m->key, "circuit"))) {
                int *seen = k[0] == 's' ? &spec : &circ;
                if (*seen >= 0)
                    return fail_at(r, m->file, m->key.off, "a second '*! %.*s' header line",
                                   klen, k);
                *seen = i;
                if (meta_circuit(r, m, k[0] == 's', c))
                    return -1;
                continue;
            }
            if (klen < 7 || strncmp(k, "layer.", 6))
                continue;
            const char *dot = memchr(k + 6, '.', (size_t)klen - 6);
            tok name = {m->key.off + 6, (uint32_t)((dot ? dot - k : klen) - 6)};
            if (pass == 0 && !dot) {
                if (need_name(r, m->file, name, "layer"))
                    return -1;
                if (name.len >= OPTINC_NAME_MAX)
                    return fail_at(r, m->file, name.off, "layer name longer than %d characters",
                                   OPTINC_NAME_MAX - 1);
                for (int j = 0; j < nl; j++)
                    if (!strncmp(lm[j].L->name, k + 6, name.len) && !lm[j].L->name[name.len])
                        return fail_at(r, m->file, name.off, "a second header line for layer "
                                       "'%.*s'", (int)name.len, k + 6);
                optinc_layer *L = &c->layers[nl];
                memcpy(L->name, k + 6, name.len);
                L->name[name.len] = '\0';
                optinc_components_defaults(&L->components);
                L->reconstruction_error = -1;
                lm[nl] = (layer_meta){i, L};
                if (meta_layer(r, m, L))
                    return -1;
                nl++;
            } else if (pass == 1 && dot) {
                int j = 0;
                while (j < nl && !(!strncmp(lm[j].L->name, k + 6, name.len)
                                   && !lm[j].L->name[name.len]))
                    j++;
                if (j == nl)
                    return fail_at(r, m->file, name.off, "device section for layer '%.*s', "
                                   "which has no '*! layer.%.*s = ...' line", (int)name.len,
                                   k + 6, (int)name.len, k + 6);
                tok section = {name.off + name.len + 1, m->key.len - 7 - name.len};
                if (meta_section(r, m, section, lm[j].L))
                    return -1;
            }
        }
    return 0;
}

/* ================================================================= build */

static int top_ports(reader *r)
{
    const cell *c = &r->cells[r->top_cell];
    int file = r->stmts[c->stmt].file;
    r->nin = r->nout = 0;
    for (int p = 0; p < c->nports; p++) {
        tok t = *stok(r, c->stmt, 2 + p);
        char in[32], out[32];
        snprintf(in, sizeof in, "in%d", r->nin);
        snprintf(out, sizeof out, "out%d", r->nout);
        if (!r->nout && teq(r, file, t, in))
            r->nin++;
        else if (teq(r, file, t, out))
            r->nout++;
        else
            return fail_at(r, file, t.off, "port '%.*s' of the top cell: its ports must be in0 "
                           "in1 ... then out0 out1 ..., in this order (expected '%s')",
                           (int)t.len, tp(r, file, t), r->nout ? out : r->nin ? "in.. or out0"
                           : in);
    }
    if (!r->nin || !r->nout)
        return fail_at(r, file, stok(r, c->stmt, 1)->off, "the top cell needs input ports in0.. "
                       "and output ports out0..");
    return 0;
}

/* Flattens the top cell: its ports are global nets 0..P-1. */
static int flatten_top(reader *r)
{
    const cell *c = &r->cells[r->top_cell];
    if (stk_push(r, (size_t)c->nnets))
        return -1;
    for (int j = 0; j < c->nnets; j++) {
        int g = new_net(r);
        if (g < 0)
            return -1;
        r->stk[j] = g;
        if (j < c->nports)
            r->end0[g] = -(1 + j);
    }
    scope sc = {c->nparams ? r->cparams + c->param0 : NULL, c->nparams};
    if (flatten(r, r->top_cell, 0, -1, &sc))
        return -1;
    return fuse_mzis(r);
}

static int trace(reader *r, optinc_circuit *c, layer_meta *lm)
{
    int widest = r->nin > r->nout ? r->nin : r->nout;
    for (int i = 0; i < c->n_layers; i++) {
        widest = c->layers[i].rows > widest ? c->layers[i].rows : widest;
        widest = c->layers[i].cols > widest ? c->layers[i].cols : widest;
    }
    tracer t = {.r = r, .n = r->nin};
    t.net = malloc(sizeof *t.net * (size_t)widest);
    t.from = malloc(sizeof *t.from * (size_t)widest);
    t.last = malloc(sizeof *t.last * (size_t)widest);
    int rc = -1;
    if (!t.net || !t.from || !t.last) {
        fail_run(r, "tracing the netlist");
        goto out;
    }
    for (int k = 0; k < r->nin; k++) {
        t.net[k] = k;
        t.from[k] = -(1 + k);
    }
    for (int i = 0; i < c->n_layers; i++) {
        optinc_layer *L = &c->layers[i];
        t.lm = &lm[i];
        if (L->cols != t.n) {
            meta_fail(r, &lm[i], "layer '%s' has cols=%d but %d modes reach it (%s)", L->name,
                      L->cols, t.n, i ? "the rows of the layer before" : "the top cell's inputs");
            goto out;
        }
        L->n_stages = optinc_netlist_stage_plan(L->attenuators, L->rows, L->cols, L->stage);
        for (int s = 0; s < L->n_stages; s++) {
            optinc_stage *st = &L->stage[s];
            snprintf(t.where, sizeof t.where, "%s %c of layer %s",
                     st->kind == OPTINC_STAGE_MESH ? "mesh" : "attenuator column", st->tag,
                     L->name);
            if (st->kind == OPTINC_STAGE_MESH ? trace_mesh(&t, L, st) : trace_att(&t, L, st))
                goto out;
        }
    }
    if (t.n != r->nout) {
        meta_fail(r, &lm[c->n_layers - 1], "the last layer gives %d modes but the top cell has "
                  "%d outputs", t.n, r->nout);
        goto out;
    }
    for (int k = 0; k < r->nout; k++) {
        int port = -(1 + r->nin + k);
        if (t.net[k] < 0) {
            int e = other_end(r, r->nin + k, port);
            if (!driver_kind(r, e, OPTINC_CARD_TERM, 0)) {
                meta_fail(r, &lm[c->n_layers - 1], "output out%d is unlit but not started by a "
                          "term card", k);
                goto out;
            }
            r->prims[e >> 2].used = 1;
        } else if (consumer(&t, k) != port) {
            int e = consumer(&t, k);
            if (e >= 0)
                fail_prim(r, e >> 2, "is past the last stage of the last layer; mode %d should "
                          "reach the top cell's port out%d here", k, k);
            else
                meta_fail(r, &lm[c->n_layers - 1], "mode %d of the last layer does not reach "
                          "port out%d", k, k);
            goto out;
        }
    }
    for (int p = 0; p < r->nprims; p++)
        if (!r->prims[p].used) {
            fail_prim(r, p, "is not on the light's path through the layers the header lists; "
                      "every card must belong to a stage");
            goto out;
        }
    rc = 0;
out:
    free(t.net);
    free(t.from);
    free(t.last);
    free(t.pm);
    free(t.pmode);
    free(t.pcol);
    return rc;
}

static optinc_status build(reader *r, optinc_circuit **out)
{
    const cell *top = &r->cells[r->top_cell];
    int file = r->stmts[top->stmt].file;
    tok name = *stok(r, top->stmt, 1);
    int nl = 0, nsect = 0;
    for (int i = 0; i < r->nmetas; i++) {
        const meta *m = &r->metas[i];
        if (m->key.len > 6 && !strncmp(tp(r, m->file, m->key), "layer.", 6)) {
            if (memchr(tp(r, m->file, m->key) + 6, '.', m->key.len - 6))
                nsect++;
            else
                nl++;
        }
    }
    if (!nl) {
        fail_at(r, 0, 0, "no '*! layer.NAME = rows=.. cols=.. gain=..' header lines: optinc "
                "rebuilds a circuit layer by layer from them (see optinc-netlist(5))");
        return r->st;
    }
    if (nl > OPTINC_LAYERS_MAX || nsect > 8 * OPTINC_LAYERS_MAX) {
        fail_at(r, 0, 0, "more than %d layers (or %d device section lines), the reader's "
                "limit (OPTINC_LAYERS_MAX); split the network over several netlists",
                OPTINC_LAYERS_MAX, 8 * OPTINC_LAYERS_MAX);
        return r->st;
    }
    if (name.len >= OPTINC_NAME_MAX) {
        fail_at(r, file, name.off, "top cell name longer than %d characters", OPTINC_NAME_MAX - 1);
        return r->st;
    }
    char cname[OPTINC_NAME_MAX];
    snprintf(cname, sizeof cname, "%.*s", (int)name.len, tp(r, file, name));
    optinc_circuit *c = optinc_circuit_new(cname, nl);
    layer_meta *lm = calloc((size_t)nl, sizeof *lm);
    if (!c || !lm) {
        optinc_circuit_free(c);
        free(lm);
        fail_run(r, "rebuilding the circuit");
        return r->st;
    }
    c->seed = 1;
    c->wavelength_um = 1.55;
    if (read_header(r, c, lm) || top_ports(r) || flatten_top(r) || trace(r, c, lm)) {
        free(lm);
        optinc_circuit_free(c);
        return r->st;
    }
    free(lm);
    *out = c;
    return OPTINC_OK;
}

/* ================================================================= entry */

static void reader_free(reader *r)
{
    for (int i = 0; i < r->nfiles; i++) {
        free(r->files[i].path);
        free(r->files[i].real);
        free(r->files[i].buf);
    }
    free(r->files);
    free(r->toks);
    free(r->stmts);
    free(r->metas);
    free(r->cells);
    ht_free(&r->cell_names);
    free(r->insts);
    free(r->pool);
    free(r->cparams);
    free(r->globals);
    free(r->prims);
    free(r->frames);
    free(r->end0);
    free(r->end1);
    free(r->stk);
}

optinc_status optinc_netlist_read(const char *path, const optinc_read_opts *opts,
                                  optinc_circuit **out, optinc_error *err)
{
    reader r = {.err = err, .lim = optinc_read_limits(opts), .top = -1};
    *out = NULL;
    optinc_status st;
    if (load_source(&r, path, -1, (tok){0, 0}) < 0 || lex_file(&r, 0, 0) || parse(&r)
        || check(&r))
        st = r.st;
    else
        st = build(&r, out);
    reader_free(&r);
    return st;
}

optinc_status optinc_circuit_load(const char *path, const optinc_read_opts *opts,
                                  optinc_circuit **out, optinc_error *err)
{
    size_t n = strlen(path);
    if ((n > 5 && !strcmp(path + n - 5, ".yaml")) || (n > 4 && !strcmp(path + n - 4, ".yml"))) {
        optinc_spec *spec = NULL;
        optinc_status st = optinc_spec_load(path, opts, &spec, err);
        if (!st)
            st = optinc_compile(spec, out, err);
        optinc_spec_free(spec);
        return st;
    }
    return optinc_netlist_read(path, opts, out, err);
}

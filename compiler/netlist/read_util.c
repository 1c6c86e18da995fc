/*
 * read_util.c - what every pass of the netlist reader uses (read.h): the
 * first error with the FILE:LINE:COL of its token, growing arrays, tokens,
 * values and the table of names.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "compiler/core/bigmem.h"
#include "compiler/core/freeall.h"
#include "compiler/core/numtext.h"
#include "compiler/netlist/read.h"

/* ------------------------------------------------------------------ errors */

void nl_position(const reader *r, int file, uint32_t off, int *line, int *col)
{
    optinc_text_position(&r->files[file].in, off, line, col);
}

/* 1 when a line of in shows a netlist: a '*' comment or header, or a
 * statement of PNL's (its first word one of .subckt, .ends, .param,
 * .include, .end, in any case). */
static int shows_netlist(const optinc_input *in)
{
    static const char *const dot[] = {".subckt", ".ends", ".param", ".include", ".end"};
    optinc_lines lines;
    optinc_line l;
    optinc_error scratch;
    if (optinc_lines_init(&lines, in, "netlist", &scratch))
        return 0;
    while (optinc_lines_next(&lines, &l)) {
        if (l.len && l.s[0] == '*')
            return 1;
        size_t w = 0;
        while (w < l.len && !nl_blank(l.s[w]))
            w++;
        for (size_t k = 0; l.len && l.s[0] == '.' && k < sizeof dot / sizeof *dot; k++)
            if (w == strlen(dot[k]) && !strncasecmp(l.s, dot[k], w))
                return 1;
    }
    return 0;
}

/* The message of an error in an included file that shows no line of a
 * netlist: where it is, and no byte of it.  Such a file is most likely one
 * the .include should not have named (a password file, a key), and the
 * messages of the reader quote the tokens they are about, so a netlist
 * could otherwise print the lines of any file it can name. */
static void unquoted(const reader *r, int file, char *msg, size_t size)
{
    const source *f = &r->files[file];
    int line, col;
    nl_position(r, f->parent, f->at, &line, &col);
    snprintf(msg, size, "this included file holds no line of a netlist (a '*' comment or a "
             ".subckt, .ends, .param, .include or .end statement), so its text is not shown; "
             "check that the .include at %s:%d:%d names a netlist", r->files[f->parent].in.name,
             line, col);
}

int nl_vfail_at(reader *r, int file, uint32_t off, const char *prefix, const char *fmt,
                va_list ap)
{
    if (r->st)
        return -1;
    char msg[1024];
    int n = snprintf(msg, sizeof msg, "%s", prefix);
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    int line = 0, col = 0;
    if (file >= 0)
        nl_position(r, file, off, &line, &col);
    if (file > 0 && !shows_netlist(&r->files[file].in))
        unquoted(r, file, msg, sizeof msg);
    r->st = optinc_fail(r->err, OPTINC_EINPUT, file >= 0 ? r->files[file].in.name : NULL, line,
                        col, "%s", msg);
    return -1;
}

int nl_fail_at(reader *r, int file, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nl_vfail_at(r, file, off, "", fmt, ap);
    va_end(ap);
    return -1;
}

int nl_fail_run(reader *r, const char *what)
{
    if (!r->st)
        r->st = optinc_fail(r->err, OPTINC_ERUN, NULL, 0, 0, "out of memory %s", what);
    return -1;
}

int nl_grow(reader *r, void **arr, size_t *cap, size_t size)
{
    size_t ncap = *cap ? *cap * 2 : 64;
    void *p = realloc(*arr, ncap * size);
    if (!p)
        return nl_fail_run(r, "reading the netlist");
    *arr = p;
    *cap = ncap;
    return 0;
}

/* ------------------------------------------------------------------ tokens */

int nl_need_name(reader *r, int file, tok t, const char *what)
{
    if (t.name || nl_is_name(tp(r, file, t), t.len))
        return 0;
    return nl_fail_at(r, file, t.off, "%s '%.*s' is not a name: names match "
                      "[A-Za-z_][A-Za-z0-9_]*", what, (int)(t.len > 80 ? 80 : t.len),
                      tp(r, file, t));
}

int nl_split_param(const reader *r, int file, tok t, tok *k, tok *v)
{
    if (t.name || t.eq == TOK_NO_EQ)
        return 0;
    const char *p = tp(r, file, t);
    const char *eq = t.eq ? p + t.eq - 1 : memchr(p, '=', t.len);
    if (!eq)
        return 0;
    *k = (tok){t.off, (uint32_t)(eq - p), 0, 0};
    *v = (tok){t.off + k->len + 1, t.len - k->len - 1, 0, 0};
    return 1;
}

/* A word [a, b) that starts or ends with '=': a key=value with a blank
 * around its '=', which would otherwise be taken for a net or a model and
 * reported as something it is not. */
static int blank_at_equals(reader *r, int file, size_t a, size_t b)
{
    const char *p = r->files[file].in.data + a;
    int n = (int)(b - a > 60 ? 60 : b - a);
    const char *what = b - a == 1 ? "stands between blanks"
                       : *p == '=' ? "has no key before its '='" : "has no value after its '='";
    return nl_fail_at(r, file, (uint32_t)(*p == '=' ? a : b - 1), "'%.*s' %s; write key=value as "
                      "one word, without blanks around '=' (as in theta_rad=1.5)", n, p, what);
}

/* What the tokenizer needs to know of a byte, one look-up for all of it:
 * whether it ends a token (a blank, nl_blank) or opens a string, and whether
 * it may start or continue a name. */
enum { BYTE_BLANK = 1, BYTE_QUOTE = 2, BYTE_WORD = 4, BYTE_LEAD = 8 };

/* 1 blank, 2 quote, 4 digit, 12 letter or '_'; bytes 128..255 are 0. */
static const unsigned char byte_kind[256] = {
     0,  0,  0,  0,  0,  0,  0,  0,  0,  1,  0,  1,  1,  1,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     1,  0,  2,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  0,  0,  0,  0,  0,  0,
     0, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,  0,  0,  0,  0, 12,
     0, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,  0,  0,  0,  0,  0,
};

/* Eight bytes at a time through the plain part of a token, with the bit 7
 * of each byte as a lane flag (bytes below 0x80; carries and borrows run to
 * later bytes only, so lanes before a stop stay right).  Tokens of a mesh
 * are ten to thirty bytes, and byte by byte each byte was a look-up and a
 * branch. */
#define LANES(x) (0x0101010101010101u * (x))

/* Lanes of bytes that need a look at one by one: 0x22 ('"') and below
 * (blanks, controls) and 0x80 and above. */
static uint64_t stop_lanes(uint64_t w)
{
    uint64_t low7 = w & ~LANES(0x80);
    return (w | (LANES(0xa2) - low7)) & LANES(0x80);
}

/* Lanes of bytes (below 0x80) that may be part of a name: [A-Za-z0-9_]. */
static uint64_t word_lanes(uint64_t w)
{
    uint64_t folded = w | LANES(0x20);      /* 'A'..'Z' onto 'a'..'z' */
    uint64_t digit = (w + LANES(0x80 - '0')) & (LANES(0x80 + '9') - w);
    uint64_t alpha = (folded + LANES(0x80 - 'a')) & (LANES(0x80 + 'z') - folded);
    uint64_t under = ~((w ^ LANES('_')) + LANES(0x7f));
    return (digit | alpha | under) & LANES(0x80);
}

long nl_tokenize(reader *r, int file, size_t a, size_t b)
{
    const unsigned char *buf = (const unsigned char *)r->files[file].in.data;
    long count = 0;
    size_t i = a;
    for (;;) {
        while (i < b && byte_kind[buf[i]] == BYTE_BLANK)
            i++;
        if (i >= b)
            break;
        size_t start = i, eq = 0;     /* eq: 1 + the offset of the first '=' */
        int quoted = 0;
        /* BYTE_WORD stays in `word` while every byte is a name's */
        unsigned word = byte_kind[buf[i]] & BYTE_LEAD ? BYTE_WORD : 0, kind;
        while (b - i >= 8) {
            uint64_t w = optinc_load8(buf + i), stop = stop_lanes(w);
            uint64_t plain = (stop ? (stop & (0 - stop)) - 1 : ~(uint64_t)0) & LANES(0x80);
            if ((word_lanes(w) & plain) != plain) {
                word = 0;
                uint64_t equals = ~((w ^ LANES('=')) + LANES(0x7f)) & plain;
                if (equals && !eq)
                    eq = i - start + (size_t)__builtin_ctzll(equals) / 8 + 1;
            }
            if (stop) {
                i += (size_t)__builtin_ctzll(stop) / 8;
                break;
            }
            i += 8;
        }
        for (; i < b && !((kind = byte_kind[buf[i]]) & BYTE_BLANK); i++) {
            word &= kind;
            if (buf[i] == '=' && !eq)
                eq = i - start + 1;
            if (kind == BYTE_QUOTE) {
                size_t q = i++;
                quoted = 1;
                while (i < b && buf[i] != '"')
                    i += buf[i] == '\\' && i + 1 < b ? 2 : 1;
                if (i >= b)
                    return nl_fail_at(r, file, (uint32_t)q, "unterminated string: add the "
                                      "closing '\"'");
            }
        }
        if (quoted) {   /* the first '=' may be inside the string: look again */
            const unsigned char *e = memchr(buf + start, '=', i - start);
            eq = e ? (size_t)(e - (buf + start)) + 1 : 0;
        }
        if (buf[start] == '=' || buf[i - 1] == '=')
            return blank_at_equals(r, file, start, i);
        if (GROW(r, r->toks, r->ntoks, r->ctoks))
            return -1;
        r->toks[r->ntoks++] = (tok){(uint32_t)start, (uint32_t)(i - start), word != 0,
                                    !eq ? TOK_NO_EQ : eq < TOK_NO_EQ ? (unsigned)eq : 0};
        count++;
    }
    return count;
}

static int too_long(reader *r, int file, tok t, size_t size, const char *what)
{
    return nl_fail_at(r, file, t.off, "%s is longer than %zu bytes, the reader's limit; "
                      "shorten it", what, size - 1);
}

int nl_string(reader *r, int file, tok t, char *out, size_t size, const char *what)
{
    const char *p = tp(r, file, t);
    if (p[0] == '"')
        return nl_unquote(r, file, t, out, size, what);
    if (t.len >= size)
        return too_long(r, file, t, size, what);
    memcpy(out, p, t.len);
    out[t.len] = '\0';
    return 0;
}

int nl_unquote(reader *r, int file, tok t, char *out, size_t size, const char *what)
{
    const char *p = tp(r, file, t);
    size_t n = 0;
    if (t.len < 2 || p[0] != '"' || p[t.len - 1] != '"')
        return nl_fail_at(r, file, t.off, "%s must be a double-quoted string, as in \"name\"",
                          what);
    for (size_t i = 1; i + 1 < t.len; i++) {
        char ch = p[i];
        if (ch == '\\' && i + 4 < t.len && p[i + 1] == 'x' && isxdigit((unsigned char)p[i + 2])
            && isxdigit((unsigned char)p[i + 3])) {
            char hex[3] = {p[i + 2], p[i + 3], '\0'};
            ch = (char)strtol(hex, NULL, 16);
            if (!ch)
                return nl_fail_at(r, file, t.off + (uint32_t)i, "\\x00 in %s: a NUL byte "
                                  "cannot be part of a name", what);
            i += 3;
        } else if (ch == '\\') {
            ch = p[++i];
        }
        if (n + 1 >= size)
            return too_long(r, file, t, size, what);
        out[n++] = ch;
    }
    out[n] = '\0';
    return 0;
}

/* ------------------------------------------------------------------ values */

const param *nl_find_param(const param *p, int n, const char *k, int klen)
{
    for (int i = 0; i < n; i++)
        if (p[i].klen == klen && !memcmp(p[i].key, k, (size_t)klen))
            return &p[i];
    return NULL;
}

/* "nan", "inf" or "infinity" in any case. */
static int names_nan_or_inf(const char *p, size_t len)
{
    return (len == 3 && (!strncasecmp(p, "nan", 3) || !strncasecmp(p, "inf", 3)))
           || (len == 8 && !strncasecmp(p, "infinity", 8));
}

static int not_finite(reader *r, int file, tok v)
{
    return nl_fail_at(r, file, v.off, "'%.*s': NaN and infinite values are not allowed; write a "
                      "finite decimal number", (int)v.len, tp(r, file, v));
}

int nl_value_of(reader *r, int file, tok v, const scope *sc, double *out)
{
    const char *p = tp(r, file, v);
    if (!v.len)
        return nl_fail_at(r, file, v.off, "missing value after '='");
    if (nl_is_name(p, v.len)) {
        const param *q = sc ? nl_find_param(sc->p, sc->n, p, (int)v.len) : NULL;
        if (!q)
            q = nl_find_param(r->globals, r->nglobals, p, (int)v.len);
        if (q) {
            *out = q->v;
            return 0;
        }
        if (names_nan_or_inf(p, v.len))
            return not_finite(r, file, v);
        return nl_fail_at(r, file, v.off, "undefined parameter '%.*s': define it with .param "
                          "or in the .subckt line, or write a number", (int)v.len, p);
    }
    if (p[0] == '"')
        return nl_fail_at(r, file, v.off, "a string is not allowed here; write a number");
    if (v.len >= 64)
        return nl_fail_at(r, file, v.off, "bad number '%.20s...': too long", p);
    /* In place: the token is not copied, and the grammar is the netlist's
     * (no hexadecimal, inf or nan, which strtod would take). */
    double x;
    switch (optinc_num_parse(p, v.len, &x)) {
    case OPTINC_NUM_OK:
        *out = x;
        return 0;
    case OPTINC_NUM_RANGE:
        return nl_fail_at(r, file, v.off, "number '%.*s' is out of range (not a finite double)",
                          (int)v.len, p);
    default:
        break;
    }
    size_t sign = p[0] == '+' || p[0] == '-';
    const char *body = p + sign;
    size_t blen = v.len - sign;
    if (names_nan_or_inf(body, blen))
        return not_finite(r, file, v);
    if (blen >= 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X'))
        return nl_fail_at(r, file, v.off, "'%.*s': hexadecimal numbers are not allowed; write "
                          "the number in decimal", (int)v.len, p);
    return nl_fail_at(r, file, v.off, "bad number '%.*s': write a plain decimal number such as "
                      "1.5 or -2e-3, with the unit in the parameter name", (int)v.len, p);
}

int nl_int_value(reader *r, int file, tok v, long long lo, long long hi, long long *out)
{
    const char *p = tp(r, file, v);
    size_t i = p[0] == '-' || p[0] == '+';
    if (v.len <= i || v.len > 20)
        return nl_fail_at(r, file, v.off, "bad integer '%.*s'", (int)(v.len > 30 ? 30 : v.len), p);
    for (size_t j = i; j < v.len; j++)
        if (p[j] < '0' || p[j] > '9')
            return nl_fail_at(r, file, v.off, "bad integer '%.*s': write whole decimal digits",
                              (int)v.len, p);
    /* In place, as the numbers: the magnitude in unsigned arithmetic, which
     * 20 digits can overflow (then it is out of any range). */
    unsigned long long mag = 0, limit = p[0] == '-' ? 1ull << 63 : (unsigned long long)LLONG_MAX;
    int over = 0;
    for (size_t j = i; j < v.len; j++) {
        unsigned d = (unsigned)(p[j] - '0');
        over |= mag > (limit - d) / 10;
        mag = mag * 10 + d;
    }
    long long x = p[0] == '-' ? (long long)(0ull - mag) : (long long)mag;
    if (over || x < lo || x > hi)
        return nl_fail_at(r, file, v.off, "%.*s is out of range; use %lld..%lld", (int)v.len, p,
                          lo, hi);
    *out = x;
    return 0;
}

/* ------------------------------------------------------------------ names */

void nl_ht_free(htab *h)
{
    OPTINC_FREE_ALL(h->slot, h->key, h->klen);
    memset(h, 0, sizeof *h);
}

/* 1 when the n bytes at a and b are the same: a name of 8 to 16 bytes (a
 * mesh's) as two words, each overlapping the other, not a call. */
static int same_bytes(const char *a, const char *b, int n)
{
    if (n < 8 || n > 16)
        return !memcmp(a, b, (size_t)n);
    uint64_t x0, x1, y0, y1;
    memcpy(&x0, a, 8);
    memcpy(&y0, b, 8);
    memcpy(&x1, a + n - 8, 8);
    memcpy(&y1, b + n - 8, 8);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
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
            && same_bytes(h->key[id], p, n))
            break;
    }
    return j;
}

/* Makes room for `want` keys at a load of at most 3/4: linear probing stays
 * short at that load (about 2.5 slots for a hit, most in one cache line),
 * and the table of a big mesh's nets (a million) is then 16 MB, which the
 * last-level cache can hold, where at 1/2 it was 32 MB and nearly every
 * lookup waited for memory.  -1 on OOM. */
int nl_ht_reserve(reader *r, htab *h, size_t want)
{
    if (want * 4 <= h->cap * 3)
        return 0;
    size_t cap = h->cap ? h->cap : 256;
    while (cap * 3 < want * 4)
        cap *= 2;
    {
        /* A table of a big mesh's nets is tens of MB read at random:
         * huge pages spare most of its TLB misses, which outweighs what
         * fresh huge pages cost (read_lex.c's arrays, read in order, are
         * better off without them). */
        uint64_t *slot = optinc_zalloc_large(cap * sizeof *slot);
        if (!slot)
            return nl_fail_run(r, "reading the netlist");
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

int nl_ht_id(reader *r, htab *h, const char *p, int n, int *added)
{
    return nl_ht_id_hashed(r, h, p, n, nl_ht_hash(p, n), added);
}

int nl_ht_id_hashed(reader *r, htab *h, const char *p, int n, uint32_t hv, int *added)
{
    if (nl_ht_reserve(r, h, (size_t)h->n + 1))
        return -1;
    size_t j = ht_slot(h, p, n, hv);
    if (h->slot[j]) {
        *added = 0;
        return (int)(uint32_t)h->slot[j] - 1;
    }
    if (h->n >= h->kcap) {
        int kcap = h->kcap ? h->kcap * 2 : 256;
        const char **key = realloc(h->key, sizeof *key * (size_t)kcap);
        if (!key)
            return nl_fail_run(r, "reading the netlist");
        h->key = key;
        int *klen = realloc(h->klen, sizeof *klen * (size_t)kcap);
        if (!klen)
            return nl_fail_run(r, "reading the netlist");
        h->klen = klen;
        h->kcap = kcap;
    }
    h->key[h->n] = p;
    h->klen[h->n] = n;
    h->slot[j] = (uint64_t)hv << 32 | (uint32_t)++h->n;
    *added = 1;
    return h->n - 1;
}

int nl_ht_find(const htab *h, const char *p, int n)
{
    if (!h->cap)
        return -1;
    size_t j = ht_slot(h, p, n, nl_ht_hash(p, n));
    return h->slot[j] ? (int)(uint32_t)h->slot[j] - 1 : -1;
}


/*
 * read_lex.c - pass 1 of the netlist reader: the input and the files it
 * includes into statements (a statement is a line plus its `+`
 * continuations, as tokens) and `*! KEY = REST` header lines.
 *
 * Physical lines come from the core line reader (optinc_lines_*), which also
 * refuses a NUL byte at its position; the tokens are the reader's own
 * (offset, length) pairs, richer than optinc_tokens: a "quoted string" with
 * blanks and \-escapes is one token, and a statement spans `+` lines.
 *
 * An .include is run when its statement is complete, so the included
 * statements follow it in order.  Its file comes from the resolver of the
 * read options (optinc_read_resolve: by default the file system, relative to
 * the folder of the including input), by the name written in the netlist,
 * and only from the folder of the main input or one the options allow
 * (optinc_read_within, checked before the file is opened).
 *
 * Why includes are counted as well as their bytes.  An .include is a
 * read of a file, however small, and a few lines that include a file of
 * a thousand includes of another are a million reads: the includes
 * followed (OPTINC_LIMIT_INCLUDES) and the bytes of every inclusion, each
 * counted as at least OPTINC_NETLIST_INCLUDE_BYTES_MIN (the input limit)
 * bound the work before it is done.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "compiler/netlist/read.h"

static int lex_file(reader *r, int file, int depth);

/* The name with "." and "dir/.." components and repeated '/' removed, so
 * that two spellings of one path compare equal ("a/./b.inc", "a/x/../b.inc").
 * Include cycles are found by these names and not by realpath(): the reader
 * knows its inputs by the names the resolver gives them, which need not be
 * files (a fuzzer or a test serves them from memory).  A cycle the names do
 * not show (through a symbolic link) still ends at the include depth limit,
 * whose message asks whether there is a cycle.  NULL when out of memory. */
static char *normalised(const char *name)
{
    size_t n = strlen(name);
    char *out = malloc(n + 2);
    if (!out)
        return NULL;
    size_t len = 0, keep = 0;       /* out[0 .. keep) cannot be undone by ".." */
    if (name[0] == '/')
        out[len++] = '/', keep = 1;
    for (const char *p = name; *p;) {
        while (*p == '/')
            p++;
        const char *q = p;
        while (*q && *q != '/')
            q++;
        size_t c = (size_t)(q - p);
        if (c == 0 || (c == 1 && p[0] == '.')) {
            /* nothing */
        } else if (c == 2 && p[0] == '.' && p[1] == '.' && len > keep) {
            while (len > keep && out[len - 1] != '/')
                len--;
            if (len > keep)
                len--;      /* the '/' before the component */
        } else {
            if (len > keep || (len && out[len - 1] != '/'))
                out[len++] = '/';
            memcpy(out + len, p, c);
            len += c;
            if (c == 2 && p[0] == '.' && p[1] == '.')
                keep = len;
        }
        p = q;
    }
    out[len] = '\0';
    return out;
}

/* Appends a source (taking over name and data, which the reader frees, or
 * NULL when borrowed) read by the .include at byte at of file parent (-1:
 * the main input), counting charge bytes for it; its file id, or -1. */
static int add_source(reader *r, optinc_input in, char *name, char *data, size_t charge,
                      int parent, uint32_t at)
{
    if ((size_t)r->nfiles >= r->cfiles && nl_grow(r, (void **)&r->files, &r->cfiles,
                                                  sizeof *r->files)) {
        free(name);
        free(data);
        return -1;
    }
    source *s = &r->files[r->nfiles++];
    *s = (source){in, name, data, normalised(in.name), parent, at};
    r->total_bytes += charge;
    if (!s->key)
        return nl_fail_run(r, "reading the netlist");
    return r->nfiles - 1;
}

/* The limits an inclusion that counts charge bytes must keep to, the
 * reader's own and the caller's: -1 (and the error at t) when it would
 * take the netlist past one. */
static int include_bytes(reader *r, int file, tok t, const char *name, size_t charge)
{
    char lim[256], count[160];
    snprintf(count, sizeof count, "every inclusion of a file counts its bytes again, and at "
             "least %d", OPTINC_NETLIST_INCLUDE_BYTES_MIN);
    if (charge + r->total_bytes > (size_t)OPTINC_NETLIST_BYTES_MAX)
        return nl_fail_at(r, file, t.off, "with '%s' the netlist grows past %ld MiB, the "
                          "reader's limit (OPTINC_NETLIST_BYTES_MAX; %s)", name,
                          OPTINC_NETLIST_BYTES_MAX >> 20, count);
    if (charge + r->total_bytes > (size_t)optinc_limits_get(r->lim, OPTINC_LIMIT_INPUT_BYTES))
        return nl_fail_at(r, file, t.off, "with '%s' the netlist grows past %s (%s)", name,
                          optinc_limits_text(r->lim, OPTINC_LIMIT_INPUT_BYTES, lim,
                                             sizeof lim), count);
    return 0;
}

/* .include "file" */
static int do_include(reader *r, int s, int depth)
{
    const stmt *st = &r->stmts[s];
    int file = st->file;
    if (st->ntok != 2)
        return nl_fail_at(r, file, stok(r, s, st->ntok > 2 ? 2 : 0)->off,
                          ".include takes one file name, as in .include \"cells.pnl.sp\"");
    tok t = *stok(r, s, 1);
    char rel[OPTINC_PATH_BYTES], lim[256];
    if (nl_string(r, file, t, rel, sizeof rel, "the file name of .include"))
        return -1;
    /* Counted before anything is read: a file of a thousand .includes of
     * one of a thousand more is a million reads, which the bytes they add
     * (none, for empty files) would not stop. */
    if (++r->nincludes > optinc_limits_get(r->lim, OPTINC_LIMIT_INCLUDES))
        return nl_fail_at(r, file, t.off, ".include number %ld of the netlist (an .include "
                          "counts each time its file is read) is past %s", r->nincludes,
                          optinc_limits_text(r->lim, OPTINC_LIMIT_INCLUDES, lim, sizeof lim));
    if (depth + 1 > OPTINC_NETLIST_INCLUDE_DEPTH_MAX)
        return nl_fail_at(r, file, t.off, ".include nests deeper than %d files, the reader's "
                          "limit (OPTINC_NETLIST_INCLUDE_DEPTH_MAX); is there an include "
                          "cycle?", OPTINC_NETLIST_INCLUDE_DEPTH_MAX);
    optinc_blob b;
    optinc_error e;
    const char *hint = "";
    optinc_status rs = optinc_read_within(r->opts, r->files[0].in.name, r->files[file].in.name,
                                          rel, "included file", &e);
    if (!rs) {
        rs = optinc_read_resolve(r->opts, r->files[file].in.name, rel,
                                 OPTINC_NETLIST_BYTES_MAX, "included file", &b, &e);
        hint = "; paths are relative to the including file";
    }
    if (rs) {
        nl_fail_at(r, file, t.off, "%s%s", e.message, hint);
        r->st = rs;
        return -1;
    }
    size_t charge = b.len > OPTINC_NETLIST_INCLUDE_BYTES_MIN ? b.len
                                                             : OPTINC_NETLIST_INCLUDE_BYTES_MIN;
    char *name = include_bytes(r, file, t, b.name, charge) ? NULL : strdup(b.name);
    if (!name) {
        optinc_blob_free(&b);
        return r->st ? -1 : nl_fail_run(r, "reading the netlist");
    }
    int nf = add_source(r, (optinc_input){name, b.data, b.len}, name, b.data, charge, file,
                        t.off);
    if (nf < 0)
        return -1;
    for (int d = 0; d <= depth; d++)
        if (!strcmp(r->files[r->stack[d]].key, r->files[nf].key))
            return nl_fail_at(r, file, t.off, "include cycle: '%s' includes itself (through "
                              "'%s')", r->files[nf].in.name, r->files[file].in.name);
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

/* `*! KEY = REST` in bytes [a, b) of file; other `*!` lines are comments. */
static int lex_meta(reader *r, int file, size_t a, size_t b)
{
    const char *buf = r->files[file].in.data;
    size_t i = a + 2;
    while (i < b && nl_blank(buf[i]))
        i++;
    size_t k = i;
    while (i < b && !nl_blank(buf[i]) && buf[i] != '=')
        i++;
    size_t klen = i - k;
    while (i < b && nl_blank(buf[i]))
        i++;
    if (!klen || i >= b || buf[i] != '=')
        return 0;
    i++;
    if (GROW(r, r->metas, r->nmetas, r->cmetas))
        return -1;
    r->metas[r->nmetas++] = (meta){file, {(uint32_t)k, (uint32_t)klen, 0, 0},
                                   {(uint32_t)i, (uint32_t)(b - i), 0, 0}};
    return 0;
}

static int lex_file(reader *r, int file, int depth)
{
    optinc_lines lines;
    optinc_line l;
    optinc_status st = optinc_lines_init(&lines, &r->files[file].in, "netlist", r->err);
    if (st) {
        r->st = st;
        return -1;
    }
    int pending = -1;       /* the statement a `+` line continues */
    while (optinc_lines_next(&lines, &l)) {
        size_t a = l.off, b = l.off + l.len;
        if (l.len > (size_t)OPTINC_NETLIST_LINE_MAX)
            return nl_fail_at(r, file, (uint32_t)a, "line longer than %ld bytes, the reader's "
                              "limit (OPTINC_NETLIST_LINE_MAX); break it with '+' "
                              "continuation lines", OPTINC_NETLIST_LINE_MAX);
        size_t i = 0;
        while (i < l.len && nl_blank(l.s[i]))
            i++;
        if (i == l.len) {
            /* blank line */
        } else if (l.s[0] == '*') {
            if (l.len >= 2 && l.s[1] == '!' && lex_meta(r, file, a, b))
                return -1;
        } else if (l.s[0] == '+') {
            if (pending < 0)
                return nl_fail_at(r, file, (uint32_t)a, "continuation line '+' with no "
                                  "statement before it to continue");
            long n = nl_tokenize(r, file, a + 1, b);
            if (n < 0)
                return -1;
            r->stmts[pending].ntok += (int)n;
        } else {
            if (finish(r, pending, depth))
                return -1;
            if (GROW(r, r->stmts, r->nstmts, r->cstmts))
                return -1;
            if (r->ntoks > (size_t)INT_MAX / 2)
                return nl_fail_at(r, file, (uint32_t)a, "too many tokens");
            int tok0 = (int)r->ntoks;
            long n = nl_tokenize(r, file, a, b);
            if (n < 0)
                return -1;
            pending = r->nstmts++;
            r->stmts[pending] = (stmt){file, tok0, (int)n};
        }
    }
    return finish(r, pending, depth);
}

int nl_lex(reader *r, const optinc_input *in)
{
    const char *name = in->name ? in->name : "";
    if (in->len > (size_t)OPTINC_NETLIST_BYTES_MAX) {
        r->st = optinc_fail(r->err, OPTINC_EINPUT, name, 0, 0,
                            "netlist '%s' is larger than %ld MiB, the reader's limit "
                            "(OPTINC_NETLIST_BYTES_MAX); split it or raise the limit", name,
                            OPTINC_NETLIST_BYTES_MAX >> 20);
        return -1;
    }
    if ((r->st = optinc_input_size_check(name, "netlist", in->len, OPTINC_NETLIST_BYTES_MAX,
                                         r->lim, r->err)))
        return -1;
    if (add_source(r, (optinc_input){name, in->data, in->len}, NULL, NULL, in->len, -1, 0)
        < 0)
        return -1;
    /* A mesh's card line is about 20 bytes a token and 150 a statement:
     * room for that up front spares the copies (and the page faults) of
     * doubling arrays of tens of megabytes; other inputs still grow them.
     * On 4 KB pages, not huge ones (optinc_alloc_large): they are written
     * and read in order, so huge pages spare few TLB misses, and on the
     * virtual machines we measured a fresh 2 MB page the host has not
     * backed yet cost three times the 4 KB faults of the same bytes. */
    size_t ntoks = in->len / 16 + 64, nstmts = in->len / 128 + 64;
    tok *toks = malloc(sizeof *toks * ntoks);
    stmt *stmts = toks ? malloc(sizeof *stmts * nstmts) : NULL;
    if (!stmts) {
        free(toks);
        return nl_fail_run(r, "reading the netlist");
    }
    r->toks = toks, r->ctoks = ntoks;
    r->stmts = stmts, r->cstmts = nstmts;
    r->stack[0] = 0;
    return lex_file(r, 0, 0);
}

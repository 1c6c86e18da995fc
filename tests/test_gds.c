/*
 * test_gds.c - the GDSII export (optinc_export_gds, optinc-gds(5)) read back
 * by a small stream reader written here from the page, and by KLayout
 * (tests/gds/check.py) when it is installed.
 *
 * For every shipped spec: the file is a well-formed record list with 1 nm
 * units; the top cell is named after the circuit and references each
 * element cell as many times as the circuit has such elements; every
 * element is labelled with its netlist instance name; no two MZI
 * references overlap; the bounding box is columns x column pitch by modes
 * x mode pitch, and the waveguides run from the inputs to the outputs.
 * Also: the 8-byte reals against known encodings, the same bytes twice
 * and from a spec and its netlist, the page's example, and failures that
 * name the file and leave nothing behind.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "compiler/export/gds_stream.h"
#include "optinc/export.h"
#include "optinc/netlist.h"
#include "optinc/spec.h"
#include "testutil.h"

/* ------------------------------------------------------------ the reader */

typedef struct rd_elem {
    char kind;                  /* 'B' boundary, 'P' path, 'S' sref, 'T' text */
    int layer, type, width;     /* type: datatype or texttype */
    int n;                      /* points */
    int32_t *xy;
    char str[256];              /* SNAME or STRING */
} rd_elem;

/* A box; empty while x0 > x1. */
typedef struct box {
    int64_t x0, y0, x1, y1;
} box;

typedef struct rd_cell {
    char name[256];
    rd_elem *e;
    int n, cap;
    box bbox;                   /* rd_bbox(cell, -1), once bbox_known */
    int bbox_known;
} rd_cell;

typedef struct rd_lib {
    char name[256];
    double user_unit, meters_unit;
    rd_cell *cells;
    int n, cap;
} rd_lib;

static uint32_t be(const unsigned char *p, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | p[i];
    return v;
}

/* An 8-byte GDSII real: sign, excess-64 base-16 exponent, 56-bit fraction. */
static double rd_real8(const unsigned char *p)
{
    uint64_t bits = (uint64_t)be(p, 4) << 32 | be(p + 4, 4);
    double v = ldexp((double)(bits & ((UINT64_C(1) << 56) - 1)), -56)
               * pow(16, (int)((bits >> 56) & 0x7f) - 64);
    return bits >> 63 ? -v : v;
}

/* ASCII data: an even length, NUL only as the one pad byte at the end. */
static int rd_string(const unsigned char *d, int len, char *out, size_t size)
{
    int n = len;
    if (n > 0 && d[n - 1] == 0)
        n--;
    if ((size_t)n >= size || memchr(d, 0, (size_t)n) || (len & 1))
        return -1;
    memcpy(out, d, (size_t)n);
    out[n] = 0;
    return 0;
}

/* The data type each record type must carry (-1: a record this layout
 * never has). */
static int rd_expected_type(int rec)
{
    switch (rec) {
    case 0x00: case 0x01: case 0x05: case 0x0D: case 0x0E: case 0x16: return 2;
    case 0x02: case 0x06: case 0x12: case 0x19: return 6;
    case 0x03: return 5;
    case 0x0F: case 0x10: return 3;
    case 0x04: case 0x07: case 0x08: case 0x09: case 0x0A: case 0x0C: case 0x11: return 0;
    default: return -1;
    }
}

/* Parses the whole file; NULL when well-formed, else what is wrong. */
static const char *rd_parse(const unsigned char *p, size_t len, rd_lib *lib)
{
    memset(lib, 0, sizeof *lib);
    rd_cell *cell = NULL;
    rd_elem el = {0};
    int in_elem = 0, ended = 0, n_rec = 0;
    size_t at = 0;
    while (at < len) {
        if (ended)
            return "bytes after ENDLIB";
        if (len - at < 4)
            return "a truncated record header";
        int rl = (int)be(p + at, 2), rec = p[at + 2], dt = p[at + 3];
        if (rl < 4 || (rl & 1) || (size_t)rl > len - at)
            return "a record length that is odd, under 4 or past the end";
        if (rd_expected_type(rec) != dt)
            return "an unknown record or a wrong data type";
        const unsigned char *d = p + at + 4;
        int dl = rl - 4;
        if (n_rec++ == 0 && (rec != 0x00 || dl != 2 || be(d, 2) != 600))
            return "no HEADER 600 first";
        switch (rec) {
        case 0x00: case 0x01:
            break;
        case 0x02:
            if (rd_string(d, dl, lib->name, sizeof lib->name))
                return "a bad LIBNAME";
            break;
        case 0x03:
            if (dl != 16)
                return "UNITS not two reals";
            lib->user_unit = rd_real8(d);
            lib->meters_unit = rd_real8(d + 8);
            break;
        case 0x04:
            if (cell)
                return "ENDLIB inside a structure";
            ended = 1;
            break;
        case 0x05:
            if (cell)
                return "BGNSTR inside a structure";
            if (dl != 24)
                return "BGNSTR without its 12 times";
            if (lib->n == lib->cap)
                lib->cells = realloc(lib->cells, sizeof *lib->cells * (size_t)(lib->cap = 2 * lib->cap + 4));
            cell = &lib->cells[lib->n++];
            memset(cell, 0, sizeof *cell);
            break;
        case 0x06:
            if (!cell || rd_string(d, dl, cell->name, sizeof cell->name))
                return "a bad STRNAME";
            break;
        case 0x07:
            if (!cell || in_elem)
                return "ENDSTR outside a structure or inside an element";
            cell = NULL;
            break;
        case 0x08: case 0x09: case 0x0A: case 0x0C:
            if (!cell || in_elem)
                return "an element outside a structure or inside another";
            memset(&el, 0, sizeof el);
            el.kind = rec == 0x08 ? 'B' : rec == 0x09 ? 'P' : rec == 0x0A ? 'S' : 'T';
            in_elem = 1;
            break;
        case 0x0D: case 0x0E: case 0x16:
            if (!in_elem || dl != 2)
                return "LAYER/DATATYPE/TEXTTYPE outside an element";
            if (rec == 0x0D)
                el.layer = (int16_t)be(d, 2);
            else
                el.type = (int16_t)be(d, 2);
            break;
        case 0x0F:
            if (!in_elem || el.kind != 'P' || dl != 4)
                return "WIDTH outside a path";
            el.width = (int32_t)be(d, 4);
            break;
        case 0x10:
            if (!in_elem || dl % 8 || !dl)
                return "a bad XY";
            el.n = dl / 8;
            el.xy = malloc((size_t)dl);
            for (int i = 0; i < 2 * el.n; i++)
                el.xy[i] = (int32_t)be(d + 4 * i, 4);
            break;
        case 0x12: case 0x19:
            if (!in_elem || rd_string(d, dl, el.str, sizeof el.str))
                return "a bad SNAME or STRING";
            break;
        case 0x11:
            if (!in_elem || !el.xy)
                return "ENDEL without an element or its XY";
            if (el.kind == 'B' && (el.n < 4 || el.xy[0] != el.xy[2 * el.n - 2]
                                   || el.xy[1] != el.xy[2 * el.n - 1]))
                return "a BOUNDARY that is not closed";
            if ((el.kind == 'S' || el.kind == 'T') && el.n != 1)
                return "an SREF or TEXT without one point";
            if (el.kind == 'P' && (el.n < 2 || el.width <= 0))
                return "a PATH without two points or a width";
            if (cell->n == cell->cap)
                cell->e = realloc(cell->e, sizeof *cell->e * (size_t)(cell->cap = 2 * cell->cap + 16));
            cell->e[cell->n++] = el;
            in_elem = 0;
            break;
        }
        at += (size_t)rl;
    }
    return ended ? NULL : "no ENDLIB";
}

static void rd_free(rd_lib *lib)
{
    for (int i = 0; i < lib->n; i++) {
        for (int j = 0; j < lib->cells[i].n; j++)
            free(lib->cells[i].e[j].xy);
        free(lib->cells[i].e);
    }
    free(lib->cells);
}

static const rd_cell *rd_find(const rd_lib *lib, const char *name)
{
    for (int i = 0; i < lib->n; i++)
        if (!strcmp(lib->cells[i].name, name))
            return &lib->cells[i];
    return NULL;
}

static const box EMPTY = {INT64_MAX, INT64_MAX, INT64_MIN, INT64_MIN};

static void grow(box *b, int64_t x0, int64_t y0, int64_t x1, int64_t y1)
{
    b->x0 = x0 < b->x0 ? x0 : b->x0;
    b->y0 = y0 < b->y0 ? y0 : b->y0;
    b->x1 = x1 > b->x1 ? x1 : b->x1;
    b->y1 = y1 > b->y1 ? y1 : b->y1;
}

/* The bounding box of a cell's shapes and references, except those on
 * the layer `skip` (-1: none) of the cell itself.  Paths here are drawn
 * with flush ends and horizontal end segments, so a path's box is its
 * points widened by half its width across, in y. */
static box rd_bbox(const rd_lib *lib, const rd_cell *c, int skip)
{
    box b = EMPTY;
    for (int i = 0; i < c->n; i++) {
        const rd_elem *e = &c->e[i];
        if (e->kind == 'S') {
            rd_cell *sub = (rd_cell *)rd_find(lib, e->str);
            cr_assert(sub, "SREF of the missing cell %s", e->str);
            if (!sub->bbox_known) {
                sub->bbox = rd_bbox(lib, sub, -1);
                sub->bbox_known = 1;
            }
            box s = sub->bbox;
            grow(&b, s.x0 + e->xy[0], s.y0 + e->xy[1], s.x1 + e->xy[0], s.y1 + e->xy[1]);
            continue;
        }
        if (e->layer == skip)
            continue;
        int64_t half = e->kind == 'P' ? e->width / 2 : 0;
        for (int k = 0; k < e->n; k++)
            grow(&b, e->xy[2 * k], e->xy[2 * k + 1] - half, e->xy[2 * k], e->xy[2 * k + 1] + half);
    }
    return b;
}

/* --------------------------------------------------------- the circuits */

static const char *const SPECS[] = {"specs/real4.yaml", "specs/complex16.yaml",
                                    "specs/chip16.yaml", "specs/reck8.yaml",
                                    "specs/rect10x6.yaml", "specs/twolayer.yaml",
                                    "specs/cascade/onn16x8_level1.yaml",
                                    "specs/cascade/onn16x8_level2.yaml", NULL};
/* Shipped specs with segmented layers (routed: channels and crossings). */
static const char *const SEGMENTED[] = {"specs/onn4x8.yaml", NULL};

static optinc_circuit *load(const char *spec)
{
    optinc_circuit *c = NULL;
    optinc_error err;
    cr_assert_eq(optinc_circuit_load(spec, NULL, &c, &err), OPTINC_OK, "%s: %s", spec,
                 err.message);
    return c;
}

/* The references a circuit's top cell must hold, per element cell. */
typedef struct counts {
    int mzi, ps, att, term;
} counts;

static counts circuit_counts(const optinc_circuit *c)
{
    counts n = {0};
    for (int l = 0; l < c->n_layers; l++)
        for (int s = 0; s < c->layers[l].n_stages; s++) {
            const optinc_stage *st = &c->layers[l].stage[s];
            if (st->kind == OPTINC_STAGE_MESH) {
                n.mzi += st->mesh->n_mzi;
                n.ps += st->mesh->modes;
            } else {
                int extra = st->modes_in > st->modes_out ? st->modes_in : st->modes_out;
                n.att += st->n_att;
                n.term += extra - st->n_att;
            }
        }
    return n;
}

static unsigned char *export_bytes(const optinc_circuit *c, const optinc_layout *layout,
                                   const char *path, size_t *len)
{
    optinc_error err;
    cr_assert_eq(optinc_export_gds(c, layout, path, &err), OPTINC_OK, "%s", err.message);
    unsigned char *bytes = (unsigned char *)tu_read_file(path, len);
    cr_assert(bytes);
    return bytes;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The instance names of the elements of c's hierarchical netlist (the
 * lines of mzi, ps, att and term cards), sorted; *n their number. */
static char **netlist_names(const optinc_circuit *c, int *n)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    optinc_error err;
    cr_assert_eq(optinc_netlist_write_stream(c, f, NULL, &err), OPTINC_OK, "%s", err.message);
    fclose(f);
    int cap = 64;
    char **names = malloc(sizeof *names * (size_t)cap);
    *n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "MZ_", 3) && strncmp(line, "PS_", 3) && strncmp(line, "AT_", 3)
            && strncmp(line, "TM_", 3))
            continue;
        if (*n == cap)
            names = realloc(names, sizeof *names * (size_t)(cap *= 2));
        names[(*n)++] = strndup(line, strcspn(line, " "));
    }
    free(text);
    qsort(names, (size_t)*n, sizeof *names, by_string);
    return names;
}

static int by_x0(const void *a, const void *b)
{
    const box *p = a, *q = b;
    return (p->x0 > q->x0) - (p->x0 < q->x0);
}

/* An end of a waveguide path, in the top cell's coordinates. */
typedef struct wg_end {
    int64_t x, y;
    int open;       /* may end there alone: a terminator's, or a port's */
} wg_end;

static int by_point(const void *a, const void *b)
{
    const wg_end *p = a, *q = b;
    return p->x != q->x ? (p->x > q->x) - (p->x < q->x) : (p->y > q->y) - (p->y < q->y);
}

static void add_ends(wg_end **ends, int *n, int *cap, const rd_elem *e, int64_t dx, int64_t dy,
                     int open)
{
    if (e->kind != 'P' || e->layer != 1)
        return;
    if (*n + 2 > *cap)
        *ends = realloc(*ends, sizeof **ends * (size_t)(*cap = 2 * *cap + 64));
    int last = 2 * (e->n - 1);
    (*ends)[(*n)++] = (wg_end){e->xy[0] + dx, e->xy[1] + dy, open};
    (*ends)[(*n)++] = (wg_end){e->xy[last] + dx, e->xy[last + 1] + dy, open};
}

/* The waveguides are connected: every end of a waveguide path (the top
 * cell's and those of the cells it references) meets exactly one other,
 * except at a port (x = 0 or the right edge, under a port label) and at a
 * terminator, where it may end alone. */
static void check_waveguide_ends(const rd_lib *lib, const rd_cell *top, int64_t right,
                                 const char *spec)
{
    wg_end *ends = NULL;
    int n = 0, cap = 0;
    for (int i = 0; i < top->n; i++) {
        const rd_elem *e = &top->e[i];
        if (e->kind == 'T' && e->layer == 11) {
            if (n == cap)
                ends = realloc(ends, sizeof *ends * (size_t)(cap = 2 * cap + 64));
            ends[n++] = (wg_end){e->xy[0], e->xy[1], 2};   /* a port: one path meets it */
        } else if (e->kind == 'S') {
            const rd_cell *sub = rd_find(lib, e->str);
            for (int j = 0; j < sub->n; j++)
                add_ends(&ends, &n, &cap, &sub->e[j], e->xy[0], e->xy[1],
                         !strcmp(e->str, "term"));
        } else {
            add_ends(&ends, &n, &cap, e, 0, 0, 0);
        }
    }
    qsort(ends, (size_t)n, sizeof *ends, by_point);
    for (int i = 0; i < n;) {
        int j = i, open = 0, port = 0;
        for (; j < n && !by_point(&ends[i], &ends[j]); j++) {
            open |= ends[j].open == 1;
            port |= ends[j].open == 2;
        }
        int paths = j - i - port;
        cr_assert(paths == 2 || (paths == 1 && (open || port)),
                  "%s: %d waveguide ends at (%lld, %lld)%s", spec, paths, (long long)ends[i].x,
                  (long long)ends[i].y, port ? ", a port" : "");
        cr_assert(!port || ends[i].x == 0 || ends[i].x == right, "%s: a port inside", spec);
        i = j;
    }
    free(ends);
}

/* Everything the page promises about the layout of c, checked on the file. */
static void check_layout(const char *spec, const optinc_layout *layout)
{
    optinc_circuit *c = load(spec);
    size_t len;
    unsigned char *bytes = export_bytes(c, layout, tu_scratch("out.gds"), &len);
    rd_lib lib;
    const char *why = rd_parse(bytes, len, &lib);
    cr_assert_null(why, "%s: %s", spec, why);
    /* exact: a real8 holds a double's 53 bits (real8_known_values) */
    cr_expect_eq(lib.user_unit, 1e-3, "%s: user unit %g", spec, lib.user_unit);
    cr_expect_eq(lib.meters_unit, 1e-9, "%s: meters unit %g", spec, lib.meters_unit);
    cr_expect_str_eq(lib.name, c->name);

    /* the cells: the element kinds the circuit uses, then the top cell */
    counts want = circuit_counts(c);
    cr_assert_eq(lib.n, (want.mzi > 0) + (want.ps > 0) + (want.att > 0) + (want.term > 0) + 1,
                 "%s: %d cells", spec, lib.n);
    const rd_cell *top = &lib.cells[lib.n - 1];
    cr_assert_str_eq(top->name, c->name);
    counts got = {0};
    int n_names = 0, n_ports = 0;
    for (int i = 0; i < top->n; i++) {
        const rd_elem *e = &top->e[i];
        if (e->kind == 'S') {
            int *slot = !strcmp(e->str, "mzi") ? &got.mzi : !strcmp(e->str, "ps") ? &got.ps
                        : !strcmp(e->str, "att") ? &got.att : !strcmp(e->str, "term") ? &got.term
                                                                                   : NULL;
            cr_assert(slot, "%s: SREF of an unknown cell %s", spec, e->str);
            ++*slot;
        }
        n_names += e->kind == 'T' && e->layer == 10 && e->type == 0;
        n_ports += e->kind == 'T' && e->layer == 11 && e->type == 0;
    }
    cr_expect_eq(got.mzi, want.mzi, "%s: %d mzi references, %d MZIs", spec, got.mzi, want.mzi);
    cr_expect_eq(got.ps, want.ps, "%s: %d ps references, %d", spec, got.ps, want.ps);
    cr_expect_eq(got.att, want.att, "%s: %d att references, %d", spec, got.att, want.att);
    cr_expect_eq(got.term, want.term, "%s: %d term references, %d", spec, got.term, want.term);
    cr_expect_eq(n_ports, c->layers[0].cols + c->layers[c->n_layers - 1].rows);

    /* the labels are the netlist's instance names, one per element */
    int n_net;
    char **net = netlist_names(c, &n_net);
    char **labels = malloc(sizeof *labels * (size_t)(n_names + 1));
    int k = 0;
    for (int i = 0; i < top->n; i++)
        if (top->e[i].kind == 'T' && top->e[i].layer == 10)
            labels[k++] = top->e[i].str;
    qsort(labels, (size_t)k, sizeof *labels, by_string);
    cr_assert_eq(k, n_net, "%s: %d labels, %d netlist elements", spec, k, n_net);
    for (int i = 0; i < k; i++)
        cr_assert_str_eq(labels[i], net[i], "%s: label %d", spec, i);
    for (int i = 0; i < n_net; i++)
        free(net[i]);
    free(net);
    free(labels);

    /* no two MZI references overlap (touching is allowed) */
    const rd_cell *mzi = rd_find(&lib, "mzi");
    if (mzi) {
        box cell = rd_bbox(&lib, mzi, -1);
        box *boxes = malloc(sizeof *boxes * (size_t)got.mzi);
        int nb = 0;
        for (int i = 0; i < top->n; i++)
            if (top->e[i].kind == 'S' && !strcmp(top->e[i].str, "mzi"))
                boxes[nb++] = (box){cell.x0 + top->e[i].xy[0], cell.y0 + top->e[i].xy[1],
                                    cell.x1 + top->e[i].xy[0], cell.y1 + top->e[i].xy[1]};
        qsort(boxes, (size_t)nb, sizeof *boxes, by_x0);
        for (int i = 0; i < nb; i++)
            for (int j = i + 1; j < nb && boxes[j].x0 < boxes[i].x1; j++)
                cr_assert(boxes[j].y0 >= boxes[i].y1 || boxes[i].y0 >= boxes[j].y1,
                          "%s: MZI boxes overlap at (%lld, %lld) and (%lld, %lld)", spec,
                          (long long)boxes[i].x0, (long long)boxes[i].y0,
                          (long long)boxes[j].x0, (long long)boxes[j].y0);
        free(boxes);
    }

    /* the bounding box is the floorplan, the grid's columns by its modes,
     * and the rest lies inside it */
    int64_t P = llround(layout->column_pitch_um * 1000), Q = llround(layout->mode_pitch_um * 1000);
    int64_t C = optinc_place_columns(c), M = optinc_place_modes(c);
    box all = rd_bbox(&lib, top, -1), inner = rd_bbox(&lib, top, 99);
    cr_expect(all.x0 == 0 && all.y0 == -Q / 2 && all.x1 == C * P && all.y1 == M * Q - Q / 2,
              "%s: box (%lld, %lld)-(%lld, %lld), expected (0, %lld)-(%lld, %lld)", spec,
              (long long)all.x0, (long long)all.y0, (long long)all.x1, (long long)all.y1,
              (long long)-Q / 2, (long long)(C * P), (long long)(M * Q - Q / 2));
    cr_expect(inner.x0 >= all.x0 && inner.y0 > all.y0 && inner.x1 <= all.x1 && inner.y1 < all.y1,
              "%s: shapes outside the floorplan", spec);
    check_waveguide_ends(&lib, top, C * P, spec);

    rd_free(&lib);
    free(bytes);
    optinc_circuit_free(c);
}

TestSuite(gds, .init = tu_scratch_init, .fini = tu_scratch_fini);

Test(gds, real8_known_values)
{
    static const struct {
        double v;
        uint64_t bits;
    } known[] = {
        {0, 0},
        {1, UINT64_C(0x4110000000000000)},
        {0.5, UINT64_C(0x4080000000000000)},
        {-1, UINT64_C(0xC110000000000000)},
        {1e-3, UINT64_C(0x3E4189374BC6A7F0)},   /* the user unit: 1 nm in um */
        {1e-9, UINT64_C(0x3944B82FA09B5A54)},   /* the database unit in meters */
        {100, UINT64_C(0x4264000000000000)},    /* 6.25 * 16 */
        {1.0 / 16, UINT64_C(0x4010000000000000)},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        unsigned char b[8];
        gds_real8(known[i].v, b);
        uint64_t bits = (uint64_t)be(b, 4) << 32 | be(b + 4, 4);
        cr_expect_eq(bits, known[i].bits, "%g: %016llx, expected %016llx", known[i].v,
                     (unsigned long long)bits, (unsigned long long)known[i].bits);
        cr_expect_eq(rd_real8(b), known[i].v, "%g read back as %g", known[i].v, rd_real8(b));
    }
    /* every double in range is exact: 53 bits fit in the 56 of the fraction */
    for (double v = 1e-60; v < 1e60; v *= 3.7) {
        unsigned char b[8];
        gds_real8(v, b);
        cr_expect_eq(rd_real8(b), v, "%.17g read back as %.17g", v, rd_real8(b));
    }
}

Test(gds, every_shipped_spec)
{
    optinc_layout layout = OPTINC_LAYOUT_DEFAULT;
    for (int i = 0; SPECS[i]; i++)
        check_layout(SPECS[i], &layout);
}

/* The shipped unit, segmented, from its spec and from its netlist: every
 * element of the netlist referenced once (its counts, optinc-onn(7): 16,574
 * MZIs, 615 attenuators with the split's trims, 120 splitters, 105
 * combiners), crossing cells where routes cross, the die wider than the
 * grid by its routing channels and labelled with its size; the two files
 * the same bytes (a netlist holds what its spec compiles to). */
Test(gds, the_segmented_unit_is_routed, .timeout = 60)
{
    optinc_layout layout = OPTINC_LAYOUT_DEFAULT;
    const char *const from[] = {SEGMENTED[0], "netlists/onn4x8.pnl.sp"};
    unsigned char *bytes[2];
    size_t len[2];
    for (int i = 0; i < 2; i++) {
        optinc_circuit *c = load(from[i]);
        bytes[i] = export_bytes(c, &layout, tu_scratch(i ? "unit1.gds" : "unit0.gds"), &len[i]);
        rd_lib lib = {0};
        const char *bad = rd_parse(bytes[i], len[i], &lib);
        cr_assert(!bad, "%s: %s", from[i], bad);
        const rd_cell *top = rd_find(&lib, c->name);
        cr_assert(top);
        int refs[7] = {0}, die = 0;
        static const char *const cells[7] = {"mzi", "att", "split", "comb", "xing", "ps",
                                             "term"};
        for (int e = 0; e < top->n; e++) {
            for (int k = 0; k < 7; k++)
                refs[k] += top->e[e].kind == 'S' && !strcmp(top->e[e].str, cells[k]);
            die += top->e[e].kind == 'T' && !strncmp(top->e[e].str, "die ", 4);
        }
        cr_expect_eq(refs[0], 16574, "%s: mzi", from[i]);
        cr_expect_eq(refs[1], 615, "%s: att", from[i]);
        cr_expect_eq(refs[2], 120, "%s: split", from[i]);
        cr_expect_eq(refs[3], 105, "%s: comb", from[i]);
        cr_expect_gt(refs[4], 0, "%s: xing", from[i]);
        cr_expect_eq(die, 1, "%s: the die's label", from[i]);
        box b = rd_bbox(&lib, top, -1);
        cr_expect_gt(b.x1, (int64_t)optinc_place_columns(c) * 250000, "%s: channels", from[i]);
        rd_free(&lib);
        optinc_circuit_free(c);
    }
    cr_expect_eq(len[0], len[1]);
    cr_expect(len[0] == len[1] && !memcmp(bytes[0], bytes[1], len[0]), "spec and netlist differ");
    free(bytes[0]);
    free(bytes[1]);
}

/* The page's EXAMPLES: specs/real4.yaml with the default layout. */
Test(gds, the_example_of_the_page)
{
    optinc_layout layout = OPTINC_LAYOUT_DEFAULT;
    optinc_circuit *c = load("specs/real4.yaml");
    counts n = circuit_counts(c);
    cr_expect(n.mzi == 12 && n.ps == 8 && n.att == 4 && n.term == 0);
    cr_expect_eq(optinc_place_columns(c), 11);
    cr_expect_eq(optinc_place_modes(c), 4);
    size_t len;
    unsigned char *bytes = export_bytes(c, &layout, tu_scratch("real4.gds"), &len);
    rd_lib lib;
    cr_assert_null(rd_parse(bytes, len, &lib));
    const rd_cell *top = rd_find(&lib, "real4");
    cr_assert(top);
    box b = rd_bbox(&lib, top, -1);
    cr_expect(b.x0 == 0 && b.y0 == -63500 && b.x1 == 2750000 && b.y1 == 444500);
    int found = 0;
    for (int i = 0; i < top->n; i++) {
        const rd_elem *e = &top->e[i], *prev = i ? &top->e[i - 1] : NULL;
        /* an element's label follows its reference */
        if (e->kind == 'T' && !strcmp(e->str, "MZ_L1_V_c0_r0"))
            found += prev->kind == 'S' && prev->xy[0] == 0 && prev->xy[1] == 0;
        if (e->kind == 'T' && !strcmp(e->str, "AT_L1_r2"))
            found += prev->kind == 'S' && prev->xy[0] == 1250000 && prev->xy[1] == 254000;
        if (e->kind == 'T' && !strcmp(e->str, "out3"))
            found += e->layer == 11 && e->xy[0] == 2750000 && e->xy[1] == 381000;
    }
    cr_expect_eq(found, 3, "the page's MZ_L1_V_c0_r0, AT_L1_r2 or out3 is elsewhere");
    rd_free(&lib);
    free(bytes);
    optinc_circuit_free(c);
}

Test(gds, other_pitches)
{
    /* MZIs as long as the column pitch touch their neighbours but do not
     * overlap; odd nm and fractional-um pitches keep the box exact */
    optinc_layout tight = {60, 7.5, 60}, odd = {123.457, 20.001, 99.9};
    check_layout("specs/chip16.yaml", &tight);
    check_layout("specs/rect10x6.yaml", &odd);
    check_layout("specs/reck8.yaml", &odd);
}

Test(gds, same_bytes_twice)
{
    optinc_layout layout = OPTINC_LAYOUT_DEFAULT;
    optinc_circuit *c = load("specs/rect10x6.yaml");
    size_t n1, n2;
    unsigned char *a = export_bytes(c, &layout, tu_scratch("a.gds"), &n1);
    unsigned char *b = export_bytes(c, &layout, tu_scratch("b.gds"), &n2);
    cr_assert_eq(n1, n2);
    cr_assert(!memcmp(a, b, n1), "two exports of one circuit differ");
    free(a);
    free(b);
    optinc_circuit_free(c);
}

Test(gds, a_netlist_gives_the_layout_of_its_spec)
{
    /* the layout depends on the circuit's structure and names only, which
     * the netlist keeps */
    optinc_layout layout = OPTINC_LAYOUT_DEFAULT;
    static const char *const pairs[][2] = {{"specs/rect10x6.yaml", "netlists/rect10x6.pnl.sp"},
                                           {"specs/reck8.yaml", "netlists/reck8.pnl.sp"},
                                           {"specs/twolayer.yaml", "netlists/twolayer.pnl.sp"}};
    for (int i = 0; i < 3; i++) {
        optinc_circuit *a = load(pairs[i][0]), *b = load(pairs[i][1]);
        size_t na, nb;
        unsigned char *x = export_bytes(a, &layout, tu_scratch("a.gds"), &na);
        unsigned char *y = export_bytes(b, &layout, tu_scratch("b.gds"), &nb);
        cr_expect(na == nb && !memcmp(x, y, na), "%s and %s give different layouts",
                  pairs[i][0], pairs[i][1]);
        free(x);
        free(y);
        optinc_circuit_free(a);
        optinc_circuit_free(b);
    }
}

Test(gds, write_errors_name_the_file_and_leave_nothing)
{
    optinc_layout layout = OPTINC_LAYOUT_DEFAULT;
    optinc_circuit *c = load("specs/real4.yaml");
    optinc_error err;
    char missing[4400];
    snprintf(missing, sizeof missing, "%s/no/such/folder/x.gds", tu_scratch_dir());
    char shown[4096];
    cr_expect_neq(optinc_export_gds(c, &layout, missing, &err), OPTINC_OK);
    optinc_error_format(&err, shown, sizeof shown);
    cr_expect(strstr(shown, missing), "message does not name the file: %s", shown);

    /* an output that is a folder is refused before anything is written */
    const char *folder = tu_scratch("out.gds");
    cr_assert_eq(mkdir(folder, 0755), 0);
    cr_expect_neq(optinc_export_gds(c, &layout, folder, &err), OPTINC_OK);
    optinc_error_format(&err, shown, sizeof shown);
    cr_expect(strstr(shown, folder), "message does not name the file: %s", shown);
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), 1, "something was left beside the output");

    /* a file that cannot grow (EFBIG past RLIMIT_FSIZE, with SIGXFSZ
     * ignored) fails half way: the message names the file, and the
     * temporary file is gone */
    rmdir(folder);
    struct rlimit old, small = {8192, 8192};
    getrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_IGN);
    small.rlim_max = old.rlim_max;
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
    optinc_circuit *big = load("specs/chip16.yaml");
    const char *capped = tu_scratch("capped.gds");
    optinc_status st = optinc_export_gds(big, &layout, capped, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_DFL);
    cr_expect_eq(st, OPTINC_ERUN);
    optinc_error_format(&err, shown, sizeof shown);
    cr_expect(strstr(shown, capped), "message does not name the file: %s", shown);
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), 0, "a failed write left a file behind");
    optinc_circuit_free(big);

    /* a full disk is reported when the output is committed */
    struct stat sb;
    if (stat("/dev/full", &sb) == 0) {
        cr_expect_eq(optinc_export_gds(c, &layout, "/dev/full", &err), OPTINC_ERUN);
        optinc_error_format(&err, shown, sizeof shown);
        cr_expect(strstr(shown, "/dev/full"), "message does not name the file: %s", shown);
    }
    optinc_circuit_free(c);
}

Test(gds, layouts_it_cannot_draw_are_refused)
{
    optinc_circuit *c = load("specs/chip16.yaml");
    optinc_error err;
    const char *path = tu_scratch("x.gds");
    optinc_layout longer = {100, 127, 200}, crowded = {250, 1, 200}, huge = {1e6, 127, 200};
    cr_expect_eq(optinc_export_gds(c, &longer, path, &err), OPTINC_EINPUT);
    cr_expect(strstr(err.message, "mzi_length_um"), "%s", err.message);
    cr_expect_eq(optinc_export_gds(c, &crowded, path, &err), OPTINC_EINPUT);
    cr_expect(strstr(err.message, "mode_pitch_um"), "%s", err.message);
    cr_expect_eq(optinc_export_gds(c, &huge, path, &err), OPTINC_EINPUT);
    cr_expect(strstr(err.message, "2147483647 nm"), "%s", err.message);
    optinc_circuit_free(c);
    /* a segmented layer's channels put a crossing between lanes a quarter
     * pitch apart: 32 um at least */
    c = load(SEGMENTED[0]);
    optinc_layout tight = {250, 20, 200};
    cr_expect_eq(optinc_export_gds(c, &tight, path, &err), OPTINC_EINPUT);
    cr_expect(strstr(err.message, "mode_pitch_um is 20") && strstr(err.message, "32 to 1e6"),
              "%s", err.message);
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), 0, "a refused export wrote something");
    optinc_circuit_free(c);
}

/* ------------------------------------------------------------------ KLayout */

/* The path of klayout on PATH, or NULL. */
static char *find_klayout(void)
{
    const char *path = getenv("PATH");
    static char found[4096];
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(found, sizeof found, "%.*s/klayout", (int)n, p);
        if (n && access(found, X_OK) == 0)
            return found;
        p += n + (p[n] == ':');
    }
    return NULL;
}

Test(gds, klayout_reads_it, .timeout = 120)
{
    char *klayout = find_klayout();
    if (!klayout)
        cr_skip_test("klayout is not installed (apt-get install klayout); the KLayout check "
                     "of the GDSII export is skipped");
    optinc_layout layout = OPTINC_LAYOUT_DEFAULT;
    static const char *const specs[] = {"specs/rect10x6.yaml", "specs/twolayer.yaml"};
    for (int i = 0; i < 2; i++) {
        optinc_circuit *c = load(specs[i]);
        char file[4400];
        snprintf(file, sizeof file, "%s/%d.gds", tu_scratch_dir(), i);
        optinc_error err;
        cr_assert_eq(optinc_export_gds(c, &layout, file, &err), OPTINC_OK, "%s", err.message);
        counts n = circuit_counts(c);
        char vars[11][4500];
        snprintf(vars[0], sizeof vars[0], "gds=%s", file);
        snprintf(vars[1], sizeof vars[1], "top=%s", c->name);
        snprintf(vars[2], sizeof vars[2], "mzi=%d", n.mzi);
        snprintf(vars[3], sizeof vars[3], "ps=%d", n.ps);
        snprintf(vars[4], sizeof vars[4], "att=%d", n.att);
        snprintf(vars[5], sizeof vars[5], "term=%d", n.term);
        snprintf(vars[6], sizeof vars[6], "columns=%d", optinc_place_columns(c));
        snprintf(vars[7], sizeof vars[7], "modes=%d", optinc_place_modes(c));
        snprintf(vars[8], sizeof vars[8], "column_pitch_nm=%lld",
                 llround(layout.column_pitch_um * 1000));
        snprintf(vars[9], sizeof vars[9], "mode_pitch_nm=%lld",
                 llround(layout.mode_pitch_um * 1000));
        char *argv[32] = {klayout, "-b", "-r", "tests/gds/check.py"};
        int a = 4;
        for (int v = 0; v < 10; v++) {
            argv[a++] = "-rd";
            argv[a++] = vars[v];
        }
        argv[a] = NULL;
        tu_run r = tu_start(argv);
        tu_wait(&r);
        cr_expect_eq(r.status, 0, "%s: klayout: %s%s", specs[i], r.out ? r.out : "",
                     r.err ? r.err : "");
        cr_expect(r.out && strstr(r.out, "gds check: ok"), "%s: klayout printed: %s", specs[i],
                  r.out ? r.out : "");
        tu_run_free(&r);
        optinc_circuit_free(c);
    }
}

/* ------------------------------------------------------------ the DRC deck */

/* klayout -b -r SCRIPT -rd VAR... (NULL-ended), its run. */
static tu_run klayout_run(const char *script, const char *const *vars)
{
    char *argv[16] = {find_klayout(), "-b", "-r", (char *)script};
    int a = 4;
    for (int v = 0; vars[v] && a < 14; v++) {
        argv[a++] = "-rd";
        argv[a++] = (char *)vars[v];
    }
    argv[a] = NULL;
    tu_run r = tu_start(argv);
    tu_wait(&r);
    return r;
}

/* The deck (scripts/gds-drc.py, optinc-gds(5) DESIGN RULES) on the layout
 * of every shipped spec, on its layout: table, and of every shipped
 * netlist, on the default layout, the segmented unit's included, in one
 * KLayout run: zero violations.
 * Then one waveguide of the top cell moved by 0.4 um: both its ends open,
 * and touching its neighbour's track where it crosses an MZI's coupler or
 * not, the deck names the open ends. */
Test(gds, drc_deck_passes_every_shipped_layout_and_catches_a_moved_waveguide, .timeout = 240)
{
    if (!find_klayout())
        cr_skip_test("klayout is not installed (apt-get install klayout); the DRC deck is "
                     "skipped");
    static const char *const netlists[] = {
        "netlists/real4.pnl.sp", "netlists/complex16.pnl.sp", "netlists/chip16.pnl.sp",
        "netlists/reck8.pnl.sp", "netlists/rect10x6.pnl.sp", "netlists/twolayer.pnl.sp",
        "netlists/onn4x8.pnl.sp", NULL};
    static char files[4096 * 4];
    size_t used = 0;
    int n = 0;
    optinc_layout dflt = OPTINC_LAYOUT_DEFAULT;
    for (int pass = 0; pass < 3; pass++) {
        const char *const *list = pass == 2 ? netlists : pass ? SEGMENTED : SPECS;
        for (int i = 0; list[i]; i++) {
            optinc_circuit *c = load(list[i]);
            optinc_layout layout = dflt;
            if (pass < 2) {
                optinc_spec *spec = NULL;
                optinc_error e;
                cr_assert_eq(optinc_spec_load(list[i], NULL, &spec, &e), 0, "%s", e.message);
                layout = spec->layout;
                optinc_spec_free(spec);
            }
            char name[64];
            snprintf(name, sizeof name, "drc%d.gds", n++);
            optinc_error err;
            cr_assert_eq(optinc_export_gds(c, &layout, tu_scratch(name), &err), OPTINC_OK,
                         "%s: %s", list[i], err.message);
            used += (size_t)snprintf(files + used, sizeof files - used, "%s%s", used ? "," : "",
                                     tu_scratch(name));
            optinc_circuit_free(c);
        }
    }
    char vars[2][sizeof files + 8];
    snprintf(vars[0], sizeof vars[0], "gds=%s", files);
    tu_run r = klayout_run("scripts/gds-drc.py", (const char *[]){vars[0], NULL});
    cr_expect_eq(r.status, 0, "drc: %s%s", r.out, r.err);
    int clean = 0;
    for (const char *p = r.out; (p = strstr(p, ": 0 violations;")); p++)
        clean++;
    cr_expect_eq(clean, n, "%d of %d layouts clean: %s", clean, n, r.out);
    tu_run_free(&r);

    /* the seeded error: the sixth waveguide of reck8's top cell, 0.4 um up */
    snprintf(vars[0], sizeof vars[0], "gds=%s", tu_scratch("drc3.gds"));
    snprintf(vars[1], sizeof vars[1], "out=%s", tu_scratch("moved.gds"));
    r = klayout_run("tests/gds/move-waveguide.py",
                    (const char *[]){vars[0], vars[1], "index=5", "dy_nm=400", NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    tu_run_free(&r);
    snprintf(vars[0], sizeof vars[0], "gds=%s", tu_scratch("moved.gds"));
    r = klayout_run("scripts/gds-drc.py", (const char *[]){vars[0], NULL});
    cr_expect_neq(r.status, 0, "the deck missed the moved waveguide: %s", r.out);
    int open_ends = 0;
    for (const char *p = r.out; (p = strstr(p, "drc: WG_END at")); p++)
        open_ends++;
    cr_expect_eq(open_ends, 4, "both ends of the moved path and the two it left: %s", r.out);
    tu_run_free(&r);
}

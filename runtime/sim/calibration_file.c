/*
 * calibration_file.c - a chip's measured couplers and phase offsets
 * (optinc-calibration(5)): the data, its file format (read, write; format 1
 * couplers, format 2 also offsets), its shape check, and what a lab
 * measures on a simulated chip (optinc_calibration_measure: the chip's true
 * values plus a measurement error drawn from streams of their own).
 *
 * A calibration is shaped like the circuit it was read against: per layer
 * and mesh stage, two power couplings per MZI in propagation order, 0.5
 * for an MZI the file does not list.  The simulator realizes one as a chip's
 * couplers (devices.c), and the correction algorithm compiles against one
 * (calibrate.c); this file needs neither, only the chip's layout to take its
 * couplers as a perfect measurement (optinc_calibration_from_chip).
 *
 * The file format is plain text rather than YAML because it is a flat table
 * (one line per MZI, thousands of lines at N = 64) that measurement scripts
 * write with printf.  Its lines and fields come from the shared line and
 * token reader of text.h ('#' comments, blank-separated fields), so every
 * error carries FILE:LINE:COL and a NUL byte is refused where it is.  A file
 * is read whole and at most 1 MiB plus 256 bytes per MZI of its circuit (the
 * writer's lines take under 140), so a wrong path cannot make the reader
 * take gigabytes, and a FIFO or a device is refused without blocking.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/calibration.h"
#include "optinc/fileio.h"
#include "runtime/sim/chip.h"

/* The largest calibration file read for a circuit of n_mzi MZIs. */
#define CALIBRATION_BYTES(n_mzi) (((size_t)1 << 20) + 256 * (size_t)(n_mzi))

/* ------------------------------------------------------------------ the data */

void optinc_calibration_free(optinc_calibration *cal)
{
    if (!cal)
        return;
    for (int l = 0; cal->layer && l < cal->n_layers; l++)
        for (int s = 0; s < cal->layer[l].n_stages; s++) {
            free(cal->layer[l].kappa[s]);
            free(cal->layer[l].offset[s]);
            free(cal->layer[l].tap[s]);
        }
    free(cal->layer);
    free(cal);
}

/* A calibration shaped like c with ideal (0.5) couplers. */
static optinc_calibration *cal_new(const optinc_circuit *c)
{
    optinc_calibration *cal = calloc(1, sizeof *cal);
    if (!cal)
        return NULL;
    cal->n_layers = c->n_layers;
    cal->layer = calloc((size_t)c->n_layers + 1, sizeof *cal->layer);
    if (!cal->layer) {
        free(cal);
        return NULL;
    }
    for (int l = 0; l < c->n_layers; l++) {
        const optinc_layer *L = &c->layers[l];
        struct optinc_calibration_layer *cl = &cal->layer[l];
        cl->n_stages = L->n_stages;
        for (int s = 0; s < L->n_stages; s++) {
            const optinc_stage *st = &L->stage[s];
            if (st->kind == OPTINC_STAGE_SPLIT || st->kind == OPTINC_STAGE_COMBINE) {
                int links = st->fan - 1;
                cl->n_tap[s] = (st->kind == OPTINC_STAGE_SPLIT ? st->modes_in : st->modes_out)
                               * links;
                if (!(cl->tap[s] = malloc(sizeof *cl->tap[s] * ((size_t)cl->n_tap[s] + 1)))) {
                    optinc_calibration_free(cal);
                    return NULL;
                }
                for (int i = 0; i < cl->n_tap[s]; i++)
                    cl->tap[s][i] = optinc_chain_tap(st, i % links);
            }
            if (st->kind != OPTINC_STAGE_MESH)
                continue;
            int n = L->stage[s].mesh->n_mzi, modes = L->stage[s].mesh->modes;
            cl->n_mzi[s] = n;
            cl->kappa[s] = malloc(sizeof *cl->kappa[s] * (2 * (size_t)n + 1));
            cl->offset[s] = calloc(2 * (size_t)n + (size_t)modes + 1, sizeof *cl->offset[s]);
            if (!cl->kappa[s] || !cl->offset[s]) {
                optinc_calibration_free(cal);
                return NULL;
            }
            for (int i = 0; i < 2 * n; i++)
                cl->kappa[s][i] = 0.5;
        }
    }
    return cal;
}

optinc_status optinc_calibration_check(const optinc_calibration *cal, const optinc_circuit *c,
                                       optinc_error *err)
{
    int ok = cal->n_layers == c->n_layers;
    for (int l = 0; ok && l < c->n_layers; l++) {
        const optinc_layer *L = &c->layers[l];
        ok = cal->layer[l].n_stages == L->n_stages;
        for (int s = 0; ok && s < L->n_stages; s++) {
            const optinc_stage *st = &L->stage[s];
            int chains = st->kind == OPTINC_STAGE_SPLIT ? st->modes_in
                         : st->kind == OPTINC_STAGE_COMBINE ? st->modes_out : 0;
            ok = cal->layer[l].n_mzi[s] == (st->kind == OPTINC_STAGE_MESH ? st->mesh->n_mzi : 0)
                 && cal->layer[l].n_tap[s] == chains * (chains ? st->fan - 1 : 0);
        }
    }
    if (!ok)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "the coupler calibration does not have the shape of circuit '%s'; "
                           "read it with optinc_calibration_read() against this circuit",
                           c->name);
    return OPTINC_OK;
}

optinc_status optinc_calibration_from_chip(const optinc_chip *chip, optinc_calibration **out,
                                           optinc_error *err)
{
    optinc_calibration *cal = cal_new(chip->circuit);
    if (!cal)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    for (int l = 0; l < chip->n_layers; l++)
        for (int s = 0; s < chip->layer[l].n_stages; s++) {
            const chip_stage *cs = &chip->layer[l].stage[s];
            for (int i = 0; cs->kind == OPTINC_STAGE_MESH && i < cs->n_mzi; i++) {
                cal->layer[l].kappa[s][2 * i] = cs->mzi[i].kappa[0];
                cal->layer[l].kappa[s][2 * i + 1] = cs->mzi[i].kappa[1];
            }
            if (cs->tap)
                memcpy(cal->layer[l].tap[s], cs->tap,
                       sizeof *cs->tap * (size_t)cal->layer[l].n_tap[s]);
        }
    *out = cal;
    return OPTINC_OK;
}

/* A measurement-error stream per (layer, stage, quantity), apart from the
 * streams the chip's own errors are drawn from (small ids, devices.c). */
static void measure_stream(optinc_rng *r, uint64_t seed, int layer, int stage, int what)
{
    optinc_rng_stream(r, seed, 0x4d45415355524500ULL    /* "MEASURE" */
                                   + ((uint64_t)layer * 4 + (uint64_t)stage) * 2 + (uint64_t)what);
}

optinc_status optinc_calibration_measure(const optinc_chip *chip, double phase_sigma_rad,
                                         double splitter_sigma, uint64_t seed,
                                         optinc_calibration **out, optinc_error *err)
{
    optinc_status st = optinc_calibration_from_chip(chip, out, err);
    if (st)
        return st;
    optinc_calibration *cal = *out;
    cal->has_offsets = 1;
    for (int l = 0; l < chip->n_layers; l++)
        for (int s = 0; s < chip->layer[l].n_stages; s++) {
            const chip_stage *cs = &chip->layer[l].stage[s];
            optinc_rng rk, rp;
            measure_stream(&rk, seed, l, s, 0);
            /* A fixed card's tap is a power ratio, read from the powers at its
             * branches: measured to a relative accuracy, the one that gives a
             * 50:50 card the absolute error of a coupler. */
            for (int i = 0; i < cal->layer[l].n_tap[s]; i++) {
                double *t = &cal->layer[l].tap[s][i];
                double x = *t * (1 + 2 * splitter_sigma * optinc_rng_normal(&rk));
                *t = x < 0 ? 0 : x > 1 ? 1 : x;
            }
            if (cs->kind != OPTINC_STAGE_MESH)
                continue;
            double *k = cal->layer[l].kappa[s], *off = cal->layer[l].offset[s];
            measure_stream(&rp, seed, l, s, 1);
            for (int i = 0; i < 2 * cs->n_mzi; i++) {
                double x = k[i] + splitter_sigma * optinc_rng_normal(&rk);
                k[i] = x < 0 ? 0 : x > 1 ? 1 : x;
            }
            for (int i = 0; i < cs->n_mzi; i++) {
                off[2 * i] = cs->mzi[i].dtheta + phase_sigma_rad * optinc_rng_normal(&rp);
                off[2 * i + 1] = cs->mzi[i].dphi + phase_sigma_rad * optinc_rng_normal(&rp);
            }
            for (int r = 0; r < cs->modes_in; r++)
                off[2 * cs->n_mzi + r] = cs->screen_err[r]
                                         + phase_sigma_rad * optinc_rng_normal(&rp);
        }
    return OPTINC_OK;
}

/* The file's text, of a calibration already checked against c. */
static void put_calibration(FILE *f, const optinc_calibration *cal, const optinc_circuit *c)
{
    int v2 = cal->has_offsets;
    fprintf(f, "# optinc %s calibration, see optinc-calibration(5)\n"
                 "# circuit %s; coupling = 0.5 + delta%s\n"
                 "optinc-calibration %d\n"
                 "# layer mesh column mode delta_in delta_out%s\n",
            v2 ? "coupler and phase offset" : "coupler", c->name,
            v2 ? "; offsets in rad" : "", v2 ? 2 : 1, v2 ? " theta_offset phi_offset" : "");
    for (int l = 0; l < c->n_layers; l++) {
        const optinc_layer *L = &c->layers[l];
        for (int s = 0; s < L->n_stages; s++) {
            if (L->stage[s].kind != OPTINC_STAGE_MESH)
                continue;
            const optinc_mesh *mesh = L->stage[s].mesh;
            const double *k = cal->layer[l].kappa[s], *off = cal->layer[l].offset[s];
            for (int i = 0; i < mesh->n_mzi; i++) {
                fprintf(f, "%s %c %d %d %.17g %.17g", L->name, L->stage[s].tag,
                        mesh->mzi[i].column, mesh->mzi[i].mode, k[2 * i] - 0.5,
                        k[2 * i + 1] - 0.5);
                if (v2)
                    fprintf(f, " %.17g %.17g", off[2 * i], off[2 * i + 1]);
                fputc('\n', f);
            }
            for (int r = 0; v2 && r < mesh->modes; r++)
                fprintf(f, "%s %c screen %d %.17g\n", L->name, L->stage[s].tag, r,
                        off[2 * mesh->n_mzi + r]);
        }
        for (int s = 0; s < L->n_stages; s++) {
            int links = L->stage[s].fan - 1, taps = cal->layer[l].n_tap[s];
            for (int i = 0; i < taps; i++)
                fprintf(f, "%s %c tap %d %d %.17g\n", L->name, L->stage[s].tag, i / links,
                        i % links, cal->layer[l].tap[s][i]);
        }
    }
}

optinc_status optinc_calibration_add(optinc_outs *s, const optinc_calibration *cal,
                                     const optinc_circuit *c, const char *path,
                                     optinc_error *err)
{
    optinc_status st = optinc_calibration_check(cal, c, err);
    optinc_out o;
    if (st || (st = optinc_out_open(&o, path, err)))
        return st;
    put_calibration(o.f, cal, c);
    return optinc_outs_add(s, &o, err);
}

optinc_status optinc_calibration_write(const optinc_calibration *cal, const optinc_circuit *c,
                                       const char *path, optinc_error *err)
{
    optinc_outs one = {0};
    return optinc_outs_end(&one, optinc_calibration_add(&one, cal, c, path, err), err);
}

/* ------------------------------------------------------------------ reading */

typedef struct reader {
    const char *name;
    const optinc_circuit *c;
    optinc_calibration *cal;
    int **index;          /* per (layer, stage): column * modes + mode -> MZI, or -1 */
    int **seen;           /* per (layer, stage): line that set each MZI, then each screen
                             mode, or 0 */
    int version;          /* of the format line: 1 couplers, 2 also phase offsets */
    optinc_error *err;
} reader;

/* The reader's index and seen tables, one slot per (layer, stage). */
static int slot(int l, int s) { return l * OPTINC_STAGES_MAX + s; }

static optinc_status bad(reader *r, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static optinc_status bad(reader *r, int line, int col, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return optinc_fail(r->err, OPTINC_EINPUT, r->name, line, col, "%s", msg);
}

/* A phase offset in rad: any finite number, held to a few turns. */
static optinc_status read_offset(reader *r, const optinc_token *t, int line, double *out)
{
    if (optinc_token_double(t, out) || fabs(*out) > 100)
        return bad(r, line, t->col, "'%.*s' is not a phase offset: a number of radians, at "
                   "most 100 in magnitude", t->len, t->s);
    return OPTINC_OK;
}

/* 'LAYER MESH screen MODE OFFSET': the offset of one output-screen phase. */
static optinc_status read_screen(reader *r, const optinc_token *t, int line, int l, int s)
{
    const optinc_mesh *mesh = r->c->layers[l].stage[s].mesh;
    long mode;
    if (optinc_token_long(&t[3], &mode) || mode < 0 || mode >= mesh->modes)
        return bad(r, line, t[3].col, "the screen mode must be an integer from 0 to %d",
                   mesh->modes - 1);
    int *seen = &r->seen[slot(l, s)][mesh->n_mzi + mode];
    if (*seen)
        return bad(r, line, t[0].col, "this screen mode is already listed on line %d; list "
                   "each once", *seen);
    *seen = line;
    return read_offset(r, &t[4], line, &r->cal->layer[l].offset[s][2 * mesh->n_mzi + mode]);
}

/* 'LAYER STAGE tap CHAIN LINK TAP': the power tap of one fixed card of a
 * split (P) or comb (C) stage. */
static optinc_status read_tap(reader *r, const optinc_token *t, int n, int line, int l)
{
    const optinc_layer *L = &r->c->layers[l];
    if (n != 6)
        return bad(r, line, n > 6 ? t[6].col : 1, "expected 6 fields 'LAYER STAGE tap CHAIN "
                   "LINK TAP', found %d%s", n, n > 6 ? "; put comments after '#'" : "");
    int s = 0;
    while (s < L->n_stages && !(r->cal->layer[l].n_tap[s] && t[1].len == 1
                                && *t[1].s == L->stage[s].tag))
        s++;
    if (s == L->n_stages)
        return bad(r, line, t[1].col, "layer '%s' has no split or comb stage '%.*s' with "
                   "fixed cards; tap lines name the P or C stage of a segmented layer",
                   L->name, t[1].len, t[1].s);
    int links = L->stage[s].fan - 1, chains = r->cal->layer[l].n_tap[s] / links;
    long x, k;
    double tap;
    if (optinc_token_long(&t[3], &x) || x < 0 || x >= chains)
        return bad(r, line, t[3].col, "the chain must be an integer from 0 to %d", chains - 1);
    if (optinc_token_long(&t[4], &k) || k < 0 || k >= links)
        return bad(r, line, t[4].col, "the link must be an integer from 0 to %d (the chains "
                   "of stage %c have %d cards)", links - 1, L->stage[s].tag, links);
    if (optinc_token_double(&t[5], &tap) || !(tap >= 0 && tap <= 1))
        return bad(r, line, t[5].col, "'%.*s' is not a power tap: a number in [0, 1]",
                   t[5].len, t[5].s);
    int *seen = &r->seen[slot(l, s)][x * links + k];
    if (*seen)
        return bad(r, line, t[0].col, "this card is already listed on line %d; list each "
                   "once", *seen);
    *seen = line;
    r->cal->layer[l].tap[s][x * links + k] = tap;
    return OPTINC_OK;
}

static optinc_status read_entry(reader *r, const optinc_token *t, int n, int line)
{
    char name[OPTINC_NAME_MAX], what[160];
    int tapline = n >= 3 && optinc_token_is(&t[2], "tap");
    int screen = r->version == 2 && n >= 3 && optinc_token_is(&t[2], "screen");
    int want = screen ? 5 : r->version == 2 && n >= 8 ? 8 : 6;
    if (n != want && !tapline)
        return bad(r, line, n > want ? t[want].col : 1, "expected %d fields %s, found %d%s",
                   want, screen ? "'LAYER MESH screen MODE OFFSET'"
                   : r->version == 1 ? "'LAYER MESH COLUMN MODE DELTA_IN DELTA_OUT'"
                                     : "'LAYER MESH COLUMN MODE DELTA_IN DELTA_OUT "
                                       "[THETA_OFFSET PHI_OFFSET]'",
                   n, n > want ? "; put comments after '#'" : "");
    const optinc_circuit *c = r->c;
    int l = 0;
    if (optinc_token_cstr(&t[0], name, sizeof name))
        return bad(r, line, t[0].col, "'%.*s...' is longer than any layer name (at most %d "
                   "characters)", 16, t[0].s, OPTINC_NAME_MAX - 1);
    while (l < c->n_layers && strcmp(c->layers[l].name, name))
        l++;
    if (l == c->n_layers)
        return bad(r, line, t[0].col,
                   "no layer '%s' in circuit '%s'; the first field names a layer of the "
                   "circuit the calibration is for", name, c->name);
    if (tapline)
        return read_tap(r, t, n, line, l);
    const optinc_layer *L = &c->layers[l];
    int s = 0;
    while (s < L->n_stages
           && !(L->stage[s].kind == OPTINC_STAGE_MESH && t[1].len == 1 && *t[1].s == L->stage[s].tag))
        s++;
    if (s == L->n_stages) {
        int k = 0;
        for (int j = 0; j < L->n_stages; j++)
            if (L->stage[j].kind == OPTINC_STAGE_MESH)
                k += snprintf(what + k, sizeof what - (size_t)k, "%s%c", k ? ", " : "",
                              L->stage[j].tag);
        return bad(r, line, t[1].col, "layer '%s' has no such mesh; its meshes are %s", name,
                   what);
    }
    const optinc_mesh *mesh = L->stage[s].mesh;
    if (screen)
        return read_screen(r, t, line, l, s);
    long col, mode;
    if (optinc_token_long(&t[2], &col) || col < 0 || col >= mesh->n_columns)
        return bad(r, line, t[2].col, "the column must be an integer from 0 to %d (mesh %c "
                   "of layer '%s' has %d columns)", mesh->n_columns - 1, L->stage[s].tag, name,
                   mesh->n_columns);
    if (optinc_token_long(&t[3], &mode) || mode < 0 || mode >= mesh->modes - 1
        || r->index[slot(l, s)][col * mesh->modes + mode] < 0)
        return bad(r, line, t[3].col,
                   "no MZI of mesh %c of layer '%s' sits on modes (%.*s, %.*s+1) in column %ld; "
                   "the netlist's MZ_ instances name each MZI's column (c) and first mode (r)",
                   L->stage[s].tag, name, t[3].len, t[3].s, t[3].len, t[3].s, col);
    double d[2];
    for (int k = 0; k < 2; k++)
        if (optinc_token_double(&t[4 + k], &d[k]) || d[k] < -0.5 || d[k] > 0.5)
            return bad(r, line, t[4 + k].col,
                       "'%.*s' is not a number in [-0.5, 0.5]: the %s coupler's power "
                       "coupling is 0.5 + delta", t[4 + k].len, t[4 + k].s,
                       k ? "output" : "input");
    int i = r->index[slot(l, s)][col * mesh->modes + mode];
    int *seen = &r->seen[slot(l, s)][i];
    if (*seen)
        return bad(r, line, t[0].col, "this MZI is already listed on line %d; list each MZI "
                   "once", *seen);
    *seen = line;
    r->cal->layer[l].kappa[s][2 * i] = 0.5 + d[0];
    r->cal->layer[l].kappa[s][2 * i + 1] = 0.5 + d[1];
    for (int k = 0; n == 8 && k < 2; k++)
        if (read_offset(r, &t[6 + k], line, &r->cal->layer[l].offset[s][2 * i + k]))
            return OPTINC_EINPUT;
    return OPTINC_OK;
}

static optinc_status read_lines(reader *r, const optinc_input *in)
{
    optinc_lines lines;
    optinc_line l;
    optinc_token t[9];     /* the widest line (8 fields) and one more, to name the extra */
    int header = 0;
    optinc_status st = optinc_lines_init(&lines, in, "calibration file", r->err);
    while (!st && optinc_lines_next(&lines, &l)) {
        int n = optinc_tokens(&l, '#', t, 9);
        if (n == 0)
            continue;
        if (header)
            st = read_entry(r, t, n, l.number);
        else if (n == 2 && optinc_token_is(&t[0], "optinc-calibration")
                 && (optinc_token_is(&t[1], "1") || optinc_token_is(&t[1], "2"))) {
            header = 1;
            r->version = *t[1].s - '0';
            r->cal->has_offsets = r->version == 2;
        } else
            st = bad(r, l.number, t[0].col, "the first line must be 'optinc-calibration 1' "
                     "(format version 1) or 'optinc-calibration 2' (with phase offsets)");
    }
    if (!st && !header)
        st = bad(r, lines.number + 1, 1, "no 'optinc-calibration 1' line: the file is empty");
    return st;
}

/* The MZI index of every (layer, mesh stage): which MZI sits at each column
 * and first mode, and the line that listed it. */
static optinc_status reader_index(reader *r)
{
    const optinc_circuit *c = r->c;
    for (int l = 0; l < c->n_layers; l++)
        for (int s = 0; s < c->layers[l].n_stages; s++) {
            const optinc_mesh *mesh = c->layers[l].stage[s].mesh;
            int taps = r->cal->layer[l].n_tap[s];
            if (taps && !(r->seen[slot(l, s)] = calloc((size_t)taps, sizeof(int))))
                return optinc_fail(r->err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
            if (c->layers[l].stage[s].kind != OPTINC_STAGE_MESH)
                continue;
            size_t cells = (size_t)mesh->n_columns * (size_t)mesh->modes;
            int *ix = r->index[slot(l, s)] = malloc(sizeof *ix * (cells + 1));
            r->seen[slot(l, s)] = calloc((size_t)mesh->n_mzi + (size_t)mesh->modes + 1,
                                         sizeof(int));
            if (!ix || !r->seen[slot(l, s)])
                return optinc_fail(r->err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
            for (size_t k = 0; k < cells; k++)
                ix[k] = -1;
            for (int i = 0; i < mesh->n_mzi; i++)
                ix[(size_t)mesh->mzi[i].column * mesh->modes + mesh->mzi[i].mode] = i;
        }
    return OPTINC_OK;
}

optinc_status optinc_calibration_parse(const optinc_input *in, const optinc_circuit *c,
                                       optinc_calibration **out, optinc_error *err)
{
    size_t slots = (size_t)slot(c->n_layers, 0);
    reader r = {in->name, c, cal_new(c), calloc(slots + 1, sizeof(int *)),
                calloc(slots + 1, sizeof(int *)), 1, err};
    *out = NULL;
    optinc_status st = r.cal && r.index && r.seen ? reader_index(&r)
                                                 : optinc_fail(err, OPTINC_ERUN, NULL, 0, 0,
                                                               "out of memory");
    if (!st)
        st = read_lines(&r, in);
    for (size_t k = 0; k < slots; k++) {
        if (r.index)
            free(r.index[k]);
        if (r.seen)
            free(r.seen[k]);
    }
    free(r.index);
    free(r.seen);
    if (st) {
        optinc_calibration_free(r.cal);
        return st;
    }
    *out = r.cal;
    return OPTINC_OK;
}

/* What optinc_calibration_read hands optinc_read_whole. */
typedef struct calibration_job {
    const optinc_circuit *circuit;
    optinc_calibration **out;
} calibration_job;

static optinc_status parse_job(const optinc_input *in, const optinc_read_opts *opts, void *arg,
                               optinc_error *err)
{
    calibration_job *job = arg;
    return optinc_calibration_parse(in, job->circuit, job->out, err);
}

optinc_status optinc_calibration_read(const char *path, const optinc_circuit *c,
                                      const optinc_read_opts *opts, optinc_calibration **out,
                                      optinc_error *err)
{
    long n_mzi = 0;
    for (int l = 0; l < c->n_layers; l++)
        n_mzi += optinc_layer_mzis(&c->layers[l]);
    calibration_job job = {c, out};
    *out = NULL;
    return optinc_read_whole(path, CALIBRATION_BYTES(n_mzi), opts, "calibration file",
                             parse_job, &job, err);
}

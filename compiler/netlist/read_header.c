/*
 * read_header.c - the `*!` header lines of a netlist into the circuit: the
 * spec reference, the circuit's seed and wavelength, per layer its shape,
 * gain, mesh kind, attenuator position, activation and device parameters
 * (the field table of netlist_dialect.c), and the ONN record; each value is
 * checked against the range the spec loader allows, so a netlist cannot
 * carry what a spec could not.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include "compiler/netlist/read.h"
#include "optinc/fileio.h"

/* The key=value tokens of a header line's REST, into r->toks (appended;
 * the caller drops them again). */
static int meta_tokens(reader *r, const meta *m, size_t *first, size_t *n)
{
    *first = r->ntoks;
    long k = nl_tokenize(r, m->file, m->rest.off, m->rest.off + m->rest.len);
    if (k < 0)
        return -1;
    *n = (size_t)k;
    for (size_t i = *first; i < r->ntoks; i++) {
        tok kk = {0, 0, 0, 0}, v = {0, 0, 0, 0};
        if (!nl_split_param(r, m->file, r->toks[i], &kk, &v))
            return nl_fail_at(r, m->file, r->toks[i].off, "expected key=value in this *! header "
                              "line, found '%.*s'",
                              (int)(r->toks[i].len > 60 ? 60 : r->toks[i].len),
                              tp(r, m->file, r->toks[i]));
        for (size_t j = *first; j < i; j++) {
            tok kj = {0, 0, 0, 0}, vj = {0, 0, 0, 0};
            nl_split_param(r, m->file, r->toks[j], &kj, &vj);
            if (kj.len == kk.len && !memcmp(tp(r, m->file, kj), tp(r, m->file, kk), kk.len))
                return nl_fail_at(r, m->file, kk.off, "'%.*s' is given twice in this *! header "
                                  "line", (int)kk.len, tp(r, m->file, kk));
        }
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
    return nl_fail_at(r, file, v.off, "%s '%.*s' is not one of %s", what, (int)v.len,
                      tp(r, file, v), list);
}

/* A number in the interval from lo to hi, each bound excluded when its
 * *_open flag is set (the spec's ranges: wavelength > 0, crosstalk < 0.5).
 * The bounds are said exactly (2 pi as 6.283185307179586, not 6.28319), so
 * the bound a message gives is a value the reader takes. */
static int number_in(reader *r, int file, tok v, double lo, int lo_open, double hi, int hi_open,
                     const char *key, double *out)
{
    char l[OPTINC_SHORTEST_MAX], h[OPTINC_SHORTEST_MAX];
    if (nl_value_of(r, file, v, NULL, out))
        return -1;
    if (*out < lo || *out > hi || (lo_open && *out == lo) || (hi_open && *out == hi))
        return nl_fail_at(r, file, v.off, "%s = %.17g is out of range %c%s, %s%c", key, *out,
                          lo_open ? '(' : '[', optinc_shortest(l, lo), optinc_shortest(h, hi),
                          hi_open || isinf(hi) ? ')' : ']');
    return 0;
}

static int unknown_key(reader *r, int file, tok k, const char *line, const char *keys)
{
    return nl_fail_at(r, file, k.off, "unknown key '%.*s' in the %s header line; it takes: %s",
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
        tok k = {0, 0, 0, 0}, v = {0, 0, 0, 0};
        nl_split_param(r, file, r->toks[i], &k, &v);
        long long x;
        double d;
        int w;
        if (teq(r, file, k, "rows") || teq(r, file, k, "cols")) {
            if (nl_int_value(r, file, v, 1, INT_MAX, &x))
                return -1;
            if (x > optinc_limits_get(r->lim, OPTINC_LIMIT_MODES)) {
                char lim[160];
                return nl_fail_at(r, file, v.off, "layer '%s' has %lld %s, more modes than %s",
                                  L->name, x, teq(r, file, k, "rows") ? "rows" : "columns",
                                  optinc_limits_text(r->lim, OPTINC_LIMIT_MODES, lim, sizeof lim));
            }
            *(teq(r, file, k, "rows") ? &L->rows : &L->cols) = (int)x;
            seen |= teq(r, file, k, "rows") ? 1 : 2;
        } else if (teq(r, file, k, "gain")) {
            if (number_in(r, file, v, 1e-300, 0, INFINITY, 0, "gain", &L->gain))
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
            if (number_in(r, file, v, 0, 0, INFINITY, 0, "approximation_error", &d))
                return -1;
            L->approximation_error = d;
        } else if (teq(r, file, k, "attenuators_capped")) {
            if (nl_int_value(r, file, v, 0, INT_MAX, &x))
                return -1;
            L->n_warnings_capped = (int)x;
        } else {
            return unknown_key(r, file, k, "layer", "rows cols gain mesh attenuators activation "
                               "approximation_error attenuators_capped");
        }
    }
    r->ntoks = first;
    if (seen != 7)
        return nl_fail_at(r, file, m->key.off, "the header line of layer '%s' needs rows=, cols= "
                          "and gain=", L->name);
    return 0;
}

/* *! layer.NAME.segments = rows=R cols=G [pass_through=K]: the layer's grid
 * of blocks (optinc-netlist(5)); it must divide the layer, less its last K
 * rows and columns, into blocks of no more rows than columns, each a mesh
 * and its attenuators (attenuators=output). */
static int meta_segments(reader *r, const meta *m, optinc_layer *L)
{
    static const char *const keys[] = {"rows", "cols", "pass_through"};
    size_t first, n;
    int file = m->file, seen = 0;
    if (meta_tokens(r, m, &first, &n))
        return -1;
    for (size_t i = first; i < first + n; i++) {
        tok k = {0, 0, 0, 0}, v = {0, 0, 0, 0};
        long long x;
        int j = 0;
        nl_split_param(r, file, r->toks[i], &k, &v);
        while (j < 3 && !teq(r, file, k, keys[j]))
            j++;
        if (j == 3)
            return unknown_key(r, file, k, "segments", "rows cols pass_through");
        if (nl_int_value(r, file, v, j == 2 ? 0 : 1, 65536, &x))
            return -1;
        *(j == 0 ? &L->seg_rows : j == 1 ? &L->seg_cols : &L->pass_through) = (int)x;
        seen |= 1 << j;
    }
    r->ntoks = first;
    int K = L->pass_through, rows = L->rows - K, cols = L->cols - K;
    char less[48] = "";
    if (K)
        snprintf(less, sizeof less, " less %d pass-through mode%s", K, K == 1 ? "" : "s");
    if ((seen & 3) != 3 || rows < 1 || cols < 1 || rows % L->seg_rows || cols % L->seg_cols
        || rows / L->seg_rows > cols / L->seg_cols || L->attenuators != OPTINC_ATT_OUTPUT)
        return nl_fail_at(r, file, m->key.off, "the segments of layer '%s' (%dx%d%s, "
                          "attenuators=%s) need rows=R cols=G dividing it into blocks of no "
                          "more rows than columns, and attenuators=output", L->name, L->rows,
                          L->cols, less,
                          optinc_att_position_names[L->attenuators]);
    return 0;
}

/* *! layer.NAME.input_scale = in0=D0 in1=D1 ...: the drive amplitude of
 * each input of a segmented layer's grid, all of them, each once (checked
 * against the grid in check_input_scale when the header is read). */
static int meta_input_scale(reader *r, const meta *m, optinc_layer *L)
{
    size_t first, n;
    int file = m->file;
    if (meta_tokens(r, m, &first, &n))
        return -1;
    if (!L->input_scale && !(L->input_scale = calloc((size_t)L->cols + 1,
                                                     sizeof *L->input_scale)))
        return nl_fail_run(r, "reading the header");
    for (size_t i = first; i < first + n; i++) {
        tok k = {0, 0, 0, 0}, v = {0, 0, 0, 0};
        long long x;
        nl_split_param(r, file, r->toks[i], &k, &v);
        tok digits = {k.off + 2, k.len - 2, 0, 0};
        if (k.len < 3 || memcmp(tp(r, file, k), "in", 2)
            || nl_int_value(r, file, digits, 0, L->cols - 1, &x))
            return nl_fail_at(r, file, k.off, "key '%.*s' of the input_scale line of layer '%s' "
                              "must be an input in0..in%d", (int)k.len, tp(r, file, k), L->name,
                              L->cols - 1);
        if (L->input_scale[x] > 0)
            return nl_fail_at(r, file, k.off, "in%lld is given twice in the input_scale line of "
                              "layer '%s'", x, L->name);
        if (number_in(r, file, v, OPTINC_INPUT_SCALE_MIN, 0, OPTINC_INPUT_SCALE_MAX, 0,
                      "input_scale", &L->input_scale[x]))
            return -1;
    }
    r->ntoks = first;
    return 0;
}

/* An input_scale line belongs to a segmented layer and names each input of
 * its grid (not the pass-through modes), once. */
static int check_input_scale(reader *r, const meta *m, const optinc_layer *L)
{
    int cols = L->cols - L->pass_through, given = 0;
    for (int k = 0; k < L->cols; k++)
        given += L->input_scale[k] > 0 && k < cols;
    if (L->seg_rows && given == cols)
        for (int k = cols; k < L->cols; k++)
            if (L->input_scale[k] > 0)
                given = -1;
    if (L->seg_rows && given == cols)
        return 0;
    return nl_fail_at(r, m->file, m->key.off, "the input_scale of layer '%s' must give in0..in%d, "
                      "the inputs of its segments (a '*! layer.%s.segments' line), each once",
                      L->name, cols - 1, L->name);
}

/* *! layer.NAME.SECTION = key=value ... (optinc_component_fields) */
static int meta_section(reader *r, const meta *m, tok section, optinc_layer *L)
{
    int file = m->file, any = 0;
    char keys[256] = "";
    for (int f = 0; f < optinc_component_n_fields; f++)
        if (teq(r, file, section, optinc_component_fields[f].section)) {
            any = 1;
            snprintf(keys + strlen(keys), sizeof keys - strlen(keys), " %s",
                     optinc_component_fields[f].key);
        }
    if (!any) {
        const optinc_component_field *fs = optinc_component_fields;
        char sections[256] = "";
        for (int f = 0; f < optinc_component_n_fields; f++)
            if (!f || strcmp(fs[f].section, fs[f - 1].section))
                snprintf(sections + strlen(sections), sizeof sections - strlen(sections), "%s%s",
                         f ? ", " : "", fs[f].section);
        return nl_fail_at(r, file, section.off, "unknown device section '%.*s'; the sections are "
                          "%s", (int)section.len, tp(r, file, section), sections);
    }
    size_t first, n;
    if (meta_tokens(r, m, &first, &n))
        return -1;
    for (size_t i = first; i < first + n; i++) {
        tok k = {0, 0, 0, 0}, v = {0, 0, 0, 0};
        nl_split_param(r, file, r->toks[i], &k, &v);
        int f = 0;
        while (f < optinc_component_n_fields
               && !(teq(r, file, section, optinc_component_fields[f].section)
                    && teq(r, file, k, optinc_component_fields[f].key)))
            f++;
        if (f == optinc_component_n_fields)
            return unknown_key(r, file, k, "device", keys + 1);
        const optinc_component_field *fd = &optinc_component_fields[f];
        char *at = (char *)&L->components + fd->offset;
        if (fd->type == 'i') {
            long long x;
            if (nl_int_value(r, file, v, (long long)fd->min, (long long)fd->max, &x))
                return -1;
            *(int *)at = (int)x;
        } else if (number_in(r, file, v, fd->min, fd->min_open, fd->max, fd->max_open, fd->key,
                             (double *)at)) {
            return -1;
        }
    }
    r->ntoks = first;
    char why[400];
    if (teq(r, file, section, "phase_shifter")
        && optinc_phase_range_problem(&L->components, why, sizeof why))
        return nl_fail_at(r, file, section.off, "the range range_lo_rad..range_hi_rad of layer "
                          "'%s' %s", L->name, why);
    if (teq(r, file, section, "attenuator")
        && optinc_att_range_problem(&L->components, why, sizeof why))
        return nl_fail_at(r, file, section.off, "max_attenuation_dB of layer '%s' %s", L->name,
                          why);
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
        tok k = {0, 0, 0, 0}, v = {0, 0, 0, 0};
        nl_split_param(r, file, r->toks[i], &k, &v);
        char hex[80];
        if (is_spec && teq(r, file, k, "path")) {
            if (nl_unquote(r, file, v, c->spec_path, sizeof c->spec_path, "path"))
                return -1;
        } else if (is_spec && teq(r, file, k, "sha256")) {
            if (nl_unquote(r, file, v, hex, sizeof hex, "sha256"))
                return -1;
            for (int b = 0; b < 32; b++) {
                unsigned x;
                if (strlen(hex) != 64 || sscanf(hex + 2 * b, "%2x", &x) != 1
                    || !strchr("0123456789abcdef", hex[2 * b])
                    || !strchr("0123456789abcdef", hex[2 * b + 1]))
                    return nl_fail_at(r, file, v.off, "sha256 must be 64 lowercase hex digits");
                c->spec_sha256[b] = (uint8_t)x;
            }
        } else if (!is_spec && teq(r, file, k, "seed")) {
            const char *p = tp(r, file, v);
            char tmp[32];
            if (!v.len || v.len > 20 || p[0] < '0' || p[0] > '9')
                return nl_fail_at(r, file, v.off, "seed must be a whole number 0..2^64-1");
            memcpy(tmp, p, v.len);
            tmp[v.len] = '\0';
            char *end;
            errno = 0;
            unsigned long long x = strtoull(tmp, &end, 10);
            if (errno || *end)
                return nl_fail_at(r, file, v.off, "seed must be a whole number 0..2^64-1");
            c->seed = x;
        } else if (!is_spec && teq(r, file, k, "wavelength_um")) {
            if (number_in(r, file, v, 0, 1, INFINITY, 0, "wavelength_um", &c->wavelength_um))
                return -1;
        } else {
            return unknown_key(r, file, k, is_spec ? "spec" : "circuit",
                               is_spec ? "path sha256" : "seed wavelength_um");
        }
    }
    r->ntoks = first;
    return 0;
}

/* segments=R0xC0,R1xC1,...: one shape per layer, 0..65536 each. */
static int onn_segments(reader *r, int file, tok v, optinc_circuit_onn *o, int n_layers)
{
    const char *p = tp(r, file, v), *end = p + v.len;
    int count = 0;
    for (;;) {
        long x[2];
        for (int j = 0; j < 2; j++) {
            const char *q = p;
            for (x[j] = 0; p < end && *p >= '0' && *p <= '9' && x[j] <= 65536; p++)
                x[j] = 10 * x[j] + (*p - '0');
            if (p == q || x[j] > 65536 || (j == 0 && (p == end || *p++ != 'x')))
                goto bad;
        }
        if (count < OPTINC_ONN_SEGMENTS_MAX) {
            o->segments[2 * count] = (int)x[0];
            o->segments[2 * count + 1] = (int)x[1];
        }
        count++;
        if (p == end)
            break;
        if (*p++ != ',')
            goto bad;
    }
    if (count != n_layers)
        return nl_fail_at(r, file, v.off, "segments lists %d shape%s but the netlist has %d "
                          "layer%s; give one per layer", count, count == 1 ? "" : "s",
                          n_layers, n_layers == 1 ? "" : "s");
    o->n_segments = count;
    return 0;
bad:
    return nl_fail_at(r, file, v.off, "segments must be one ROWSxCOLS shape per layer "
                      "(0..65536 each, 0x0 for a dense layer), separated by ',', as in "
                      "segments=5x5,4x4");
}

/* *! onn = KEY=VALUE ... (nl_onn_keys) [segments=..] */
static int meta_onn(reader *r, const meta *m, optinc_circuit *c)
{
    size_t first, n;
    if (meta_tokens(r, m, &first, &n))
        return -1;
    int file = m->file;
    optinc_circuit_onn *o = &c->onn;
    char keys[256] = "";
    for (int j = 0; j < nl_n_onn_keys; j++) {
        const onn_key *ok = &nl_onn_keys[j];
        char *at = (char *)o + ok->offset;
        if (ok->words)
            snprintf(at, OPTINC_ONN_WORD_MAX, "%s", ok->words[ok->dflt]);
        else
            *(int *)at = ok->dflt;
        snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s ", ok->key);
    }
    if (c->n_layers > OPTINC_ONN_SEGMENTS_MAX)
        return nl_fail_at(r, file, m->key.off, "an ONN has at most %d layers, but this netlist "
                          "has %d; drop the '*! onn' line or the extra layers",
                          OPTINC_ONN_SEGMENTS_MAX, c->n_layers);
    for (size_t i = first; i < first + n; i++) {
        tok k = {0, 0, 0, 0}, v = {0, 0, 0, 0};
        nl_split_param(r, file, r->toks[i], &k, &v);
        int j = 0;
        while (j < nl_n_onn_keys && !teq(r, file, k, nl_onn_keys[j].key))
            j++;
        if (j == nl_n_onn_keys && teq(r, file, k, "segments")) {
            if (onn_segments(r, file, v, o, c->n_layers))
                return -1;
            continue;
        }
        if (j == nl_n_onn_keys)
            return unknown_key(r, file, k, "onn", strcat(keys, "segments"));
        const onn_key *ok = &nl_onn_keys[j];
        char *at = (char *)o + ok->offset;
        long long x;
        int w;
        if (ok->words) {
            if ((w = word_of(r, file, v, ok->words, ok->key)) < 0)
                return -1;
            snprintf(at, OPTINC_ONN_WORD_MAX, "%s", ok->words[w]);
        } else {
            if (nl_int_value(r, file, v, ok->min, ok->max, &x))
                return -1;
            *(int *)at = (int)x;
        }
    }
    r->ntoks = first;
    if (!o->servers || !o->gradient_bits)
        return nl_fail_at(r, file, m->key.off, "the '*! onn' header line needs servers= and "
                          "gradient_bits=");
    if (o->gradient_bits % 2)
        return nl_fail_at(r, file, m->key.off, "gradient_bits=%d is odd; PAM4 carries 2 bits "
                          "per symbol, so an ONN takes an even width", o->gradient_bits);
    if (!o->cascade_fan_in)
        o->cascade_fan_in = o->servers;
    double served = pow(o->cascade_fan_in, o->cascade_levels);
    if (served != o->servers)
        return nl_fail_at(r, file, m->key.off, "a cascade of %d level%s with fan_in %d serves "
                          "%.0f servers, not servers=%d; make cascade_fan_in^cascade_levels "
                          "equal servers", o->cascade_levels, o->cascade_levels == 1 ? "" : "s",
                          o->cascade_fan_in, served, o->servers);
    o->present = 1;
    return 0;
}

/* Reads every known `*! KEY` line into c: layers in the order of their
 * `*! layer.NAME` lines, then their device sections and the ONN line. */
int nl_header(reader *r, optinc_circuit *c, layer_meta *lm)
{
    int nl = 0, spec = -1, circ = -1, onn = -1;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < r->nmetas; i++) {
            const meta *m = &r->metas[i];
            const char *k = tp(r, m->file, m->key);
            int klen = (int)m->key.len;
            if (pass == 0
                && (teq(r, m->file, m->key, "spec") || teq(r, m->file, m->key, "circuit"))) {
                int *seen = k[0] == 's' ? &spec : &circ;
                if (*seen >= 0)
                    return nl_fail_at(r, m->file, m->key.off, "a second '*! %.*s' header line",
                                      klen, k);
                *seen = i;
                if (meta_circuit(r, m, k[0] == 's', c))
                    return -1;
                continue;
            }
            if (pass == 1 && teq(r, m->file, m->key, "onn")) {
                if (onn >= 0)
                    return nl_fail_at(r, m->file, m->key.off, "a second '*! onn' header line");
                onn = i;
                if (meta_onn(r, m, c))
                    return -1;
                continue;
            }
            if (klen < 7 || strncmp(k, "layer.", 6))
                continue;
            const char *dot = memchr(k + 6, '.', (size_t)klen - 6);
            tok name = {m->key.off + 6, (uint32_t)((dot ? dot - k : klen) - 6), 0, 0};
            if (pass == 0 && !dot) {
                if (nl_need_name(r, m->file, name, "layer"))
                    return -1;
                if (name.len >= OPTINC_NAME_MAX)
                    return nl_fail_at(r, m->file, name.off, "layer name longer than %d characters",
                                      OPTINC_NAME_MAX - 1);
                for (int j = 0; j < nl; j++)
                    if (!strncmp(lm[j].L->name, k + 6, name.len) && !lm[j].L->name[name.len])
                        return nl_fail_at(r, m->file, name.off, "a second header line for layer "
                                          "'%.*s'", (int)name.len, k + 6);
                optinc_layer *L = &c->layers[nl];
                memcpy(L->name, k + 6, name.len);
                L->name[name.len] = '\0';
                if (m->file == 0)   /* a position in an included file would name the wrong one */
                    nl_position(r, 0, name.off, &L->line, &L->column);
                optinc_components_defaults(&L->components);
                L->reconstruction_error = -1;
                lm[nl] = (layer_meta){.meta = i, .L = L};
                if (meta_layer(r, m, L))
                    return -1;
                nl++;
            } else if (pass == 1 && dot) {
                int j = 0;
                while (j < nl && !(!strncmp(lm[j].L->name, k + 6, name.len)
                                   && !lm[j].L->name[name.len]))
                    j++;
                if (j == nl)
                    return nl_fail_at(r, m->file, name.off, "device section for layer '%.*s', "
                                      "which has no '*! layer.%.*s = ...' line", (int)name.len,
                                      k + 6, (int)name.len, k + 6);
                for (int e = 0; e < i; e++)
                    if (r->metas[e].key.len == m->key.len
                        && !memcmp(tp(r, r->metas[e].file, r->metas[e].key), k, (size_t)klen))
                        return nl_fail_at(r, m->file, m->key.off, "a second '*! %.*s' header "
                                          "line; give each device section of a layer once",
                                          klen, k);
                tok section = {name.off + name.len + 1, m->key.len - 7 - name.len, 0, 0};
                int bad = teq(r, m->file, section, "segments") ? meta_segments(r, m, lm[j].L)
                          : teq(r, m->file, section, "input_scale")
                              ? meta_input_scale(r, m, lm[j].L)
                              : meta_section(r, m, section, lm[j].L);
                if (bad)
                    return -1;
                if (teq(r, m->file, section, "input_scale"))
                    lm[j].scale_meta = i;
            }
        }
    /* A dense layer with its attenuators beside one mesh is square. */
    for (int j = 0; j < nl; j++) {
        const optinc_layer *L = lm[j].L;
        if (L->input_scale && check_input_scale(r, &r->metas[lm[j].scale_meta], L))
            return -1;
        if (L->attenuators != OPTINC_ATT_MIDDLE && !L->seg_rows && L->rows != L->cols)
            return nl_fail_at(r, r->metas[lm[j].meta].file, r->metas[lm[j].meta].key.off,
                              "layer '%s' is %dx%d but attenuators=%s needs a square layer",
                              L->name, L->rows, L->cols,
                              optinc_att_position_names[L->attenuators]);
    }
    return 0;
}


/*
 * spec_layers.c - the layers:, connections:, ports: and outputs: sections of
 * a spec (optinc-spec(5)).
 *
 * Layers are wired in file order, so each layer's matrix must take as many
 * inputs as the layer before it gives outputs.  A layer starts from the
 * global settings and components table and overrides what it gives.  The
 * cards the layers would compile to are counted as they are read, against
 * the OPTINC_MAX_CARDS limit, before anything is decomposed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/spec/spec_internal.h"
#include "optinc/fileio.h"

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
    return optinc_spec_fail(c, v, "%s uses matrix '%s', which is not defined under 'matrices'; "
                            "define it there%s%s", what, scalar_of(v),
                            len ? " or use one of: " : "", list);
}

/* Adds the cards layer L compiles to (a mesh of n modes is n(n-1)/2 MZIs and n
 * phase shifters; an attenuator column one card per channel) to the
 * circuit's count, which must stay within the limit; v is the matrix node. */
static optinc_status count_cards(ctx *c, yaml_node_t *v, const optinc_spec_layer *L)
{
    const optinc_spec_matrix *m = &c->spec->matrices[L->matrix];
    long long r = m->rows, k = m->cols, n = r > k ? r : k;
    if (L->segments[0] > 0) {
        long long K = L->pass_through, R = L->segments[0], G = L->segments[1];
        long long bc = (k - K) / G;
        c->cards += R * G * (bc * (bc + 1) / 2 + bc) + (k - K) * (R - 1) + (r - K) * (G - 1)
                    + K;
    } else if (L->attenuators == OPTINC_ATT_MIDDLE)
        c->cards += r * (r + 1) / 2 + k * (k + 1) / 2 + (r < k ? r : k);
    else
        c->cards += n * (n + 1) / 2 + (L->attenuators == OPTINC_ATT_NONE ? 0 : n);
    if (c->cards <= optinc_limits_get(c->lim, OPTINC_LIMIT_CARDS))
        return OPTINC_OK;
    char lim[160];
    return optinc_spec_fail(c, v, "with layer '%s' the circuit would have %lld cards (MZIs, "
                            "phase shifters and attenuators), more than %s; or split the "
                            "network over several specs", L->name, c->cards,
                            optinc_limits_text(c->lim, OPTINC_LIMIT_CARDS, lim, sizeof lim));
}

/* input_scale: [d_0, ...] of a segmented layer: one positive number per
 * input of its grid, the amplitude the modulators that put the inputs on
 * light give each (electronic, like the gain), so that W' = W''.diag(d)
 * with the grid on W'' (each within OPTINC_INPUT_SCALE_MIN.._MAX). */
static optinc_status parse_input_scale(ctx *c, yaml_node_t *n, const char *what,
                                       optinc_spec_layer *L, int cols)
{
    char buf[80];
    yaml_node_t *v = optinc_spec_get(c, n, "input_scale");
    if (!v)
        return OPTINC_OK;
    if (v->type != YAML_SEQUENCE_NODE || seq_len(v) != cols)
        return optinc_spec_fail(c, v, "'input_scale' of %s must be a list of %d positive "
                                "numbers, one per input of its segments, not %s", what, cols,
                                optinc_spec_describe(v, buf, sizeof buf));
    if (!(L->input_scale = calloc((size_t)cols, sizeof *L->input_scale)))
        return optinc_fail(c->err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    for (int k = 0; k < cols; k++) {
        yaml_node_t *x = seq_item(c, v, k);
        optinc_status st = optinc_spec_number(c, x, "input_scale", what, &L->input_scale[k]);
        if (!st && !(L->input_scale[k] >= OPTINC_INPUT_SCALE_MIN &&
                     L->input_scale[k] <= OPTINC_INPUT_SCALE_MAX))
            st = optinc_spec_fail(c, x, "entry %d of 'input_scale' in %s is %s; an amplitude "
                                  "scale must lie in [1e-6, 1e6], a modulator's whole range "
                                  "and more", k + 1, what, scalar_of(x));
        if (st)
            return st;
    }
    return OPTINC_OK;
}

/* segments: [R, G] cuts the layer's matrix into an R x G grid of blocks,
 * each diag(t).Q on one mesh of the block's columns (circuit.h), so the
 * grid must divide the matrix and a block have no more rows than columns.
 * pass_through: K takes the last K modes out of the grid: they are
 * waveguides, so the matrix must be [W' 0; 0 I] with the grid on W'. */
static optinc_status parse_segments(ctx *c, yaml_node_t *n, const char *what,
                                    optinc_spec_layer *L)
{
    static const field fields[] = {{"pass_through", 'i', offsetof(optinc_spec_layer,
                                    pass_through), 0, OPTINC_MATRIX_DIM_MAX, 0, 0, NULL},
                                   FIELDS_END};
    yaml_node_t *v = optinc_spec_get(c, n, "segments"), *pass = optinc_spec_get(c, n,
                                                                                "pass_through");
    yaml_node_t *scale = optinc_spec_get(c, n, "input_scale");
    int count = 0;
    optinc_status st;
    if ((pass || scale) && !v)
        return optinc_spec_fail(c, pass ? pass : scale, "'%s' of %s needs 'segments': only a "
                                "segmented layer has it; add 'segments: [R, G]' or remove '%s'",
                                pass ? "pass_through" : "input_scale", what,
                                pass ? "pass_through" : "input_scale");
    if (!v)
        return OPTINC_OK;
    if ((st = optinc_spec_read_int_list(c, v, "segments", what, 1, OPTINC_MATRIX_DIM_MAX,
                                        L->segments, 2, &count)) ||
        (st = optinc_spec_read_fields(c, n, what, fields, L)))
        return st;
    const optinc_spec_matrix *m = &c->spec->matrices[L->matrix];
    int K = L->pass_through, rows = m->rows - K, cols = m->cols - K;
    if (K >= m->rows || K >= m->cols)
        return optinc_spec_fail(c, pass, "'pass_through' of %s is %d, but its matrix is %d x %d; "
                                "at least one row and one column must stay in the segments",
                                what, K, m->rows, m->cols);
    int R = L->segments[0], G = count == 2 ? L->segments[1] : 0;
    if (count != 2 || rows % R || cols % G || rows / R > cols / G)
        return optinc_spec_fail(c, v, "'segments' of %s must be [R, G], a grid of R x G blocks "
                                "that divides its %d x %d matrix%s into blocks with no more rows "
                                "than columns (rows/R <= cols/G)", what, rows, cols,
                                K ? " (without the pass-through modes)" : "");
    for (int i = 0; i < m->rows; i++)
        for (int j = i < rows ? cols : 0; j < m->cols; j++) {
            double complex want = i >= rows && j - cols == i - rows;
            double complex w = m->data[(size_t)i * m->cols + j];
            if (w != want)
                return optinc_spec_fail(c, pass, "%s passes its last %d modes through, but "
                                        "matrix '%s' has %.17g%+.17gi at row %d, column %d "
                                        "where a waveguide gives %g; the last %d rows and "
                                        "columns must be 0 but for 1 on their diagonal",
                                        what, K, m->name, creal(w), cimag(w), i + 1, j + 1,
                                        creal(want), K);
        }
    L->attenuators = OPTINC_ATT_OUTPUT;     /* every block is diag(t).Q: mesh, attenuators */
    return parse_input_scale(c, n, what, L, cols);
}

/* A layer's matrix must take what the layer before it gives. */
static optinc_status check_widths(ctx *c, yaml_node_t *v, const char *what, int index)
{
    const optinc_spec *s = c->spec;
    const optinc_spec_layer *before = &s->layers[index - 1];
    const optinc_spec_matrix *prev = &s->matrices[before->matrix];
    const optinc_spec_matrix *cur = &s->matrices[s->layers[index].matrix];
    if (cur->cols == prev->rows)
        return OPTINC_OK;
    return optinc_spec_fail(c, v, "%s takes %d inputs (matrix '%s' is %d x %d) but layer '%s' "
                            "before it gives %d outputs (matrix '%s' is %d x %d); layers are "
                            "wired in order, so the widths must match", what, cur->cols,
                            cur->name, cur->rows, cur->cols, before->name, prev->rows,
                            prev->name, prev->rows, prev->cols);
}

static optinc_status parse_layer(ctx *c, yaml_node_t *n, int index)
{
    static const char *const keys[] = {"name", "matrix", "mesh", "attenuators", "gain",
                                       "activation", "components", "segments", "pass_through",
                                       "input_scale", NULL};
    static const field fields[] = {{"gain", 'd', offsetof(optinc_spec_layer, gain), 0,
                                    INFINITY, 0, 0, "(0 = the largest singular value)"},
                                   FIELDS_END};
    optinc_spec *s = c->spec;
    optinc_spec_layer *L = &s->layers[index];
    char what[128], owner[144];
    yaml_node_t *v, *name = optinc_spec_get(c, n, "name");
    if (name && name->type == YAML_SCALAR_NODE && optinc_spec_is_ident(scalar_of(name)))
        snprintf(what, sizeof what, "layer '%s'", scalar_of(name));
    else
        snprintf(what, sizeof what, "layer %d", index + 1);
    optinc_status st;
    if ((st = optinc_spec_check_map(c, n, what, keys)) ||
        (st = optinc_spec_require(c, n, "name", what, "add 'name: L1' (an identifier)", &name)) ||
        (st = optinc_spec_ident(c, name, "name", what, L->name)))
        return st;
    for (int i = 0; i < index; i++)
        if (!strcmp(s->layers[i].name, L->name))
            return optinc_spec_fail(c, name, "layer name '%s' is already used by layer %d (line "
                                    "%d); give every layer its own name", L->name, i + 1,
                                    s->layers[i].line);
    L->line = (int)n->start_mark.line + 1;
    L->column = (int)n->start_mark.column + 1;
    if ((st = optinc_spec_require(c, n, "matrix", what, "add 'matrix: NAME' naming one of the "
                                  "matrices", &v)) ||
        (st = optinc_spec_want_scalar(c, v, "matrix", what, "a matrix name")))
        return st;
    if ((L->matrix = find_matrix(s, scalar_of(v))) < 0)
        return undefined_matrix(c, v, what);
    int mesh = (int)s->settings.mesh, att = (int)s->settings.attenuators, act = 0;
    L->components = s->components;
    snprintf(owner, sizeof owner, " of %s", what);
    yaml_node_t *comp = optinc_spec_get(c, n, "components");
    if ((st = optinc_spec_read_enum(c, n, "mesh", what, optinc_mesh_kind_names,
                                    &mesh)) ||
        (st = optinc_spec_read_enum(c, n, "attenuators", what, optinc_att_position_names,
                                    &att)) ||
        (st = optinc_spec_read_enum(c, n, "activation", what, optinc_activation_names,
                                    &act)) ||
        (st = optinc_spec_read_fields(c, n, what, fields, L)) ||
        (comp && (st = optinc_spec_components_over(c, comp, owner, &L->components))))
        return st;
    L->mesh = (optinc_mesh_kind)mesh;
    L->attenuators = (optinc_att_position)att;
    L->activation = (optinc_activation)act;
    if ((st = parse_segments(c, n, what, L)) || (st = count_cards(c, v, L))
        || (index > 0 && (st = check_widths(c, v, what, index)))) {
        free(L->input_scale);       /* the spec frees the layers it has counted */
        L->input_scale = NULL;
    }
    return st;
}

optinc_status optinc_spec_parse_layers(ctx *c, yaml_node_t *n)
{
    char buf[80];
    if (n->type != YAML_SEQUENCE_NODE)
        return optinc_spec_fail(c, n, "'layers' must be a list of layers ('- name: L1 ...'), "
                                "not %s", optinc_spec_describe(n, buf, sizeof buf));
    size_t count = (size_t)seq_len(n);
    void *layers;
    optinc_status st = optinc_spec_entries(c, n, "layers", count, OPTINC_LAYERS_MAX,
                                           sizeof *c->spec->layers, &layers);
    if (st)
        return st;
    c->spec->layers = layers;
    for (size_t i = 0; i < count; i++) {
        if ((st = parse_layer(c, seq_item(c, n, (long)i), (int)i)))
            return st;
        c->spec->n_layers++;
    }
    return OPTINC_OK;
}

/* ----------------------------------------- connections, ports, outputs -- */

optinc_status optinc_spec_parse_connections(ctx *c, yaml_node_t *n)
{
    optinc_status st = optinc_spec_check_map(c, n, "connections", NULL);
    if (!st && n->data.mapping.pairs.top != n->data.mapping.pairs.start)
        st = optinc_spec_fail(c, node(c, n->data.mapping.pairs.start->key),
                              "explicit connections are not supported yet: layers are wired in "
                              "order; remove the entries (leave 'connections: {}')");
    return st;
}

optinc_status optinc_spec_parse_ports(ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"in", "out", NULL};
    optinc_status st = optinc_spec_check_map(c, n, "ports", keys);
    for (int i = 0; i < 2 && !st; i++) {
        yaml_node_t *v = optinc_spec_get(c, n, keys[i]);
        if (!v)
            continue;
        if ((st = optinc_spec_want_scalar(c, v, keys[i], "ports", "'LAYER,in' or 'LAYER,out'")))
            break;
        const char *s = scalar_of(v), *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : 0;
        int found = 0;
        for (int k = 0; k < c->spec->n_layers && !found; k++)
            found = strlen(c->spec->layers[k].name) == len &&
                    !strncmp(c->spec->layers[k].name, s, len);
        if (!comma || (strcmp(comma + 1, "in") && strcmp(comma + 1, "out")) || !found)
            st = optinc_spec_fail(c, v, "'%s' in ports is '%.60s'; write 'LAYER,in' or "
                                  "'LAYER,out' with LAYER the name of a layer", keys[i], s);
    }
    return st;
}

/* outputs: only checked here (the commands read their own options). */
optinc_status optinc_spec_parse_outputs(ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"netlist", "graphviz", NULL};
    static const char *const nl_keys[] = {"file", "flatten", "expand_mzi", "profile", NULL};
    static const char *const gv_keys[] = {"dir", "formats", "png_max_modes", "overview", NULL};
    static const field gv_fields[] = {{"png_max_modes", 'i', 0, 1, 65536, 0, 0, NULL},
                                      FIELDS_END};
    const char *nl_what = "outputs.netlist", *gv_what = "outputs.graphviz";
    char text[1024], name[OPTINC_NAME_MAX];
    int flag, modes;
    optinc_status st = optinc_spec_check_map(c, n, "outputs", keys);
    yaml_node_t *nl = optinc_spec_get(c, n, "netlist"), *gv = optinc_spec_get(c, n, "graphviz");
    yaml_node_t *v;
    if (!st && nl &&
        ((st = optinc_spec_check_map(c, nl, nl_what, nl_keys)) ||
         (st = optinc_spec_read_string(c, nl, "file", nl_what, text, sizeof text)) ||
         (st = optinc_spec_read_bool(c, nl, "flatten", nl_what, &flag)) ||
         (st = optinc_spec_read_bool(c, nl, "expand_mzi", nl_what, &flag)) ||
         ((v = optinc_spec_get(c, nl, "profile")) &&
          (st = optinc_spec_ident(c, v, "profile", nl_what, name)))))
        return st;
    if (!st && gv &&
        ((st = optinc_spec_check_map(c, gv, gv_what, gv_keys)) ||
         (st = optinc_spec_read_string(c, gv, "dir", gv_what, text, sizeof text)) ||
         (st = optinc_spec_read_fields(c, gv, gv_what, gv_fields, &modes)) ||
         ((v = optinc_spec_get(c, gv, "overview")) &&
          (st = optinc_spec_ident(c, v, "overview", gv_what, name)))))
        return st;
    if (!st && gv && (v = optinc_spec_get(c, gv, "formats"))) {
        char buf[80];
        if (v->type != YAML_SEQUENCE_NODE)
            return optinc_spec_fail(c, v, "'formats' in outputs.graphviz must be a list such as "
                                    "[svg, png], not %s", optinc_spec_describe(v, buf, sizeof buf));
        for (long i = 0; i < seq_len(v) && !st; i++)
            st = optinc_spec_ident(c, seq_item(c, v, i), "formats", gv_what, name);
    }
    return st;
}

/*
 * spec.c - loading and validating the YAML topology spec (optinc-spec(5)):
 * the document, its root mapping, and the entry points.
 *
 * The spec is the user's only way in, so every mistake in it must come back as
 * one precise "FILE:LINE:COL: error: what is wrong; how to fix it" and never as
 * a wrong circuit.  Hence the design:
 *
 *  - The whole text (at most OPTINC_SPEC_FILE_MAX bytes) is taken at once,
 *    hashed (the netlist header records the sha256) and handed to libyaml's
 *    document API, which gives a node tree with a start mark on every node.
 *    The tree is then walked against the schema, one file per part of the
 *    spec (spec_internal.h), every value checked with the line and column
 *    of its node.
 *  - optinc_spec_parse() takes the text from memory with the name its
 *    messages print; the matrix files the spec names come from the resolver
 *    of its read options, by default from the folder of that name.
 *    optinc_spec_load() reads a file and calls it.
 *  - Resource limits (optinc-limits(7)): the size of the text first; then one
 *    pass of libyaml's event parser checks the nesting depth and counts nodes,
 *    anchors and aliases before the document is built, because libyaml has
 *    no limits of its own: its time grows with the square of the flow
 *    nesting and of the number of anchors (a 100 kB file of '[' took 49 s,
 *    100,000 anchors 50 s) and its memory is ~90 bytes per byte of "1,1,"
 *    (a 64 MiB spec would need 5 GB).  The pass stops at the first event
 *    past a limit, so it costs no more than the text's size.  Matrix sizes,
 *    their sum, the number of matrices and layers and the size of the
 *    circuit the layers compile to are checked before anything is allocated
 *    or generated.  Aliases share nodes and the walk visits only what the
 *    schema asks for, so alias bombs cost nothing beyond the alias count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>
#include "compiler/core/freeall.h"
#include "optinc/fileio.h"
#include "optinc/limits.h"
#include "optinc/spec.h"
#include "optinc/text.h"
#include "compiler/spec/spec_internal.h"

static void spec_defaults(optinc_spec *s)
{
    s->settings.wavelength_um = 1.55;
    s->settings.mesh = OPTINC_MESH_CLEMENTS;
    s->settings.attenuators = OPTINC_ATT_MIDDLE;
    snprintf(s->settings.mzi_convention, sizeof s->settings.mzi_convention, "clements2016");
    s->settings.seed = 1;
    optinc_components_defaults(&s->components);
    optinc_spec_allreduce_defaults(&s->allreduce);
    optinc_spec_train_defaults(&s->train);    /* a field left out trains as without a spec */
    s->layout = (optinc_layout)OPTINC_LAYOUT_DEFAULT;
}

/* The sections of the root mapping, read in this order whatever the order
 * of the file: settings before the matrices (a generated matrix's seed
 * defaults to settings.seed), the components table and the matrices before
 * the layers that use them, the layers before the ports that name them. */
static const struct {
    const char *key;
    optinc_status (*parse)(ctx *c, yaml_node_t *n);
} sections[] = {
    {"info", optinc_spec_parse_info},
    {"settings", optinc_spec_parse_settings},
    {"components", optinc_spec_parse_components},
    {"matrices", optinc_spec_parse_matrices},
    {"layers", optinc_spec_parse_layers},
    {"connections", optinc_spec_parse_connections},
    {"ports", optinc_spec_parse_ports},
    {"outputs", optinc_spec_parse_outputs},
    {"allreduce", optinc_spec_parse_allreduce},
    {"train", optinc_spec_parse_train},
    {"layout", optinc_spec_parse_layout},
};

static optinc_status parse_root(ctx *c, yaml_node_t *root)
{
    const char *keys[2 + COUNT_OF(sections) + 1] = {"schema_version", "name"};
    for (int i = 0; i < COUNT_OF(sections); i++)
        keys[2 + i] = sections[i].key;
    optinc_spec *s = c->spec;
    optinc_status st;
    yaml_node_t *v;
    long long version = 0;
    unsigned long long u;
    if (!root)
        return optinc_fail(c->err, OPTINC_EINPUT, c->path, 1, 1, "the spec is empty; it must "
                           "be a mapping that starts with 'schema_version: 1' (see "
                           "optinc-spec(5))");
    if ((st = optinc_spec_want_map(c, root, "the spec")) ||
        (st = optinc_spec_require(c, root, "schema_version", "the spec", "start the file with "
                                  "'schema_version: 1'", &v)) ||
        (st = optinc_spec_whole(c, v, "schema_version", "the spec", 0, &version, &u)))
        return st;
    if (version != 1)
        return optinc_spec_fail(c, v, "schema_version %lld is not supported: this optinc reads "
                                "schema version 1; write 'schema_version: 1' and check the file "
                                "against optinc-spec(5)", version);
    s->schema_version = 1;
    if ((st = optinc_spec_check_map(c, root, "the spec", keys)) ||
        (st = optinc_spec_require(c, root, "name", "the spec", "add 'name: my_circuit' (an "
                                  "identifier)", &v)) ||
        (st = optinc_spec_ident(c, v, "name", "the spec", s->name)))
        return st;
    for (int i = 0; i < COUNT_OF(sections); i++)
        if ((v = optinc_spec_get(c, root, sections[i].key)) && (st = sections[i].parse(c, v)))
            return st;
    return OPTINC_OK;
}

/* -------------------------------------------------------- the document -- */

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

/* Parses text as exactly one YAML document and walks its root with walk
 * (parse_root for a spec; the chip file has its own); an empty document
 * walks a NULL root, so that the walker says what the file should hold. */
optinc_status optinc_spec_load_document(ctx *c, const char *text, size_t len,
                                        optinc_status (*walk)(ctx *c, yaml_node_t *root))
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
        st = walk(c, NULL);
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
            st = walk(c, root);
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return st;
}

/* ---------------------------------------------------- the entry points -- */

static optinc_status too_big(const char *name, long long size, optinc_error *err)
{
    return optinc_fail(err, OPTINC_EINPUT, name, 0, 0, "spec file is %lld bytes, more than "
                       "the limit of 64 MiB; put large matrices in .npy files and refer "
                       "to them with 'file:'", size);
}

/* The display name becomes spec->path, and its folder spec->dir. */
static optinc_status check_name(const char *name, optinc_error *err)
{
    if (strlen(name) < sizeof ((optinc_spec *)0)->path)
        return OPTINC_OK;
    return optinc_fail(err, OPTINC_EINPUT, name, 0, 0, "spec path is longer than %zu bytes; "
                       "use a shorter path", sizeof ((optinc_spec *)0)->path - 1);
}

/* A netlist given where a spec belongs opens with its '*' title line, which
 * libyaml reads as an alias and reports as such; say what the file is. */
static optinc_status not_a_netlist(const optinc_input *in, optinc_error *err)
{
    int line = 1, col = 1;
    size_t i = 0;
    for (; i < in->len && (in->data[i] == ' ' || in->data[i] == '\t' || in->data[i] == '\r' ||
                           in->data[i] == '\n'); i++, col++)
        if (in->data[i] == '\n')
            line++, col = 0;
    if (i == in->len || in->data[i] != '*')
        return OPTINC_OK;
    return optinc_fail(err, OPTINC_EINPUT, in->name, line, col, "this is a netlist (it opens "
                       "with a '*' title line), not a YAML spec; give the spec it was "
                       "compiled from (optinc-spec(5)), or use a command that reads "
                       "netlists (optinc(1))");
}

optinc_status optinc_spec_parse(const optinc_input *in, const optinc_read_opts *opts,
                                optinc_spec **out, optinc_error *err)
{
    *out = NULL;
    optinc_status st = check_name(in->name, err);
    if (st)
        return st;
    if (in->len > OPTINC_SPEC_FILE_MAX)
        return too_big(in->name, (long long)in->len, err);
    if ((st = optinc_input_size_check(in->name, "spec", in->len, OPTINC_SPEC_FILE_MAX,
                                      optinc_read_limits(opts), err)))
        return st;
    if ((st = not_a_netlist(in, err)))
        return st;
    optinc_spec *s = calloc(1, sizeof *s);
    if (!s)
        return optinc_fail(err, OPTINC_ERUN, in->name, 0, 0, "out of memory");
    strcpy(s->path, in->name);
    optinc_path_dir(in->name, s->dir, sizeof s->dir);
    spec_defaults(s);
    optinc_sha256(in->data, in->len, s->sha256);
    ctx c = {s->path, NULL, err, s, 0, optinc_read_limits(opts), opts};
    if ((st = optinc_spec_load_document(&c, in->data, in->len, parse_root))) {
        optinc_spec_free(s);
        return st;
    }
    *out = s;
    return OPTINC_OK;
}

/* optinc_blob_read() refused path as bad input; where a spec has more to
 * say than that reader, say it: what to give instead of a folder or a
 * device, and where large matrices go. */
static optinc_status refused(const char *path, optinc_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return OPTINC_EINPUT;
    if (!S_ISREG(sb.st_mode))
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "'%s' is not a regular file; give "
                           "the path of a YAML spec", path);
    if (sb.st_size > OPTINC_SPEC_FILE_MAX)
        return too_big(path, (long long)sb.st_size, err);
    return OPTINC_EINPUT;
}

optinc_status optinc_spec_load(const char *path, const optinc_read_opts *opts, optinc_spec **out,
                               optinc_error *err)
{
    optinc_blob b;
    *out = NULL;
    optinc_status st = check_name(path, err);
    if (st)
        return st;
    if ((st = optinc_blob_read_limited(path, OPTINC_SPEC_FILE_MAX, optinc_read_limits(opts), "spec",
                                       &b, err)))
        return st == OPTINC_EINPUT ? refused(path, err) : st;
    optinc_input in = optinc_blob_input(&b);
    st = optinc_spec_parse(&in, opts, out, err);
    optinc_blob_free(&b);
    return st;
}

void optinc_spec_free(optinc_spec *spec)
{
    if (!spec)
        return;
    for (int i = 0; i < spec->n_info; i++)
        OPTINC_FREE_ALL(spec->info[i].key, spec->info[i].value);
    for (int i = 0; i < spec->n_matrices; i++)
        free(spec->matrices[i].data);
    for (int i = 0; i < spec->n_layers; i++)
        free(spec->layers[i].input_scale);
    OPTINC_FREE_ALL(spec->info, spec->matrices, spec->layers, spec);
}

/*
 * fuzz_export.c - libFuzzer target: every text export (optinc-export(1)) of
 * the circuit a PNL netlist in libFuzzer's bytes describes, written to
 * memory (optinc_export_format.stream) and read back: the SAX netlist must
 * be one JSON value whose first key is the circuit's name, the gdsfactory
 * YAML one document libyaml parses whose `name` is the circuit's, and every
 * line of the INTERCONNECT circuit file a comment, a .subckt or .ends line
 * or an element line whose first word is a PNL name, without a control
 * character; otherwise the target aborts.  The netlist reader's limits are
 * fuzz.h's; an input the reader refuses is skipped.
 */
#include <yaml.h>
#include "optinc/export.h"
#include "optinc/netlist.h"
#include "fuzz.h"

/* ---------------------------------------------------------------- JSON */

typedef struct js {
    const char *p, *end;
    int depth;
} js;

static void ws(js *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
        j->p++;
}

static int lit(js *j, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
        return 0;
    j->p += n;
    return 1;
}

/* A string; its text (escapes as written) in [*s, *s + *n). */
static int string(js *j, const char **s, size_t *n)
{
    if (j->p >= j->end || *j->p != '"')
        return 0;
    const char *start = ++j->p;
    while (j->p < j->end && *j->p != '"') {
        if ((unsigned char)*j->p < 0x20)
            return 0;
        if (*j->p == '\\' && ++j->p >= j->end)
            return 0;
        j->p++;
    }
    if (j->p >= j->end)
        return 0;
    *s = start;
    *n = (size_t)(j->p++ - start);
    return 1;
}

static int number(js *j)
{
    char *stop;
    char buf[64];
    size_t n = 0;
    while (j->p + n < j->end && n + 1 < sizeof buf && strchr("+-.eE0123456789", j->p[n]))
        n++;
    memcpy(buf, j->p, n);
    buf[n] = '\0';
    if (!n || (strtod(buf, &stop), *stop))
        return 0;
    j->p += n;
    return 1;
}

static int value(js *j);

static int members(js *j, char open, char close, int keyed)
{
    const char *s;
    size_t n;
    if (j->p >= j->end || *j->p != open || ++j->depth > 64)
        return 0;
    j->p++;
    ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        j->depth--;
        return 1;
    }
    for (;;) {
        ws(j);
        if (keyed && !(string(j, &s, &n) && (ws(j), lit(j, ":"))))
            return 0;
        ws(j);
        if (!value(j))
            return 0;
        ws(j);
        if (lit(j, ","))
            continue;
        if (!lit(j, close == '}' ? "}" : "]"))
            return 0;
        j->depth--;
        return 1;
    }
}

static int value(js *j)
{
    const char *s;
    size_t n;
    if (j->p >= j->end)
        return 0;
    switch (*j->p) {
    case '{': return members(j, '{', '}', 1);
    case '[': return members(j, '[', ']', 0);
    case '"': return string(j, &s, &n);
    case 't': return lit(j, "true");
    case 'f': return lit(j, "false");
    case 'n': return lit(j, "null");
    default: return number(j);
    }
}

static void check_json(const char *text, size_t len, const char *name)
{
    js j = {text, text + len, 0};
    const char *s;
    size_t n;
    js first = {text, text + len, 0};   /* the first key, read apart */
    ws(&first);
    if (!lit(&first, "{") || (ws(&first), !string(&first, &s, &n)) || n != strlen(name)
        || memcmp(s, name, n))
        abort();    /* the top netlist first, under the circuit's name */
    ws(&j);
    if (!value(&j) || (ws(&j), j.p != j.end))
        abort();
}

/* ---------------------------------------------------------------- YAML */

static void check_yaml(const char *text, size_t len, const char *name)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser))
        return;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc))
        abort();
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    int named = 0;
    if (!root || root->type != YAML_MAPPING_NODE)
        abort();
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&doc, p->key);
        yaml_node_t *v = yaml_document_get_node(&doc, p->value);
        if (k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, "name"))
            named = v->type == YAML_SCALAR_NODE && !strcmp((char *)v->data.scalar.value, name);
    }
    if (!named)
        abort();
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
}

/* ------------------------------------------------------ SPICE-like lines */

static int is_letter(char ch)
{
    return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static int is_name(const char *p, size_t n)
{
    if (!n || !is_letter(*p))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!is_letter(p[i]) && !(p[i] >= '0' && p[i] <= '9'))
            return 0;
    return 1;
}

static void check_lines(const char *text, size_t len)
{
    int open = 0;
    for (const char *line = text; line < text + len;) {
        const char *nl = memchr(line, '\n', (size_t)(text + len - line));
        if (!nl)
            abort();    /* every line ends */
        for (const char *q = line; q < nl; q++)
            if ((unsigned char)*q < 0x20 || *q == 0x7f)
                abort();
        if (!strncmp(line, ".subckt ", 8))
            open++;
        else if (!strncmp(line, ".ends ", 6))
            open--;
        else if (line[0] == ' ') {
            const char *w = line + 1, *e = w;
            while (e < nl && *e != ' ')
                e++;
            if (!is_name(w, (size_t)(e - w)) || open != 1)
                abort();
        } else if (line != nl && line[0] != '*')
            abort();
        line = nl + 1;
    }
    if (open)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    optinc_input in = {"net.pnl.sp", (const char *)data, size};
    fz_files files = {&in, 1};     /* no file but the input itself */
    optinc_read_opts opts = {fz_limits(), fz_resolve, &files, NULL};
    optinc_circuit *c = NULL;
    optinc_error err;
    if (optinc_netlist_parse(&in, &opts, &c, &err) != OPTINC_OK)
        return 0;
    optinc_layout layout = OPTINC_LAYOUT_DEFAULT;
    for (const optinc_export_format *f = optinc_export_formats; f->name; f++) {
        char *text = NULL;
        size_t len = 0;
        FILE *m = f->stream ? open_memstream(&text, &len) : NULL;
        if (!m)
            continue;
        optinc_status st = f->stream(c, &layout, m, &err);
        fclose(m);
        if (st == OPTINC_OK) {
            if (!strcmp(f->name, "sax"))
                check_json(text, len, c->name);
            else if (!strcmp(f->name, "gdsfactory"))
                check_yaml(text, len, c->name);
            else
                check_lines(text, len);
        }
        free(text);
    }
    optinc_circuit_free(c);
    return 0;
}

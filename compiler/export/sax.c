/*
 * sax.c - the SAX export (optinc-export(1), SAX): the circuit as a SAX
 * recursive netlist in JSON, and a Python module of the models it names.
 *
 * What is written: OUT.json is a mapping from netlist names to netlists,
 * the top netlist first (SAX takes the first as the top level): the circuit
 * (named as in the PNL netlist), whose instances are the layers (X_<layer>,
 * component layer_<layer>, as the netlist's top cell instantiates them) and
 * the electronic gain after each layer (G_<layer>, component gain); then one
 * netlist per layer, whose instances are the netlist's elements under their
 * netlist names, components the card names, settings the programmed values
 * under the cards' keys.  A port pair "inst,port": "inst,port" joins the two
 * ends of one waveguide.  OUT_models.py holds one function per component,
 * a function of its settings returning the S-dictionary; it needs neither
 * SAX nor NumPy.
 *
 * Why nested and not flat: SAX solves each distinct netlist once, and the
 * nesting keeps the netlist's own hierarchy (a cell per layer), so the two
 * read alike.
 */
#include <string.h>
#include "compiler/export/walk.h"
#include "compiler/netlist/dialect.h"
#include "optinc/fileio.h"

#define GAIN_MODEL "gain"

/* The models, in optinc's conventions (optinc-netlist(5)); the first line
 * of the file says what wrote it. */
static const char models_py[] =
    "\"\"\"SAX models of the elements of an optinc circuit (optinc-export(1), SAX).\n"
    "\n"
    "Each model is a function of its settings that returns an S-dictionary\n"
    "{(port_a, port_b): complex}: the field leaving port_b for a unit field\n"
    "entering port_a.  Every element is reciprocal, so both orders are given.\n"
    "Light enters at in0, in1 and leaves at out0, out1; in0/out0 are mode m,\n"
    "in1/out1 mode m+1.  wl (um) is accepted as SAX passes it and ignored: the\n"
    "elements are those of the compiled circuit at its one wavelength.\n"
    "Plain Python: neither SAX nor NumPy is needed to import it.\n"
    "\"\"\"\n"
    "import cmath\n"
    "import math\n"
    "\n"
    "\n"
    "def _reciprocal(pairs):\n"
    "    s = {}\n"
    "    for (a, b), v in pairs.items():\n"
    "        s[(a, b)] = v\n"
    "        s[(b, a)] = v\n"
    "    return s\n"
    "\n"
    "\n"
    "def mzi(theta_rad=0.0, phi_rad=0.0, wl=1.55):\n"
    "    \"\"\"M = B diag(e^(i theta), 1) B diag(e^(i phi), 1), B = [[1, i], [i, 1]]/sqrt(2);\n"
    "    (in0, in1) -> (out0, out1) is M.\"\"\"\n"
    "    et = cmath.exp(1j * theta_rad)\n"
    "    ep = cmath.exp(1j * phi_rad)\n"
    "    return _reciprocal({\n"
    "        (\"in0\", \"out0\"): ep * (et - 1) / 2,\n"
    "        (\"in1\", \"out0\"): 1j * (et + 1) / 2,\n"
    "        (\"in0\", \"out1\"): 1j * ep * (et + 1) / 2,\n"
    "        (\"in1\", \"out1\"): (1 - et) / 2,\n"
    "    })\n"
    "\n"
    "\n"
    "def ps(phase_rad=0.0, wl=1.55):\n"
    "    \"\"\"Phase shifter: out0 = e^(i phase) in0.\"\"\"\n"
    "    return _reciprocal({(\"in0\", \"out0\"): cmath.exp(1j * phase_rad)})\n"
    "\n"
    "\n"
    "def att(att_dB=0.0, wl=1.55):\n"
    "    \"\"\"Attenuator: out0 = 10^(-att_dB/20) in0.\"\"\"\n"
    "    return _reciprocal({(\"in0\", \"out0\"): complex(10.0 ** (-att_dB / 20.0))})\n"
    "\n"
    "\n"
    "def dc(coupling=0.5, wl=1.55):\n"
    "    \"\"\"Directional coupler of power coupling kappa:\n"
    "    [[sqrt(1-kappa), i sqrt(kappa)], [i sqrt(kappa), sqrt(1-kappa)]].\"\"\"\n"
    "    t = complex(math.sqrt(1.0 - coupling))\n"
    "    k = 1j * math.sqrt(coupling)\n"
    "    return _reciprocal({(\"in0\", \"out0\"): t, (\"in1\", \"out1\"): t,\n"
    "                        (\"in0\", \"out1\"): k, (\"in1\", \"out0\"): k})\n"
    "\n"
    "\n"
    "def term(wl=1.55):\n"
    "    \"\"\"Terminator: in0 absorbs what reaches it, out0 starts a dark waveguide;\n"
    "    nothing is transmitted or reflected.\"\"\"\n"
    "    return {(\"in0\", \"in0\"): 0j, (\"out0\", \"out0\"): 0j}\n"
    "\n"
    "\n"
    "def gain(gain=1.0, modes=1, wl=1.55):\n"
    "    \"\"\"The electronic gain s of a layer (not an optical element):\n"
    "    out<k> = s in<k> for k < modes.\"\"\"\n"
    "    return _reciprocal({(\"in%d\" % k, \"out%d\" % k): complex(gain)\n"
    "                        for k in range(modes)})\n"
    "\n"
    "\n"
    "models = {\"mzi\": mzi, \"ps\": ps, \"att\": att, \"dc\": dc, \"term\": term,\n"
    "          \"gain\": gain}\n";

static optinc_status put_models(FILE *f, const void *ctx, optinc_error *err)
{
    fputs(models_py, f);
    return OPTINC_OK;
}

/* "inst,port" */
static void put_end(FILE *f, const ex_layer *x, ex_end e)
{
    const ex_element *el = &x->el[e.elem];
    fprintf(f, "\"%s,%s\"", el->name, ex_sax_pin(el, e.pin));
}

/* The settings of e: the programmed values under the card's keys. */
static void put_settings(FILE *f, const ex_element *e)
{
    int key[OPTINC_CARD_PARAMS_MAX], n = ex_settings(e->kind, key);
    fputc('{', f);
    for (int k = 0; k < n; k++) {
        fprintf(f, "%s\"%s\": ", k ? ", " : "", optinc_cards[e->kind].param[key[k]].key);
        ex_number(f, e->v[key[k]]);
    }
    fputc('}', f);
}

static void put_layer(FILE *f, const ex_layer *x)
{
    fprintf(f, ",\n\"layer_%s\": {\n\"instances\": {", x->L->name);
    for (int i = 0; i < x->n_el; i++) {
        const ex_element *e = &x->el[i];
        fprintf(f, "%s\n  \"%s\": {\"component\": \"%s\", \"settings\": ", i ? "," : "", e->name,
                optinc_cards[e->kind].name);
        put_settings(f, e);
        fputc('}', f);
    }
    fputs("},\n\"connections\": {", f);
    int first = 1;
    for (int n = 0; n < x->n_nets; n++) {
        if (x->end[n][0].elem < 0 || x->end[n][1].elem < 0)
            continue;
        fputs(first ? "\n  " : ",\n  ", f);
        first = 0;
        put_end(f, x, x->end[n][0]);
        fputs(": ", f);
        put_end(f, x, x->end[n][1]);
    }
    fputs("},\n\"ports\": {", f);
    first = 1;
    for (int side = 0; side < 2; side++)
        for (int n = 0; n < x->n_nets; n++) {
            ex_end port = x->end[n][side], inner = x->end[n][!side];
            if (port.elem >= 0 || inner.elem < 0)
                continue;
            fprintf(f, "%s\"%s%d\": ", first ? "\n  " : ",\n  ", side ? "out" : "in", port.pin);
            first = 0;
            put_end(f, x, inner);
        }
    fputs("}\n}", f);
}

/* The top netlist: the layers and their gains in a chain. */
static void put_top(FILE *f, const optinc_circuit *c)
{
    /* names are PNL names (ex_check), which JSON strings hold as they are */
    fprintf(f, "{\n\"%s\": {\n\"instances\": {", c->name);
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        fprintf(f, "%s\n  \"X_%s\": {\"component\": \"layer_%s\", \"settings\": {}},", i ? "," : "",
                L->name, L->name);
        fprintf(f, "\n  \"G_%s\": {\"component\": \"%s\", \"settings\": {\"gain\": ", L->name,
                GAIN_MODEL);
        ex_number(f, L->gain);
        fprintf(f, ", \"modes\": %d}}", L->rows);
    }
    fputs("},\n\"connections\": {", f);
    int first = 1;
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        for (int k = 0; k < L->rows; k++) {
            fprintf(f, "%s\"X_%s,out%d\": \"G_%s,in%d\"", first ? "\n  " : ",\n  ", L->name, k,
                    L->name, k);
            first = 0;
            if (i + 1 < c->n_layers)
                fprintf(f, ",\n  \"G_%s,out%d\": \"X_%s,in%d\"", L->name, k,
                        c->layers[i + 1].name, k);
        }
    }
    fputs("},\n\"ports\": {", f);
    const optinc_layer *first_L = &c->layers[0], *last_L = &c->layers[c->n_layers - 1];
    for (int k = 0; k < first_L->cols; k++)
        fprintf(f, "%s\"in%d\": \"X_%s,in%d\"", k ? ",\n  " : "\n  ", k, first_L->name, k);
    for (int k = 0; k < last_L->rows; k++)
        fprintf(f, ",\n  \"out%d\": \"G_%s,out%d\"", k, last_L->name, k);
    fputs("}\n}", f);
}

static optinc_status put_netlist(FILE *f, const void *ctx, optinc_error *err)
{
    const optinc_circuit *c = ctx;
    put_top(f, c);
    for (int i = 0; i < c->n_layers; i++) {
        ex_layer x;
        optinc_status st = ex_layer_build(c, i, &x, err);
        if (st)
            return st;
        put_layer(f, &x);
        ex_layer_free(&x);
    }
    fputs("\n}\n", f);
    return OPTINC_OK;
}

optinc_status optinc_export_sax(const optinc_circuit *c, const optinc_layout *layout,
                                const char *path, optinc_error *err)
{
    char models[EX_PATH_MAX];
    optinc_status st = ex_check(c, err);
    if (!st)
        st = optinc_export_companion(path, EX_SAX_MODELS, models, sizeof models, err);
    optinc_outs set = {0};
    if (!st)
        st = optinc_outs_write(&set, models, put_models, NULL, err);
    if (!st)
        st = optinc_outs_write(&set, path, put_netlist, c, err);
    return optinc_outs_end(&set, st, err);
}

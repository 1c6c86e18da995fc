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
    "entering port_a.  Every linear element is reciprocal, so both orders are\n"
    "given.  Light enters at in0, in1 and leaves at out0, out1; in0/out0 are\n"
    "mode m, in1/out1 mode m+1.  Every default exposes every port the model\n"
    "has, as SAX finds ports by calling a model with its defaults.  wl (um) is\n"
    "accepted as SAX passes it and ignored: the elements are those of the\n"
    "compiled circuit at its one wavelength.\n"
    "\n"
    "relu_eo and abs2 are the layers' activations, which are not linear: as\n"
    "S-dictionaries they are the identity (so a circuit solved with them is\n"
    "the linear chain with the activations bypassed); NONLINEAR maps each to\n"
    "the function of the field it applies, for evaluating the network layer by\n"
    "layer (solve layer_<L>, apply the gains and NONLINEAR, go on).\n"
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
    "    [[sqrt(1-kappa), i sqrt(kappa)], [i sqrt(kappa), sqrt(1-kappa)]].\n"
    "    The exports write MZIs whole; this is the coupler of an expanded MZI.\"\"\"\n"
    "    t = complex(math.sqrt(1.0 - coupling))\n"
    "    k = 1j * math.sqrt(coupling)\n"
    "    return _reciprocal({(\"in0\", \"out0\"): t, (\"in1\", \"out1\"): t,\n"
    "                        (\"in0\", \"out1\"): k, (\"in1\", \"out0\"): k})\n"
    "\n"
    "\n"
    "def term(wl=1.55):\n"
    "    \"\"\"Terminator: one port used, in0 where it absorbs the end of a\n"
    "    waveguide or out0 where a dark waveguide starts; the other is left\n"
    "    unconnected.  Nothing is transmitted or reflected.\"\"\"\n"
    "    return {(\"in0\", \"in0\"): 0j, (\"out0\", \"out0\"): 0j}\n"
    "\n"
    "\n"
    "def split(tap=0.5, wl=1.55):\n"
    "    \"\"\"Fixed splitter of a segmented layer: out0 = sqrt(tap) in0,\n"
    "    out1 = sqrt(1 - tap) in0.\"\"\"\n"
    "    return _reciprocal({(\"in0\", \"out0\"): complex(math.sqrt(tap)),\n"
    "                        (\"in0\", \"out1\"): complex(math.sqrt(1.0 - tap))})\n"
    "\n"
    "\n"
    "def comb(tap=0.5, wl=1.55):\n"
    "    \"\"\"Fixed combiner of a segmented layer: out0 = sqrt(1 - tap) in0\n"
    "    + sqrt(tap) in1.\"\"\"\n"
    "    return _reciprocal({(\"in0\", \"out0\"): complex(math.sqrt(1.0 - tap)),\n"
    "                        (\"in1\", \"out0\"): complex(math.sqrt(tap))})\n"
    "\n"
    "\n"
    "def thru(wl=1.55):\n"
    "    \"\"\"Pass-through waveguide of a segmented layer: out0 = in0.\"\"\"\n"
    "    return _reciprocal({(\"in0\", \"out0\"): 1 + 0j})\n"
    "\n"
    "\n"
    "def drive(amplitude=1.0, wl=1.55):\n"
    "    \"\"\"Input scale of a layer (not an optical element): the amplitude\n"
    "    the modulator putting input k on light gives it, out0 = d in0.\"\"\"\n"
    "    return _reciprocal({(\"in0\", \"out0\"): complex(amplitude)})\n"
    "\n"
    "\n"
    "def gain(gain=1.0, wl=1.55):\n"
    "    \"\"\"The electronic gain s of a layer on one mode (not an optical\n"
    "    element): out0 = s in0.\"\"\"\n"
    "    return _reciprocal({(\"in0\", \"out0\"): complex(gain)})\n"
    "\n"
    "\n"
    "def relu_eo(wl=1.55):\n"
    "    \"\"\"Activation (nonlinear, see NONLINEAR): the identity here.\"\"\"\n"
    "    return _reciprocal({(\"in0\", \"out0\"): 1 + 0j})\n"
    "\n"
    "\n"
    "def abs2(wl=1.55):\n"
    "    \"\"\"Activation (nonlinear, see NONLINEAR): the identity here.\"\"\"\n"
    "    return _reciprocal({(\"in0\", \"out0\"): 1 + 0j})\n"
    "\n"
    "\n"
    "NONLINEAR = {\n"
    "    \"relu_eo\": lambda x: complex(max(complex(x).real, 0.0)),   # max(Re x, 0)\n"
    "    \"abs2\": lambda x: complex(abs(x) ** 2),                     # |x|^2\n"
    "}\n"
    "\n"
    "models = {\"mzi\": mzi, \"ps\": ps, \"att\": att, \"dc\": dc, \"term\": term,\n"
    "          \"split\": split, \"comb\": comb, \"thru\": thru, \"drive\": drive,\n"
    "          \"gain\": gain, \"relu_eo\": relu_eo, \"abs2\": abs2}\n";

static optinc_status put_models(FILE *f, const void *ctx, optinc_error *err)
{
    (void)ctx;
    (void)err;
    fputs(models_py, f);
    return OPTINC_OK;
}

/* The components the models module defines beside the cards': no circuit
 * or layer netlist may take one of these names. */
static const char *const extra_models[] = {"drive", "gain", "relu_eo", "abs2", NULL};

#define DRIVE_PREFIX "DR"    /* the input scale's instances, DR_<layer>_r<k>: no card's */

/* "inst,port" of end e of layer x (an element's pin, or the input scale's
 * drive of input k where one stands before it). */
static void put_end(FILE *f, const ex_layer *x, ex_end e)
{
    const ex_element *el = &x->el[e.elem];
    fputc('"', f);
    ex_json_chars(f, el->name);
    fputc(',', f);
    fputs(ex_sax_pin(el, e.pin), f);
    fputc('"', f);
}

/* The settings of e: the programmed values under the card's keys. */
static void put_settings(FILE *f, const ex_element *e)
{
    int key[OPTINC_CARD_PARAMS_MAX], n = ex_settings(e->kind, key);
    fputc('{', f);
    for (int k = 0; k < n; k++) {
        fputs(k ? ", \"" : "\"", f);
        fputs(optinc_cards[e->kind].param[key[k]].key, f);
        fputs("\": ", f);
        ex_number(f, e->v[key[k]]);
    }
    fputc('}', f);
}

static void put_sep(FILE *f, int *first)
{
    fputs(*first ? "\n  " : ",\n  ", f);
    *first = 0;
}

/* Netlist layer_<L>: its elements, the drives of its input scale, the
 * nets between them and its ports. */
static void put_layer(FILE *f, const ex_layer *x)
{
    const optinc_layer *L = x->L;
    int scaled = L->input_scale ? L->cols - L->pass_through : 0, first = 1;
    fputs(",\n\"layer_", f);
    ex_json_chars(f, L->name);
    fputs("\": {\n\"instances\": {", f);
    for (int k = 0; k < scaled; k++) {
        put_sep(f, &first);
        fprintf(f, "\"" DRIVE_PREFIX "_");
        ex_json_chars(f, L->name);
        fprintf(f, "_r%d\": {\"component\": \"drive\", \"settings\": {\"amplitude\": ", k);
        ex_number(f, L->input_scale[k]);
        fputs("}}", f);
    }
    for (int i = 0; i < x->n_el; i++) {
        const ex_element *e = &x->el[i];
        put_sep(f, &first);
        fputc('"', f);
        ex_json_chars(f, e->name);
        fputs("\": {\"component\": \"", f);
        fputs(optinc_cards[e->kind].name, f);
        fputs("\", \"settings\": ", f);
        put_settings(f, e);
        fputc('}', f);
    }
    fputs("},\n\"connections\": {", f);
    first = 1;
    for (int n = 0; n < x->n_nets; n++) {
        ex_end from = x->end[n][0], to = x->end[n][1];
        if (to.elem < 0 || (from.elem < 0 && from.pin >= scaled))
            continue;
        put_sep(f, &first);
        if (from.elem < 0) {
            fputs("\"" DRIVE_PREFIX "_", f);
            ex_json_chars(f, L->name);
            fprintf(f, "_r%d,out0\"", from.pin);
        } else {
            put_end(f, x, from);
        }
        fputs(": ", f);
        put_end(f, x, to);
    }
    fputs("},\n\"ports\": {", f);
    first = 1;
    for (int n = 0; n < x->n_nets; n++) {
        ex_end from = x->end[n][0], to = x->end[n][1];
        if (from.elem >= 0 || to.elem < 0)
            continue;
        put_sep(f, &first);
        fprintf(f, "\"in%d\": ", from.pin);
        if (from.pin < scaled) {
            fputs("\"" DRIVE_PREFIX "_", f);
            ex_json_chars(f, L->name);
            fprintf(f, "_r%d,in0\"", from.pin);
        } else {
            put_end(f, x, to);
        }
    }
    for (int n = 0; n < x->n_nets; n++) {
        ex_end from = x->end[n][0], to = x->end[n][1];
        if (to.elem >= 0 || from.elem < 0)
            continue;
        put_sep(f, &first);
        fprintf(f, "\"out%d\": ", to.pin);
        put_end(f, x, from);
    }
    fputs("}\n}", f);
}

/* "<prefix>_<layer>[_<k>],<port>" of the top netlist: X_<L> (the layer),
 * G_<L>_<k> (its gain on mode k), A_<L>_<k> (its activation on mode k). */
static void put_top_end(FILE *f, char what, const optinc_layer *L, int k, const char *port,
                        int mode)
{
    fprintf(f, "\"%c_", what);
    ex_json_chars(f, L->name);
    if (what == 'X')
        fprintf(f, ",%s%d\"", port, mode);
    else
        fprintf(f, "_%d,%s\"", k, port);
}

/* The last instance of layer L on mode k in the top netlist. */
static char top_last(const optinc_layer *L, int k)
{
    if (L->activation != OPTINC_ACT_NONE)
        return 'A';
    return k < L->rows - L->pass_through ? 'G' : 'X';
}

/* The top netlist: per layer X_<L>, then on each mode its electronic gain
 * G_<L>_<k> (not on pass-through modes, which are not detected) and its
 * activation A_<L>_<k>, in a chain. */
static void put_top(FILE *f, const optinc_circuit *c)
{
    int first = 1;
    fputs("{\n\"", f);
    ex_json_chars(f, c->name);
    fputs("\": {\n\"instances\": {", f);
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        put_sep(f, &first);
        fputs("\"X_", f);
        ex_json_chars(f, L->name);
        fputs("\": {\"component\": \"layer_", f);
        ex_json_chars(f, L->name);
        fputs("\", \"settings\": {}}", f);
        for (int k = 0; k < L->rows - L->pass_through; k++) {
            put_sep(f, &first);
            fputs("\"G_", f);
            ex_json_chars(f, L->name);
            fprintf(f, "_%d\": {\"component\": \"gain\", \"settings\": {\"gain\": ", k);
            ex_number(f, L->gain);
            fputs("}}", f);
        }
        for (int k = 0; L->activation != OPTINC_ACT_NONE && k < L->rows; k++) {
            put_sep(f, &first);
            fputs("\"A_", f);
            ex_json_chars(f, L->name);
            fprintf(f, "_%d\": {\"component\": \"%s\", \"settings\": {}}", k,
                    optinc_activation_names[L->activation]);
        }
    }
    fputs("},\n\"connections\": {", f);
    first = 1;
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        for (int k = 0; k < L->rows; k++) {
            char prev = 'X';
            if (k < L->rows - L->pass_through) {
                put_sep(f, &first);
                put_top_end(f, 'X', L, k, "out", k);
                fputs(": ", f);
                put_top_end(f, 'G', L, k, "in0", k);
                prev = 'G';
            }
            if (L->activation != OPTINC_ACT_NONE) {
                put_sep(f, &first);
                put_top_end(f, prev, L, k, prev == 'X' ? "out" : "out0", k);
                fputs(": ", f);
                put_top_end(f, 'A', L, k, "in0", k);
                prev = 'A';
            }
            if (i + 1 < c->n_layers) {
                put_sep(f, &first);
                put_top_end(f, prev, L, k, prev == 'X' ? "out" : "out0", k);
                fputs(": ", f);
                put_top_end(f, 'X', &c->layers[i + 1], k, "in", k);
            }
        }
    }
    fputs("},\n\"ports\": {", f);
    first = 1;
    const optinc_layer *in = &c->layers[0], *out = &c->layers[c->n_layers - 1];
    for (int k = 0; k < in->cols; k++) {
        put_sep(f, &first);
        fprintf(f, "\"in%d\": ", k);
        put_top_end(f, 'X', in, k, "in", k);
    }
    for (int k = 0; k < out->rows; k++) {
        char last = top_last(out, k);
        put_sep(f, &first);
        fprintf(f, "\"out%d\": ", k);
        put_top_end(f, last, out, k, last == 'X' ? "out" : "out0", k);
    }
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

static optinc_status sax_check(const optinc_circuit *c, optinc_error *err)
{
    optinc_status st = ex_check(c, err);
    return st ? st : ex_check_cell_names(c, extra_models, err);
}

optinc_status optinc_export_sax_stream(const optinc_circuit *c, const optinc_layout *layout,
                                       FILE *f, optinc_error *err)
{
    optinc_status st = sax_check(c, err);
    (void)layout;
    return st ? st : put_netlist(f, c, err);
}

optinc_status optinc_export_sax(const optinc_circuit *c, const optinc_layout *layout,
                                const char *path, optinc_error *err)
{
    char models[EX_PATH_MAX];
    (void)layout;
    optinc_status st = sax_check(c, err);
    if (!st)
        st = optinc_export_companion(path, EX_SAX_MODELS, models, sizeof models, err);
    optinc_outs set = {0};
    if (!st)
        st = optinc_outs_write(&set, models, put_models, NULL, err);
    if (!st)
        st = optinc_outs_write(&set, path, put_netlist, c, err);
    return optinc_outs_end(&set, st, err);
}

/*
 * cmd_draw.c - `optinc draw SPEC|NET.sp -o DIR`: Graphviz drawings of a
 * compiled circuit (full detail, heat-map overview, layer graph); the size
 * thresholds and file names are the library's (draw.h, optinc-draw(1)).
 *
 * The input is a spec or a netlist (optinc_circuit_load).  Options are
 * checked before anything is read or written, so a bad --format exits 2 and
 * leaves no files behind; and so are the drawings' paths against the files
 * the run reads (the input, a spec's matrices, a netlist's includes), and
 * against each other (a layer's name can make two of them one,
 * optinc_draw_check), since a drawing is written atomically over whatever
 * has its name.  The drawings go in place only once their names are
 * printed (cli_outs_end).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "optinc/circuit.h"
#include "optinc/draw.h"
#include "optinc/netlist.h"

/* What --help says besides the options. */
static const cli_cmd draw_cmd = {"draw", "SPEC|NET.sp", NULL,
    "Draws each layer of the compiled circuit with Graphviz into DIR:\n"
    "  CIRCUIT_LAYER.{svg,png,dot}           full detail (PNG up to 32 "
    "modes, any up to 128)\n"
    "  CIRCUIT_LAYER_overview.{svg,png,dot}  heat map (layers over 32 "
    "modes)\n"
    "  CIRCUIT_layers.{svg,png,dot}          one node per layer"};

/* Refuses a drawing of c in dir that would land on a file this run reads,
 * that cannot be written there, or that is another drawing by a link.
 * Every name a drawing of c may get in the chosen formats is checked, in
 * both styles: the thresholds that pick the style are the library's, and a
 * name that is an input is a mistake whichever style would be drawn.  A
 * folder that does not exist yet holds none of them. */
static optinc_status check_drawings(const optinc_circuit *c, const char *dir, unsigned formats,
                                    optinc_error *err)
{
    static const struct { unsigned mask; const char *ext; } kinds[] = {
        {OPTINC_DRAW_SVG, "svg"}, {OPTINC_DRAW_PNG, "png"}, {OPTINC_DRAW_DOT, "dot"}};
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return OPTINC_OK;   /* the drawer makes it, or says why it cannot */
    if (!S_ISDIR(sb.st_mode))
        return optinc_fail(err, OPTINC_EINPUT, dir, 0, 0, "'%s' exists and is not a directory; "
                           "pass another -o DIR", dir);
    int per_kind = 1 + 2 * c->n_layers, n = 0;
    char (*path)[4096] = calloc((size_t)(3 * per_kind), sizeof *path);
    const char **names = calloc((size_t)(3 * per_kind), sizeof *names);
    optinc_status st = OPTINC_OK;
    if (!path || !names)
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    for (int k = 0; k < 3 && !st; k++) {
        if (!(formats & kinds[k].mask))
            continue;
        snprintf(path[n], sizeof path[n], "%s/%s_layers.%s", dir, c->name, kinds[k].ext);
        names[n] = path[n], n++;
        for (int i = 0; i < c->n_layers; i++)
            for (int overview = 0; overview < 2; overview++) {
                snprintf(path[n], sizeof path[n], "%s/%s_%s%s.%s", dir, c->name,
                         c->layers[i].name, overview ? "_overview" : "", kinds[k].ext);
                names[n] = path[n], n++;
            }
    }
    if (!st)
        st = cli_check_outputs(names, n, err);
    free(path);
    free(names);
    return st;
}

int cmd_draw(int argc, char **argv)
{
    optinc_draw_options opt = {0};
    optinc_error err = {0};
    const char *dir = NULL, *formats = "svg,png", *operand[CLI_MAX_OPERANDS];
    int verbose = 0;
    const cli_opt opts[] = {
        CLI_OPT_OUTPUT(&dir, "DIR", CLI_REQUIRED, "the directory to draw into",
                       "directory to write (created when missing)"),
        {"format", 0, CLI_STRING, CLI_DST(const char *, &formats), "LIST",
         "comma-separated svg, png, dot", .flags = CLI_EMPTY_OK},
        CLI_OPT_FLAG("detail", &opt.force_detail,
         "full detail at any size (never PNG above 32 modes)"),
        CLI_OPT_FLAG("overview", &opt.force_overview, "heat-map overview at any size"),
        CLI_OPT_FLAG("verbose", &verbose, "show Graphviz's warnings"),
        CLI_OPT_END};
    int rc = cli_parse(&draw_cmd, opts, argc, argv, operand);
    if (rc >= 0)
        return rc;
    const char *input = operand[0];
    if (optinc_draw_parse_formats(formats, &opt.formats, &err))
        return cli_usage_error("draw", "%s", err.message);

    optinc_circuit *c = NULL;
    optinc_drawer *d = NULL;
    cli_input(input, "input");
    optinc_status st = optinc_circuit_load(input, cli_read_opts(), &c, &err);
    if (!st)    /* two drawings of one name, at the layer in the input */
        st = optinc_draw_check(c, &opt, input, &err);
    if (!st)
        st = check_drawings(c, dir, opt.formats ? opt.formats
                                                : OPTINC_DRAW_SVG | OPTINC_DRAW_PNG, &err);
    if (st) {
        optinc_circuit_free(c);
        return cli_report(&draw_cmd, &err, st);
    }
    for (int i = 0; i < c->n_warnings; i++)
        cli_warn("%s", c->warnings[i]);
    /* A user who points Graphviz at its plugins (GVBINDIR) gets those. */
    st = optinc_drawer_new((verbose ? OPTINC_DRAWER_VERBOSE : 0) |
                           (getenv("GVBINDIR") ? OPTINC_DRAWER_CONFIGURED : 0), &d, &err);
    /* the drawings go in place only once their names are written too */
    optinc_outs set = {0};
    if (!st)
        st = optinc_draw_circuit_add(d, &set, c, dir, &opt, &err);
    for (int i = 0; !st && i < optinc_drawer_n_written(d); i++)
        printf("%s\n", optinc_drawer_written(d, i));
    st = cli_outs_end(&set, st, &err);
    optinc_drawer_free(d);
    optinc_circuit_free(c);
    return st ? cli_report(&draw_cmd, &err, st) : 0;
}

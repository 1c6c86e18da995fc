/*
 * cmd_draw.c - `optinc draw SPEC|NET.sp -o DIR`: Graphviz drawings of a
 * compiled circuit (full detail, heat-map overview, layer graph); the size
 * thresholds and file names are the library's (draw.h, optinc-draw(1)).
 *
 * The input is a spec or a netlist (optinc_circuit_load).  Options are
 * checked before anything is read or written, so a bad --format exits 2 and
 * leaves no files behind.
 */
#include <getopt.h>
#include <stdio.h>
#include "cli.h"
#include "optinc/circuit.h"
#include "optinc/draw.h"
#include "optinc/netlist.h"

static const char usage_text[] =
    "usage: optinc draw SPEC|NET.sp -o DIR [--format LIST] [--detail] [--overview]\n"
    "                                [--verbose]\n"
    "Draws each layer of the compiled circuit with Graphviz into DIR:\n"
    "  CIRCUIT_LAYER.{svg,png,dot}           full detail (PNG up to 32 modes, any up to 128)\n"
    "  CIRCUIT_LAYER_overview.{svg,png,dot}  heat map (layers over 32 modes)\n"
    "  CIRCUIT_layers.{svg,png,dot}          one node per layer\n"
    "  -o, --output DIR   directory to write (created when missing)\n"
    "  --format LIST      comma-separated svg, png, dot (default svg,png)\n"
    "  --detail           full detail at any size (never PNG above 32 modes)\n"
    "  --overview         heat-map overview at any size\n"
    "  --verbose          show Graphviz's warnings\n"
    "See optinc-draw(1).\n";

int cmd_draw(int argc, char **argv)
{
    enum { OPT_FORMAT = 256, OPT_DETAIL, OPT_OVERVIEW, OPT_VERBOSE };
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"detail", no_argument, NULL, OPT_DETAIL},
        {"overview", no_argument, NULL, OPT_OVERVIEW},
        {"verbose", no_argument, NULL, OPT_VERBOSE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    optinc_draw_options opt = {0};
    optinc_error err = {0};
    const char *dir = NULL, *formats = "svg,png", *input = NULL;
    int verbose = 0, extra = 0, ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "-ho:", longopts, NULL)) != -1) {
        switch (ch) {
        case 1: extra += input != NULL; input = optarg; break;   /* operand, in any place */
        case 'o': dir = optarg; break;
        case OPT_FORMAT: formats = optarg; break;
        case OPT_DETAIL: opt.force_detail = 1; break;
        case OPT_OVERVIEW: opt.force_overview = 1; break;
        case OPT_VERBOSE: verbose = 1; break;
        case 'h': fputs(usage_text, stdout); return 0;
        default:
            return cli_usage_error("draw", "unknown or incomplete option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (!input || extra)
        return cli_usage_error("draw", !input ? "missing SPEC or NET.sp"
                                              : "more than one input file");
    if (!dir)
        return cli_usage_error("draw", "missing -o DIR (the directory to draw into)");
    if (optinc_draw_parse_formats(formats, &opt.formats, &err))
        return cli_usage_error("draw", "%s", err.message);

    optinc_circuit *c = NULL;
    optinc_drawer *d = NULL;
    optinc_status st = optinc_circuit_load(input, cli_read_opts(), &c, &err);
    if (st)
        return cli_report(&err, st);
    for (int i = 0; i < c->n_warnings; i++)
        cli_warn("%s", c->warnings[i]);
    st = optinc_drawer_new(verbose, &d, &err);
    if (!st)
        st = optinc_draw_circuit(d, c, dir, &opt, &err);
    for (int i = 0; d && i < optinc_drawer_n_written(d); i++)
        printf("%s\n", optinc_drawer_written(d, i));
    optinc_drawer_free(d);
    optinc_circuit_free(c);
    return st ? cli_report(&err, st) : 0;
}

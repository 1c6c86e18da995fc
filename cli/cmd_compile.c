/*
 * cmd_compile.c - `optinc compile SPEC`: spec -> compiled circuit, with a
 * per-layer summary (text or JSON) and, with -o, the netlist.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "optinc/calibration.h"
#include "optinc/circuit.h"
#include "optinc/netlist.h"
#include "optinc/sim.h"
#include "optinc/spec.h"

static const char usage_text[] =
    "usage: optinc compile SPEC [-o NET.sp] [--flatten] [--expand-mzi] [--reproducible]\n"
    "                           [--calibration FILE] [--json] [--quiet]\n"
    "Compiles the weight matrices of a YAML spec into MZI meshes and attenuator columns,\n"
    "prints a per-layer summary and, with -o, writes the photonic netlist.\n"
    "  -o, --output NET.sp  write the netlist (atomically)\n"
    "  --flatten            one flat cell instead of one cell per layer\n"
    "  --expand-mzi         each MZI as phase shifters and 50:50 couplers\n"
    "  --reproducible       leave out the creation time (byte-identical reruns)\n"
    "  --calibration FILE   correct the phases for a chip's measured coupler errors\n"
    "  --json               print the summary as JSON\n"
    "  --quiet              print nothing but warnings and errors\n"
    "See optinc-compile(1).\n";

static const char *att_name(optinc_att_position a)
{
    static const char *names[] = {"middle", "none", "input", "output"};
    return names[a];
}

static void print_text(const optinc_circuit *c, const optinc_calibration_report *rep)
{
    printf("%-12s %9s %-8s %-6s %7s %7s %7s %4s %12s %10s\n", "layer", "shape", "mesh", "att",
           "modes", "MZIs", "columns", "atts", "gain", "rec.err");
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        char shape[32], modes[32];
        snprintf(shape, sizeof shape, "%dx%d", L->rows, L->cols);
        snprintf(modes, sizeof modes, "%d/%d", L->cols, L->rows);
        printf("%-12s %9s %-8s %-6s %7s %7d %7d %4d %12.6g %10.3g\n", L->name, shape,
               L->mesh_kind == OPTINC_MESH_RECK ? "reck" : "clements", att_name(L->attenuators),
               modes, optinc_layer_mzis(L), optinc_layer_columns(L),
               optinc_layer_attenuators(L), L->gain, L->reconstruction_error);
    }
    if (!rep)
        return;
    printf("\ncalibration (fidelity of the measured chip to the ideal circuit):\n");
    printf("%-12s %14s %14s %12s\n", "layer", "before", "after", "unreachable");
    for (int i = 0; i < rep->n_layers && i < c->n_layers; i++)
        printf("%-12s %14.9f %14.9f %7d/%-4d\n", c->layers[i].name, rep->layer[i].fidelity_before,
               rep->layer[i].fidelity_after, rep->layer[i].n_unreachable, rep->layer[i].n_mzi);
}

static void print_json(const optinc_circuit *c, const optinc_calibration_report *rep)
{
    printf("{\"name\": ");
    cli_json_string(stdout, c->name);
    printf(", \"layers\": [");
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        printf("%s\n  {\"name\": ", i ? "," : "");
        cli_json_string(stdout, L->name);
        printf(", \"rows\": %d, \"cols\": %d, \"mesh\": \"%s\", \"attenuators\": \"%s\", "
               "\"modes_in\": %d, \"modes_out\": %d, \"mzis\": %d, \"columns\": %d, "
               "\"attenuator_count\": %d, \"gain\": ", L->rows, L->cols,
               L->mesh_kind == OPTINC_MESH_RECK ? "reck" : "clements", att_name(L->attenuators),
               L->cols, L->rows, optinc_layer_mzis(L), optinc_layer_columns(L),
               optinc_layer_attenuators(L));
        cli_json_number(stdout, L->gain);
        printf(", \"reconstruction_error\": ");
        cli_json_number(stdout, L->reconstruction_error);
        printf(", \"approximation_error\": ");
        cli_json_number(stdout, L->approximation_error);
        if (rep && i < rep->n_layers) {
            printf(", \"fidelity_before\": ");
            cli_json_number(stdout, rep->layer[i].fidelity_before);
            printf(", \"fidelity_after\": ");
            cli_json_number(stdout, rep->layer[i].fidelity_after);
            printf(", \"unreachable_mzis\": %d", rep->layer[i].n_unreachable);
        }
        printf("}");
    }
    printf("\n], \"warnings\": %d}\n", c->n_warnings);
}

int cmd_compile(int argc, char **argv)
{
    enum { OPT_JSON = 256, OPT_QUIET, OPT_FLATTEN, OPT_EXPAND, OPT_REPRO, OPT_CAL };
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"flatten", no_argument, NULL, OPT_FLATTEN},
        {"expand-mzi", no_argument, NULL, OPT_EXPAND},
        {"reproducible", no_argument, NULL, OPT_REPRO},
        {"calibration", required_argument, NULL, OPT_CAL},
        {"json", no_argument, NULL, OPT_JSON},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int json = 0, quiet = 0, ch;
    const char *output = NULL, *cal_path = NULL;
    optinc_netlist_options nopt = {0};
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o': output = optarg; break;
        case OPT_FLATTEN: nopt.flatten = 1; break;
        case OPT_EXPAND: nopt.expand_mzi = 1; break;
        case OPT_REPRO: nopt.reproducible = 1; break;
        case OPT_CAL: cal_path = optarg; break;
        case OPT_JSON: json = 1; break;
        case OPT_QUIET: quiet = 1; break;
        case 'h': fputs(usage_text, stdout); return 0;
        default:
            return cli_usage_error("compile", "unknown or incomplete option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("compile", optind >= argc ? "missing SPEC" : "more than one SPEC");
    const char *path = argv[optind];

    optinc_error err = {0};
    optinc_spec *spec = NULL;
    optinc_circuit *c = NULL;
    optinc_status st = optinc_spec_load(path, cli_read_opts(), &spec, &err);
    if (!st)
        st = optinc_compile(spec, &c, &err);
    if (st) {
        optinc_spec_free(spec);
        return cli_report(&err, st);
    }
    optinc_calibration_report rep = {0};
    if (cal_path) {
        optinc_calibration *cal = NULL;
        st = optinc_calibration_read(cal_path, c, &cal, &err);
        if (!st)
            st = optinc_calibrate_circuit(c, cal, OPTINC_CAL_REFIT, &rep, &err);
        optinc_calibration_free(cal);
        if (st) {
            optinc_circuit_free(c);
            optinc_spec_free(spec);
            return cli_report(&err, st);
        }
    }
    for (int i = 0; i < c->n_warnings; i++)
        cli_warn("%s", c->warnings[i]);
    if (output && (st = optinc_netlist_write(c, output, &nopt, &err))) {
        optinc_circuit_free(c);
        optinc_spec_free(spec);
        return cli_report(&err, st);
    }
    if (json)
        print_json(c, cal_path ? &rep : NULL);
    else if (!quiet)
        print_text(c, cal_path ? &rep : NULL);
    optinc_calibration_report_free(&rep);
    optinc_circuit_free(c);
    optinc_spec_free(spec);
    return 0;
}

/*
 * cmd_compile.c - `optinc compile SPEC`: spec -> compiled circuit, with a
 * per-layer summary (text or JSON) and, with -o, the netlist.
 */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "optinc/calibration.h"
#include "optinc/circuit.h"
#include "optinc/netlist.h"
#include "optinc/sim.h"
#include "optinc/spec.h"

/* What --help says besides the options. */
static const cli_cmd compile_cmd = {"compile", "SPEC", NULL,
    "Compiles the weight matrices of a YAML spec into MZI meshes and "
    "attenuator columns,\nprints a per-layer summary and, with -o, writes "
    "the photonic netlist."};

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
               optinc_mesh_kind_names[L->mesh_kind], optinc_att_position_names[L->attenuators],
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
               "\"attenuator_count\": %d, \"splitters\": %d, \"combiners\": %d", L->rows, L->cols,
               optinc_mesh_kind_names[L->mesh_kind], optinc_att_position_names[L->attenuators],
               L->cols, L->rows, optinc_layer_mzis(L), optinc_layer_columns(L),
               optinc_layer_attenuators(L), optinc_layer_splitters(L), optinc_layer_combiners(L));
        cli_json_field(stdout, "gain", L->gain);
        cli_json_field(stdout, "reconstruction_error", L->reconstruction_error);
        cli_json_field(stdout, "approximation_error", L->approximation_error);
        if (rep && i < rep->n_layers) {
            cli_json_field(stdout, "fidelity_before", rep->layer[i].fidelity_before);
            cli_json_field(stdout, "fidelity_after", rep->layer[i].fidelity_after);
            printf(", \"unreachable_mzis\": %d", rep->layer[i].n_unreachable);
        }
        printf("}");
    }
    printf("\n], \"warnings\": %d}\n", c->n_warnings);
}

int cmd_compile(int argc, char **argv)
{
    int json = 0, quiet = 0;
    const char *output = NULL, *cal_path = NULL, *operand[CLI_MAX_OPERANDS];
    optinc_netlist_options nopt = {0};
    const cli_opt opts[] = {
        CLI_OPT_OUTPUT(&output, "NET.sp", 0, NULL, "write the netlist (atomically)"),
        CLI_OPT_FLATTEN(&nopt.flatten),
        CLI_OPT_EXPAND_MZI(&nopt.expand_mzi),
        CLI_OPT_FLAG("reproducible", &nopt.reproducible,
         "leave out the creation time (byte-identical reruns)"),
        CLI_OPT_CALIBRATION(&cal_path, "recompile the phases for a chip's measured couplers "
                            "(and phase offsets)"),
        CLI_OPT_JSON(&json, "print the summary as JSON"),
        CLI_OPT_QUIET(&quiet, "print nothing but warnings and errors"),
        CLI_OPT_END};
    int rc = cli_parse(&compile_cmd, opts, argc, argv, operand);
    if (rc >= 0)
        return rc;
    nopt.limits = cli_read_opts()->limits;   /* what it writes, the readers take */
    const char *path = operand[0];

    optinc_error err = {0};
    optinc_spec *spec = NULL;
    optinc_circuit *c = NULL;
    cli_input(path, "spec");
    cli_input(cal_path, "calibration file");
    optinc_status st = optinc_spec_load(path, cli_read_opts(), &spec, &err);
    if (!st)
        st = cli_check_outputs(&output, 1, &err);
    if (!st)
        st = optinc_compile(spec, &c, &err);
    if (st) {
        optinc_spec_free(spec);
        return cli_report(&compile_cmd, &err, st);
    }
    optinc_calibration_report rep = {0};
    if (cal_path) {
        optinc_calibration *cal = NULL;
        st = optinc_calibration_read(cal_path, c, cli_read_opts(), &cal, &err);
        if (!st && cal->has_offsets)   /* format 2: offsets too, the whole recompilation */
            st = optinc_recompile_circuit(c, cal, &err);
        else if (!st)
            st = optinc_calibrate_circuit(c, cal, OPTINC_CAL_REFIT, &rep, &err);
        optinc_calibration_free(cal);
        if (st) {
            optinc_circuit_free(c);
            optinc_spec_free(spec);
            return cli_report(&compile_cmd, &err, st);
        }
    }
    for (int i = 0; i < c->n_warnings; i++)
        cli_warn("%s", c->warnings[i]);
    /* the netlist goes in place only once the summary is written too */
    optinc_outs set = {0};
    if (output)
        st = optinc_netlist_add(&set, c, output, &nopt, &err);
    if (!st && json)
        print_json(c, cal_path ? &rep : NULL);
    else if (!st && !quiet)
        print_text(c, cal_path ? &rep : NULL);
    st = cli_outs_end(&set, st, &err);
    optinc_calibration_report_free(&rep);
    optinc_circuit_free(c);
    optinc_spec_free(spec);
    return st ? cli_report(&compile_cmd, &err, st) : 0;
}

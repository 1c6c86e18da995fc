/*
 * cmd_simulate.c - `optinc simulate NET.sp|SPEC`: run a compiled circuit on
 * simulated chips.  Prints, per layer, how well the compiled (ideal-device)
 * circuit realizes its target and the Monte-Carlo statistics of the chips
 * against the ideal circuit (optionally before and after error-aware
 * calibration); writes the ideal transfer matrix, the outputs of an input
 * batch, and a chip's coupler errors as a calibration file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "optinc/calibration.h"
#include "optinc/fileio.h"
#include "optinc/netlist.h"
#include "optinc/sim.h"

/* What --help says besides the options. */
static const cli_cmd simulate_cmd = {"simulate", "NET.sp|SPEC", NULL,
    "Runs a compiled circuit on K simulated chips with the device errors "
    "of its\ncomponents table and prints per-layer fidelity."};

typedef struct sim_args {
    const char *circuit, *input, *output, *matrix, *calibration, *save_calibration;
    long chips;
    uint64_t seed;
    int have_seed, ideal, unquantized, json, calibrate;
    optinc_precision precision;
    optinc_detect detect;
    double reference_phase;
    optinc_calibration_method method;
} sim_args;

/* Parses the command line into a; returns -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, sim_args *a)
{
    int use_float = 0, detect = OPTINC_DETECT_FIELD, method = OPTINC_CAL_LOCAL;
    const char *operand[CLI_MAX_OPERANDS];
    memset(a, 0, sizeof *a);
    a->chips = 1;
    const cli_opt opts[] = {
        CLI_OPT_STRING("input", 0, &a->input, "FILE",
         "an input batch, N x B (.npy or .csv), one column per vector"),
        CLI_OPT_OUTPUT(&a->output, "FILE.npy", 0, NULL, "the outputs of the --input batch"),
        CLI_OPT_STRING("matrix", 0, &a->matrix, "OUT.npy", "write the ideal transfer matrix"),
        {"monte-carlo", 0, CLI_LONG, CLI_DST(long, &a->chips), "K", "simulate K chips", .min = 1,
         .max = 1000000, .what = "a chip count"},
        CLI_OPT_SEED(&a->seed, &a->have_seed, "the circuit's",
                     "seed of the first chip's device errors"),
        CLI_OPT_FLAG("ideal", &a->ideal, "chips without device errors"),
        CLI_OPT_FLAG("unquantized", &a->unquantized,
         "drivers realize the unquantized phase targets"),
        CLI_OPT_FLAG("float", &use_float, "propagate --input in single precision"),
        {"detect", 0, CLI_ENUM, CLI_DST(int, &detect), NULL,
         "what the detectors of --input measure", .words = optinc_detect_names},
        {"reference-phase", 0, CLI_DOUBLE, CLI_DST(double, &a->reference_phase), "RAD",
         "reference of --detect coherent", .lo = -INFINITY, .hi = INFINITY,
         .what = "a phase in radians"},
        {"calibrate", 0, CLI_ENUM, CLI_DST(int, &method), NULL,
         "calibrate every chip (alone: local)", .words = optinc_calibration_method_names, .flags = CLI_OPTIONAL,
         .given = &a->calibrate},
        CLI_OPT_CALIBRATION(&a->calibration, "the chip's measured couplers"),
        CLI_OPT_STRING("save-calibration", 0, &a->save_calibration, "FILE",
         "write the first chip's coupler errors as a calibration file"),
        CLI_OPT_JSON(&a->json, "print the report as JSON"),
        CLI_OPT_END};
    int rc = cli_parse(&simulate_cmd, opts, argc, argv, operand);
    if (rc >= 0)
        return rc;
    a->circuit = operand[0];
    a->precision = use_float ? OPTINC_FLOAT : OPTINC_DOUBLE;
    a->detect = (optinc_detect)detect;
    a->method = (optinc_calibration_method)method;
    if (a->output && !a->input)
        return cli_usage_error("simulate", "--output writes the outputs of an --input batch; "
                               "give --input FILE too");
    if (a->input && !a->output)
        return cli_usage_error("simulate", "--input needs --output FILE.npy for the outputs");
    if (a->ideal && (a->calibrate || a->calibration))
        return cli_usage_error("simulate", "--ideal chips have no coupler errors to calibrate; "
                               "leave out --ideal or the calibration options");
    return -1;
}

/* ------------------------------------------------------------------ report */

static void json_fid(const optinc_fidelity *f)
{
    printf("{\"max_abs\": ");
    cli_json_number(stdout, f->max_abs);
    cli_json_field(stdout, "rel_frobenius", f->rel_frobenius);
    cli_json_field(stdout, "fidelity", f->fidelity);
    printf("}");
}

static void json_stats(const optinc_mc_stats *s)
{
    printf("{\"mean\": ");
    json_fid(&s->mean);
    printf(", \"std\": ");
    json_fid(&s->std);
    printf("}");
}

static void print_json(const optinc_circuit *c, const sim_args *a, uint64_t seed,
                       const optinc_fidelity *compiled, const int *has_target,
                       const optinc_mc_result *mc)
{
    printf("{\"circuit\": ");
    cli_json_string(stdout, c->name);
    printf(", \"seed\": %llu, \"chips\": %ld, \"ideal\": %s, \"unquantized\": %s, "
           "\"calibrated\": %s, \"layers\": [", (unsigned long long)seed, a->chips,
           a->ideal ? "true" : "false", a->unquantized ? "true" : "false",
           !a->calibrate ? "false" : a->method == OPTINC_CAL_REFIT ? "\"refit\"" : "\"local\"");
    for (int l = 0; l < c->n_layers; l++) {
        const optinc_layer *L = &c->layers[l];
        printf("%s\n  {\"name\": ", l ? "," : "");
        cli_json_string(stdout, L->name);
        printf(", \"rows\": %d, \"cols\": %d, \"mzis\": %d, \"attenuators\": %d", L->rows,
               L->cols, optinc_layer_mzis(L), optinc_layer_attenuators(L));
        cli_json_field(stdout, "gain", L->gain);
        printf(", \"compiled\": ");
        if (has_target[l])
            json_fid(&compiled[l]);
        else
            printf("null");
        printf(", \"chip\": ");
        json_stats(&mc->before[l]);
        if (mc->after) {
            printf(", \"calibrated_chip\": ");
            json_stats(&mc->after[l]);
        }
        printf("}");
    }
    printf("\n]}\n");
}

static void print_text(const optinc_circuit *c, const sim_args *a, uint64_t seed,
                       const optinc_fidelity *compiled, const int *has_target,
                       const optinc_mc_result *mc)
{
    printf("circuit '%s': %d layer%s; %ld chip%s from seed %llu; device errors: %s%s\n",
           c->name, c->n_layers, c->n_layers == 1 ? "" : "s", a->chips, a->chips == 1 ? "" : "s",
           (unsigned long long)seed, a->ideal ? "none (--ideal)" : "components table",
           a->unquantized ? "; drivers unquantized" : "");
    printf("%-30s %-23s %s\n", "", "compiled vs target", "chips vs ideal (mean +- std)");
    printf("%-12s %9s %7s %10s %12s  %22s %11s %10s\n", "layer", "shape", "MZIs", "max|dT|",
           "fidelity", "fidelity", "rel.Frob", "max|dT|");
    for (int l = 0; l < c->n_layers; l++) {
        const optinc_layer *L = &c->layers[l];
        char shape[32], max[32] = "-", fid[32] = "-";
        snprintf(shape, sizeof shape, "%dx%d", L->rows, L->cols);
        if (has_target[l]) {
            snprintf(max, sizeof max, "%.2e", compiled[l].max_abs);
            snprintf(fid, sizeof fid, "%.9f", compiled[l].fidelity);
        }
        for (int pass = 0; pass < (mc->after ? 2 : 1); pass++) {
            const optinc_mc_stats *m = pass ? &mc->after[l] : &mc->before[l];
            if (pass)
                printf("%-12s %9s %7s %10s %12s ", "", "", "", "", "calibrated:");
            else
                printf("%-12s %9s %7d %10s %12s ", L->name, shape, optinc_layer_mzis(L), max,
                       fid);
            printf(" %11.9f +- %7.1e %11.3e %10.2e\n", m->mean.fidelity, m->std.fidelity,
                   m->mean.rel_frobenius, m->mean.max_abs);
        }
    }
}

/* ------------------------------------------------------------------ actions */

/* The run's outputs (-o, --matrix, --save-calibration) are computed first,
 * kept in memory through the Monte Carlo, and written last as one set of
 * outputs (fileio.h): in place only when the whole run, its report on
 * standard output included (cli_outs_end), has succeeded, and no temporary
 * file waits through a long run for an interrupt to strand it. */
static optinc_status ideal_matrix(const optinc_circuit *c, optinc_cmat **M, optinc_error *err)
{
    optinc_chip *chip;
    optinc_chip_options o = {OPTINC_DEV_NONE, OPTINC_DRIVE_CODES, NULL, 0};
    optinc_status st = optinc_chip_new(c, &o, 0, &chip, err);
    if (!st) {
        st = optinc_chip_circuit_matrix(chip, M, err);
        optinc_chip_free(chip);
    }
    return st;
}

/* Reads the --input batch and checks its shape against the circuit. */
static optinc_status read_input(const optinc_circuit *c, const char *path, optinc_cmat **X,
                                optinc_error *err)
{
    int is_complex;
    size_t n = strlen(path);
    optinc_status st = n > 4 && !strcmp(path + n - 4, ".csv")
                           ? optinc_csv_read(path, cli_read_opts(), X, &is_complex, err)
                           : optinc_npy_read(path, cli_read_opts(), X, &is_complex, err);
    if (!st && (*X)->rows != c->layers[0].cols)
        st = optinc_fail(err, OPTINC_EINPUT, path, 0, 0,
                         "the input is %dx%d, but circuit '%s' takes %d modes; give one row "
                         "per input mode and one column per vector (N x B)", (*X)->rows,
                         (*X)->cols, c->name, c->layers[0].cols);
    return st;
}

static optinc_status run_input(const optinc_circuit *c, const sim_args *a, const optinc_cmat *X,
                               const optinc_chip_options *o, uint64_t seed, optinc_cmat **Y,
                               optinc_error *err)
{
    optinc_chip *chip = NULL;
    optinc_status st = optinc_chip_new(c, o, seed, &chip, err);
    if (!st && a->calibrate)
        st = optinc_chip_calibrate(chip, NULL, a->method, err);
    optinc_eval_options eo;
    optinc_eval_options_default(&eo);
    eo.precision = a->precision;
    eo.detect = a->detect;
    eo.reference_phase_rad = a->reference_phase;
    if (!st)
        st = optinc_chip_eval(chip, X, Y, &eo, err);
    optinc_chip_free(chip);
    return st;
}

static optinc_status chip_calibration(const optinc_circuit *c, const optinc_chip_options *o,
                                      uint64_t seed, optinc_calibration **cal,
                                      optinc_error *err)
{
    optinc_chip *chip;
    optinc_status st = optinc_chip_new(c, o, seed, &chip, err);
    if (!st) {
        st = optinc_calibration_from_chip(chip, cal, err);
        optinc_chip_free(chip);
    }
    return st;
}

/* Compiled (ideal-device) circuit against each layer's target / gain. */
static optinc_status compiled_metrics(const optinc_circuit *c, optinc_fidelity *f, int *has,
                                      optinc_error *err)
{
    optinc_status st = OPTINC_OK;
    for (int l = 0; !st && l < c->n_layers; l++) {
        const optinc_layer *L = &c->layers[l];
        has[l] = L->target != NULL;
        if (!has[l])
            continue;
        optinc_cmat *T = optinc_layer_transfer(L), *W = optinc_cmat_copy(L->target);
        if (!T || !W)
            st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
        for (size_t i = 0; !st && i < (size_t)W->rows * (size_t)W->cols; i++)
            W->a[i] /= L->gain;
        if (!st)
            st = optinc_fidelity_compute(W, T, &f[l], err);
        optinc_cmat_free(T);
        optinc_cmat_free(W);
    }
    return st;
}

int cmd_simulate(int argc, char **argv)
{
    sim_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;

    optinc_error err = {0};
    optinc_circuit *c = NULL;
    optinc_calibration *cal = NULL;
    optinc_mc_result *mc = NULL;
    optinc_cmat *X = NULL;
    optinc_fidelity *compiled = NULL;
    int *has_target = NULL;
    const char *outputs[] = {a.output, a.matrix, a.save_calibration};
    cli_input(a.circuit, "circuit");
    cli_input(a.input, "input batch");
    cli_input(a.calibration, "calibration file");
    optinc_status st = optinc_circuit_load(a.circuit, cli_read_opts(), &c, &err);
    if (!st && (st = cli_check_outputs(outputs, 3, &err)))
        optinc_circuit_free(c);
    if (st)
        return cli_report(&simulate_cmd, &err, st);
    for (int i = 0; i < c->n_warnings; i++)
        cli_warn("%s", c->warnings[i]);
    uint64_t seed = a.have_seed ? a.seed : c->seed;

    optinc_mc_options mo = {.chips = (int)a.chips, .seed = seed, .calibrate = a.calibrate,
                            .method = a.method};
    optinc_chip_options_default(&mo.chip);
    if (a.ideal)
        mo.chip.models = OPTINC_DEV_NONE;
    mo.chip.drive_targets = a.unquantized;
    if (a.calibration && !(st = optinc_calibration_read(a.calibration, c, cli_read_opts(), &cal, &err)))
        mo.chip.couplers = cal;
    if (!st && a.input)
        st = read_input(c, a.input, &X, &err);
    optinc_cmat *M = NULL, *Y = NULL;
    optinc_calibration *saved = NULL;
    if (!st && a.matrix && (st = ideal_matrix(c, &M, &err)) == OPTINC_EINPUT && !*err.file)
        snprintf(err.file, sizeof err.file, "%s", a.circuit);   /* the circuit has no matrix */
    if (!st && a.input)
        st = run_input(c, &a, X, &mo.chip, seed, &Y, &err);
    if (!st && a.save_calibration)
        st = chip_calibration(c, &mo.chip, seed, &saved, &err);
    compiled = calloc((size_t)c->n_layers + 1, sizeof *compiled);
    has_target = calloc((size_t)c->n_layers + 1, sizeof *has_target);
    if (!st && (!compiled || !has_target))
        st = optinc_fail(&err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    if (!st)
        st = compiled_metrics(c, compiled, has_target, &err);
    if (!st)
        st = optinc_monte_carlo(c, &mo, &mc, &err);
    optinc_outs set = {0};
    if (!st && M)
        st = optinc_npy_add(&set, a.matrix, M, 0, &err);
    if (!st && Y)
        st = optinc_npy_add(&set, a.output, Y, a.detect != OPTINC_DETECT_FIELD, &err);
    if (!st && saved)
        st = optinc_calibration_add(&set, saved, c, a.save_calibration, &err);
    if (!st && a.json)
        print_json(c, &a, seed, compiled, has_target, mc);
    else if (!st)
        print_text(c, &a, seed, compiled, has_target, mc);
    st = cli_outs_end(&set, st, &err);
    optinc_mc_result_free(mc);
    optinc_cmat_free(M);
    optinc_cmat_free(Y);
    optinc_calibration_free(saved);
    optinc_cmat_free(X);
    free(compiled);
    free(has_target);
    optinc_calibration_free(cal);
    optinc_circuit_free(c);
    return st ? cli_report(&simulate_cmd, &err, st) : 0;
}

/*
 * onn_cascade.c - `optinc onn cascade` and `optinc onn cost`: cascades of
 * the ONN checked end to end (any depth of one unit, or two trained levels)
 * and what each size of cascade costs.  See optinc-onn(1) and, for the
 * design, optinc-onn(7) ("Cascades of any depth", "What each size costs").
 */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/onn_cli.h"
#include "optinc/costmodel.h"
#include "optinc/rng.h"

/* ---- cascade --------------------------------------------------------------- */

/* The errors of a histogram in LSBs, as verify prints them. */
static void hist_text(const uint64_t *h)
{
    for (int b = 0; b < 2 * OPTINC_ONN_HIST + 1; b++)
        if (h[b])
            printf("  %s%d: %llu", b == 0 ? "<=" : b == 2 * OPTINC_ONN_HIST ? ">=" : "",
                   b - OPTINC_ONN_HIST, (unsigned long long)h[b]);
}

/* A chip drawn from a seed: another per level; ideal or programmed devices
 * without errors are one table for every level. */
static int devices_drawn(const optinc_onn_devices *dev)
{
    return dev->chip || (dev->ideal != 1 && dev->phase_sigma_rad > 0);
}

/* The cascade of any depth of one unit: each level's table on its own chip
 * (chip seed optinc_chip_seed(seed, level)), then the end-to-end check. */
static int cascade_any(const cli_cmd *cmd, const char *path, const device_opts *d,
                       const optinc_onn_devices *dev, int servers, int levels, uint64_t sample,
                       uint64_t seed, double spread, int json)
{
    optinc_error err = {0};
    optinc_circuit *c = NULL;
    optinc_onn_meta m;
    optinc_onn_cascade k = {0};   /* levels 0 until its shape is known: nothing to free */
    optinc_onn_lut *lut[OPTINC_ONN_MAX_LEVELS] = {NULL};
    optinc_onn_cascade_report r;
    optinc_status st = load_onn(path, NULL, &c, &m, &err);
    if (!st && (m.level != 0 || m.task.pre != OPTINC_P_DIGIT_SUMS))
        st = optinc_fail(&err, OPTINC_EINPUT, path, 0, 0,
                         "a cascade of any depth is built from one unit with digit sums; this "
                         "ONN is %s: give one unit (level 0), or two levels LEVEL1 LEVEL2",
                         m.level ? "a level of a two-level cascade" : "a weighted-sum unit");
    for (int l = 0; !st && !servers && levels && l < levels; l++)   /* --levels alone */
        servers = l ? servers * m.fan_in : m.fan_in;
    if (!st)
        st = optinc_onn_cascade_shape(&k, servers, m.fan_in, levels, m.bits, &err);
    for (int l = 0; !st && l < k.levels; l++) {
        optinc_onn_devices dl = *dev;
        dl.chip_seed = optinc_chip_seed(dev->chip_seed, l);
        if (l && !devices_drawn(dev))
            k.lut[l] = k.lut[0];
        else if (!(st = optinc_onn_lut_build(c, &m, &dl, &lut[l], &err)))
            k.lut[l] = lut[l];
    }
    if (!st)
        st = optinc_onn_cascade_check(&k, sample, seed, spread, &r, &err);
    optinc_onn_area a;
    long units = 0;
    if (!st) {
        optinc_onn_area_of(c, &m, &a);
        for (int l = 0; l < k.levels; l++)
            units += optinc_onn_cascade_units(&k, l);
    }
    char dt[1500];
    devices_text(d, dev, dt, sizeof dt);
    double n = (double)sample;
    if (st) {
    } else if (json) {
        printf("{\"unit\": ");
        cli_json_string(stdout, path);
        printf(", \"servers\": %d, \"fan_in\": %d, \"levels\": %d, \"slots\": %d, "
               "\"bits\": %d, \"units\": %ld", k.servers, k.fan_in, k.levels, k.slots, k.bits,
               units);
        devices_json(d, dev);
        printf(", \"per_level\": [");
        for (int l = 0; l < k.levels; l++) {
            const optinc_onn_cascade_level *v = &r.level[l];
            printf("%s{\"level\": %d, \"units\": %ld, \"unit_accuracy\": ", l ? ", " : "",
                   l + 1, optinc_onn_cascade_units(&k, l));
            cli_json_number(stdout, k.lut[l]->report.accuracy);
            printf(", \"unit_inputs\": %llu, \"outputs\": %llu, \"wrong\": %llu, "
                   "\"deviating\": %llu", (unsigned long long)k.lut[l]->report.checked,
                   (unsigned long long)v->outputs, (unsigned long long)v->wrong,
                   (unsigned long long)v->deviating);
            hist_json("deviation", v->hist, NULL);
            printf("}");
        }
        printf("], \"samples\": %llu", (unsigned long long)sample);
        cli_json_field(stdout, "spread", spread);
        cli_json_field(stdout, "hierarchical_accuracy", (double)r.exact_hierarchical / n);
        cli_json_field(stdout, "flat_accuracy", (double)r.exact_flat / n);
        cli_json_field(stdout, "exact_units_flat_accuracy", (double)r.ideal_exact_flat / n);
        hist_json("error_vs_flat", r.hist_flat, NULL);
        hist_json("exact_units_error_vs_flat", r.ideal_hist_flat, NULL);
        printf(", \"unit_mzis\": %ld, \"mzis\": %ld", a.netlist_mzis, a.netlist_mzis * units);
        cli_json_field(stdout, "unit_area", a.model.total);
        cli_json_field(stdout, "area", a.model.total * (double)units);
        printf("}\n");
    } else {
        printf("cascade of %s for %d servers: %d levels of %d-server units (%d slots), %ld "
               "units, %d-bit codes\ndevices: %s%s\n", path, k.servers, k.levels, k.fan_in,
               k.slots, units, k.bits, dt, devices_drawn(dev) ? ", one chip per level" : "");
        for (int l = 0; l < k.levels; l++) {
            const optinc_onn_cascade_level *v = &r.level[l];
            printf("level %d: %ld units, unit accuracy %.6f over %llu P outputs (exhaustive); "
                   "%llu outputs, %llu wrong, %llu off the exact cascade:", l + 1,
                   optinc_onn_cascade_units(&k, l), k.lut[l]->report.accuracy,
                   (unsigned long long)k.lut[l]->report.checked, (unsigned long long)v->outputs,
                   (unsigned long long)v->wrong, (unsigned long long)v->deviating);
            hist_text(v->hist);
            printf("\n");
        }
        char how[64] = "uniform";
        if (spread > 0)
            snprintf(how, sizeof how, "gradient-like (zero code + N(0, %g) LSB)", spread);
        printf("end to end: %llu random %d-server inputs, %s, %llu equal to the exact units' "
               "cascade (%.6f)\n", (unsigned long long)sample, k.servers, how,
               (unsigned long long)r.exact_hierarchical, (double)r.exact_hierarchical / n);
        printf("against the flat average rounded once: %.6f exact, errors in LSBs:",
               (double)r.exact_flat / n);
        hist_text(r.hist_flat);
        printf("\n(exact units: %.6f,", (double)r.ideal_exact_flat / n);
        hist_text(r.ideal_hist_flat);
        printf(")\nhardware: %ld units x %ld MZIs = %ld MZIs, %.0f MZI-equivalents\n", units,
               a.netlist_mzis, a.netlist_mzis * units, a.model.total * (double)units);
    }
    for (int l = 0; l < k.levels; l++)
        optinc_onn_lut_free(lut[l]);
    optinc_circuit_free(c);
    return st ? cli_report(cmd, &err, st) : 0;
}

/* The two-level cascade of two trained levels (level 1 keeps the sum's
 * fraction, level 2 rounds once). */
static int cascade_two(const cli_cmd *cmd, const char **operand, const optinc_onn_devices *devp,
                       uint64_t sample, uint64_t seed, int json)
{
    optinc_onn_devices dev = *devp;
    optinc_error err = {0};
    optinc_circuit *c[2] = {NULL, NULL};
    optinc_onn_meta m[2];
    optinc_onn_lut *lut[2] = {NULL, NULL};
    optinc_status st = OPTINC_OK;
    for (int i = 0; i < 2 && !st; i++) {
        if (!(st = load_onn(operand[i], NULL, &c[i], &m[i], &err)) && m[i].level != i + 1)
            st = optinc_fail(&err, OPTINC_EINPUT, operand[i], 0, 0,
                             "this ONN is %s, not level %d of a cascade (info: onn_level)",
                             m[i].level ? "another level" : "a single unit", i + 1);
        if (!st)
            st = optinc_onn_lut_build(c[i], &m[i], &dev, &lut[i], &err);
    }
    if (!st && (m[0].fan_in != m[1].fan_in || m[0].bits != m[1].bits))
        st = optinc_fail(&err, OPTINC_EINPUT, operand[1], 0, 0,
                         "the two levels disagree on fan_in or gradient bits");
    if (st) {
        for (int i = 0; i < 2; i++) {
            optinc_onn_lut_free(lut[i]);
            optinc_circuit_free(c[i]);
        }
        return cli_report(cmd, &err, st);
    }
    /* End to end: fan_in groups of fan_in random codes. */
    int F = m[0].fan_in, bits = m[0].bits, D = bits / 2;
    optinc_rng rng;
    optinc_rng_stream(&rng, seed, 0);
    uint64_t ok = 0;
    for (uint64_t s = 0; s < sample; s++) {
        uint32_t group[64], codes[64];
        uint64_t sum = 0;
        for (int g = 0; g < F; g++) {
            for (int i = 0; i < F; i++) {
                codes[i] = (uint32_t)optinc_rng_below(&rng, 1ull << bits);
                sum += codes[i];
            }
            int p[OPTINC_ONN_MAX_DIGITS];
            optinc_onn_preprocess(&m[0].task, codes, p);
            group[g] = optinc_onn_lut_lookup(lut[0], p);
        }
        int p[OPTINC_ONN_MAX_DIGITS];
        optinc_onn_preprocess(&m[1].task, group, p);
        uint32_t got = optinc_onn_lut_lookup(lut[1], p);
        /* the global target: round(sum / F^2) with level 2's rounding */
        int q[OPTINC_ONN_MAX_DIGITS] = {0};
        q[0] = (int)sum;
        optinc_onn_task whole = m[1].task;
        whole.pre = OPTINC_P_WEIGHTED_SUM;
        ok += got == optinc_onn_target(&whole, q);
    }
    optinc_onn_area a[2];
    for (int i = 0; i < 2; i++)
        optinc_onn_area_of(c[i], &m[i], &a[i]);
    double units = F + 1.0, cost = F * a[0].model.total + a[1].model.total;
    if (json) {
        printf("{\"servers\": %d, \"bits\": %d, \"level1_accuracy\": ", F * F, bits);
        cli_json_number(stdout, lut[0]->report.accuracy);
        printf(", \"level1_inputs\": %llu", (unsigned long long)lut[0]->report.checked);
        cli_json_field(stdout, "level2_accuracy", lut[1]->report.accuracy);
        printf(", \"level2_inputs\": %llu", (unsigned long long)lut[1]->report.checked);
        cli_json_field(stdout, "end_to_end_accuracy", (double)ok / (double)sample);
        printf(", \"end_to_end_samples\": %llu, \"units\": %.0f, \"level1_area\": %.0f, "
               "\"level2_area\": %.0f, \"level1_mzis\": %ld, \"level2_mzis\": %ld}\n",
               (unsigned long long)sample,
               units, a[0].model.total, a[1].model.total, a[0].netlist_mzis, a[1].netlist_mzis);
    } else {
        printf("cascade of %d units for %d servers, %d-bit codes (D = %d digits)\n", (int)units,
               F * F, bits, D);
        printf("level 1: accuracy %.6f over %llu P outputs (exhaustive), %.0f MZI-equivalents "
               "(netlist %ld MZIs)\n", lut[0]->report.accuracy,
               (unsigned long long)lut[0]->report.checked, a[0].model.total, a[0].netlist_mzis);
        printf("level 2: accuracy %.6f over %llu reachable P outputs (exhaustive), %.0f "
               "MZI-equivalents (netlist %ld MZIs)\n", lut[1]->report.accuracy,
               (unsigned long long)lut[1]->report.checked, a[1].model.total, a[1].netlist_mzis);
        printf("end to end: %llu of %llu random %d-server inputs exact (%.6f)\n",
               (unsigned long long)ok, (unsigned long long)sample, F * F,
               (double)ok / (double)sample);
        printf("hardware: %.0f MZI-equivalents in %d units\n", cost, (int)units);
    }
    for (int i = 0; i < 2; i++) {
        optinc_onn_lut_free(lut[i]);
        optinc_circuit_free(c[i]);
    }
    return 0;
}

int onn_cascade(const cli_cmd *cmd, int argc, char **argv)
{
    device_opts d;
    device_defaults(&d);
    uint64_t sample = 100000, seed = 1;
    int json = 0, servers = 16, levels = 0, servers_given = 0, levels_given = 0;
    double spread = 0;
    const char *operand[CLI_MAX_OPERANDS];
    const cli_opt opts[] = {
        CLI_OPT_JSON(&json, "print the report as JSON"),
        {"servers", 0, CLI_INT, CLI_DST(int, &servers), "N",
         "servers of a cascade of one unit (idle inputs past N)", .min = 2,
         .max = OPTINC_ONN_CASCADE_MAX_SERVERS, .given = &servers_given, .dflt = "16"},
        {"levels", 0, CLI_INT, CLI_DST(int, &levels), "L",
         "levels of one unit: fan_in^L servers unless --servers", .min = 1,
         .max = OPTINC_ONN_MAX_LEVELS, .given = &levels_given},
        /* the end-to-end inputs cannot be exhaustive (2^(b N) of them): at least one */
        {"sample", 0, CLI_U64, CLI_DST(uint64_t, &sample), "N", "random end-to-end inputs",
         .min = 1, .max = 1ull << 34},
        CLI_OPT_SEED(&seed, NULL, NULL, "seed of the end-to-end inputs"),
        {"spread", 0, CLI_DOUBLE, CLI_DST(double, &spread), "LSB",
         "a cascade of one unit: gradient-like codes, the zero code + N(0, LSB); 0 uniform",
         .lo = 0, .hi = 1e6},
        DEVICE_OPTIONS(&d),
        CLI_OPT_END};
    int rc = parse_devices(cmd, opts, argc, argv, operand, &d);
    if (rc >= 0)
        return rc;
    if (operand[1] && (servers_given || levels_given || spread > 0))
        return cli_usage_error(cmd->name, "two levels LEVEL1 LEVEL2 serve fan_in^2 servers; "
                               "--servers, --levels and --spread are for a cascade of one UNIT");
    optinc_error err = {0};
    optinc_onn_devices dev;
    optinc_status st = device_finish(&d, &dev, &err);
    if (st)
        return cli_report(cmd, &err, st);
    if (operand[1])
        return cascade_two(cmd, operand, &dev, sample, seed, json);
    if (levels_given && !servers_given)
        servers = 0;    /* fan_in^L, once the unit says its fan_in */
    return cascade_any(cmd, operand[0], &d, &dev, servers, levels, sample, seed, spread, json);
}

/* ---- cost -------------------------------------------------------------------- */

/* What the rows of the cost table assume, beside the chip file. */
typedef struct cost_opts {
    double mzi_um, coupler_um, group_index;
    double resnet_batch, llama_tokens;
} cost_opts;

/* Light's speed in um/ps. */
#define C_UM_PER_PS 299.792458

/* One row of the cost table: the cascade of unit c (meta m, area a) for N
 * servers. */
static void cost_row(const char *path, const optinc_onn_meta *m, const optinc_onn_area *a,
                     const optinc_onn_cascade *k, const optinc_chip_spec *chip,
                     const cost_opts *o, const optinc_costmodel *cm, int json, int first)
{
    long units = 0;
    for (int l = 0; l < k->levels; l++)
        units += optinc_onn_cascade_units(k, l);
    int depth = a->depth_mzis * k->levels, couplers = a->depth_couplers * k->levels;
    double loss = chip ? a->layer_depth_mzis * chip->components.mzi.insertion_loss_dB : -1.0;
    double ps = (depth * o->mzi_um + couplers * o->coupler_um) * o->group_index / C_UM_PER_PS;
    /* per element and server: b-bit codes plus a float32 scale per block
     * against float32 words over the ring */
    double opt_bytes = m->bits / 8.0 + 4.0 / OPTINC_AR_DEFAULT_BLOCK;
    double ring_bytes = 2.0 * (k->servers - 1) / k->servers * 4.0;
    optinc_iteration r, l;
    optinc_cost_iteration(cm, &optinc_workload_resnet50, o->resnet_batch, k->servers, m->bits,
                          &r);
    optinc_cost_iteration(cm, &optinc_workload_llama, o->llama_tokens, k->servers, m->bits, &l);
    if (json) {
        printf("%s{\"unit\": ", first ? "" : ", ");
        cli_json_string(stdout, path);
        printf(", \"servers\": %d, \"bits\": %d, \"levels\": %d, \"units\": %ld, "
               "\"mzis\": %ld", k->servers, m->bits, k->levels, units, a->netlist_mzis * units);
        cli_json_field(stdout, "area", a->model.total * (double)units);
        cli_json_field(stdout, "svd_area", a->svd.total * (double)units);
        cli_json_field(stdout, "area_ratio", a->ratio);
        printf(", \"depth_mzis\": %d, \"depth_couplers\": %d", depth, couplers);
        printf(", \"layer_depth_mzis\": %d", a->layer_depth_mzis);
        if (chip) {
            cli_json_field(stdout, "layer_loss_dB", loss);
            cli_json_field(stdout, "path_loss_dB",
                           depth * chip->components.mzi.insertion_loss_dB);
        }
        cli_json_field(stdout, "latency_ps", ps);
        cli_json_field(stdout, "bytes_per_element", opt_bytes);
        cli_json_field(stdout, "ring_bytes_per_element", ring_bytes);
        cli_json_field(stdout, "resnet50_saving", r.saving);
        cli_json_field(stdout, "llama_saving", l.saving);
        printf("}");
        return;
    }
    char lossbuf[32] = "-";
    if (chip)
        snprintf(lossbuf, sizeof lossbuf, "%.1f", loss);
    printf("%5d %4d %6d %6ld %10ld %12.0f %12.0f %6.1f%% %6d %8d %8s %9.1f %7.3f %7.3f "
           "%6.2fx %7.1f%% %7.1f%%\n", k->servers, m->bits, k->levels, units,
           a->netlist_mzis * units, a->model.total * (double)units, a->svd.total * (double)units,
           100.0 * a->ratio, depth, couplers, lossbuf, ps, opt_bytes, ring_bytes,
           ring_bytes / opt_bytes, 100.0 * r.saving, 100.0 * l.saving);
}

int onn_cost(const cli_cmd *cmd, int argc, char **argv)
{
    cost_opts o = {.mzi_um = 150, .coupler_um = 15, .group_index = 4.2, .resnet_batch = 64,
                   .llama_tokens = 8192};
    int json = 0, chip_given = 0, max_servers = OPTINC_ONN_CASCADE_MAX_SERVERS;
    const char *chip_path = NULL, *operand[CLI_MAX_OPERANDS];
    const cli_opt opts[] = {
        CLI_OPT_JSON(&json, "print the table as JSON"),
        CLI_OPT_CHIP(&chip_path, &chip_given, "the chip file whose MZI loss the loss column uses"),
        {"servers", 0, CLI_INT, CLI_DST(int, &max_servers), "N",
         "rows for F, F^2, ... servers up to N", .min = 2,
         .max = OPTINC_ONN_CASCADE_MAX_SERVERS, .dflt = "256"},
        {"mzi-length-um", 0, CLI_DOUBLE, CLI_DST(double, &o.mzi_um), "UM",
         "length of one MZI along the light (um)", .lo = 0, .hi = 1e6, .dflt = "150"},
        {"coupler-length-um", 0, CLI_DOUBLE, CLI_DST(double, &o.coupler_um), "UM",
         "length of one fixed splitter or combiner (um)", .lo = 0, .hi = 1e6, .dflt = "15"},
        {"group-index", 0, CLI_DOUBLE, CLI_DST(double, &o.group_index), "NG",
         "group index of the waveguides", .lo = 1, .hi = 10, .dflt = "4.2"},
        {"resnet-batch", 0, CLI_DOUBLE, CLI_DST(double, &o.resnet_batch), "B",
         "ResNet50 images per server and step (cost model)", .lo = 1, .hi = 1e9, .dflt = "64"},
        {"llama-tokens", 0, CLI_DOUBLE, CLI_DST(double, &o.llama_tokens), "T",
         "LLaMA tokens per server and step (cost model)", .lo = 1, .hi = 1e12, .dflt = "8192"},
        CLI_OPT_END};
    int rc = cli_parse(cmd, opts, argc, argv, operand);
    if (rc >= 0)
        return rc;
    optinc_error err = {0};
    optinc_chip_spec chip;
    optinc_costmodel cm;
    optinc_costmodel_defaults(&cm);
    optinc_status st = OPTINC_OK;
    if (chip_given) {
        cli_input(chip_path, "chip file");
        st = optinc_chip_spec_load(chip_path, cli_read_opts(), &chip, &err);
    }
    if (json && !st) {
        printf("{\"mzi_length_um\": ");
        cli_json_number(stdout, o.mzi_um);
        cli_json_field(stdout, "coupler_length_um", o.coupler_um);
        cli_json_field(stdout, "group_index", o.group_index);
        printf(", \"rows\": [");
    } else if (!st)
        printf("%5s %4s %6s %6s %10s %12s %12s %7s %6s %8s %8s %9s %7s %7s %7s %8s %8s\n", "N",
               "bits", "levels", "units", "MZIs", "area", "SVD area", "ratio", "depth",
               "couplers", "loss dB", "ps", "B/el", "ring", "saved", "ResNet50", "LLaMA");
    for (int u = 0, first = 1; !st && u < CLI_MAX_OPERANDS && operand[u]; u++) {
        optinc_circuit *c = NULL;
        optinc_onn_meta m;
        optinc_onn_area a;
        if (!(st = load_onn(operand[u], NULL, &c, &m, &err)) && m.level)
            st = optinc_fail(&err, OPTINC_EINPUT, operand[u], 0, 0,
                             "this ONN is a level of a two-level cascade: give one unit");
        if (!st)
            optinc_onn_area_of(c, &m, &a);
        for (int N = m.fan_in; !st && N <= max_servers; N *= m.fan_in, first = 0) {
            optinc_onn_cascade k;
            if (!(st = optinc_onn_cascade_shape(&k, N, m.fan_in, 0, m.bits, &err)))
                cost_row(operand[u], &m, &a, &k, chip_given ? &chip : NULL, &o, &cm, json,
                         first);
        }
        optinc_circuit_free(c);
    }
    if (st)
        return cli_report(cmd, &err, st);
    if (json)
        printf("]}\n");
    else
        printf("(depth: MZIs on the longest path, attenuators included, times the levels; "
               "loss: the MZIs of the longest path through one layer, between two "
               "regenerations, at the chip file's loss per MZI; "
               "ps through the optics at %g um per MZI, %g um per coupler, group index %g; "
               "B/el: bytes per element and server, ring's float32 words over the ring; "
               "saving of the cost model's step, ResNet50 at %g images, LLaMA at %g tokens "
               "per server)\n", o.mzi_um, o.coupler_um, o.group_index, o.resnet_batch,
               o.llama_tokens);
    return 0;
}


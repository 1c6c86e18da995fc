/*
 * test_drive.c - the drive codes of a measured chip (`optinc export
 * --format drive`, optinc-drive(5)): read back by a reader written from the
 * page and loaded into the same simulated chip, they give the accuracy
 * `onn verify --calibrate` reports for it; every row's numbers are what the
 * page says they are; bad combinations of options are refused.
 *
 * The chip is the small ONN of trainutil.h (4 servers of 4-bit codes) on the
 * realistic 12-bit chip (specs/chips/realistic12.yaml), so the whole test
 * runs in seconds.  The two evaluations run the same drives through the same
 * code on one machine, so their reports are compared with ==; the export
 * runs in another process, whose recompilation gives the same bits with the
 * one BLAS thread the Makefile sets (OPENBLAS_NUM_THREADS=1: with more, the
 * fits' zgemm sums in another order and the second layer's codes moved).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/calibration.h"
#include "optinc/onn.h"
#include "optinc/sim.h"
#include "optinc/spec.h"
#include "testutil.h"
#include "trainutil.h"

#define CHIP_FILE "specs/chips/realistic12.yaml"
#define CHIP_SEED 3
#define ROWS_MAX 20000

/* One row of the file, as optinc-drive(5) describes it. */
typedef struct row {
    char layer[64], name[160], param[16], tag;
    int stage, column, row;
    long code;
    double drive, crosstalk, offset, phase;
} row;

typedef struct codes {
    row *r;
    int n;
} codes;

static const char HEADER[] = "layer,stage,tag,column,row,name,param,code,drive_rad,"
                             "crosstalk_rad,offset_rad,phase_rad\n";

static void read_codes(const char *path, codes *k)
{
    size_t len;
    char *text = tu_read_file(path, &len);
    cr_assert(text, "%s", path);
    cr_assert_eq(strncmp(text, HEADER, strlen(HEADER)), 0, "header: %.120s", text);
    k->r = calloc(ROWS_MAX, sizeof *k->r);
    k->n = 0;
    for (char *line = strtok(text + strlen(HEADER), "\n"); line; line = strtok(NULL, "\n")) {
        cr_assert_lt(k->n, ROWS_MAX);
        row *r = &k->r[k->n++];
        int used = 0;
        cr_assert_eq(sscanf(line, "%63[^,],%d,%c,%d,%d,%159[^,],%15[^,],%ld,%lf,%lf,%lf,%lf%n",
                            r->layer, &r->stage, &r->tag, &r->column, &r->row, r->name,
                            r->param, &r->code, &r->drive, &r->crosstalk, &r->offset, &r->phase,
                            &used), 12, "%s", line);
        cr_assert_eq(line[used], '\0', "%s", line);
    }
    free(text);
}

/* optinc_onn_devices.program: each mesh stage's codes, in the file's order. */
static optinc_status load_codes(void *ctx, optinc_chip *chip, optinc_error *err)
{
    const codes *k = ctx;
    long *v = malloc(sizeof *v * ROWS_MAX);
    int start = 0;
    optinc_status st = OPTINC_OK;
    for (int i = 1; i <= k->n && !st; i++) {
        if (i < k->n && !strcmp(k->r[i].layer, k->r[start].layer)
            && k->r[i].stage == k->r[start].stage)
            continue;
        for (int j = start; j < i; j++)
            v[j - start] = k->r[j].code;
        int layer = k->r[start].layer[1] - '1';    /* the spec's layers are L1, L2, ... */
        st = optinc_chip_set_drive_codes(chip, layer, k->r[start].stage, v, err);
        start = i;
    }
    free(v);
    return st;
}

Test(drive, codes_read_back_give_the_calibrated_accuracy, .timeout = 120)
{
    char *dir = tu_tempdir(), onn[4200], cal[4300], csv[4300];
    cr_assert(dir);
    cr_assert_eq(tr_tiny_onn(dir, onn, sizeof onn), 0);
    snprintf(cal, sizeof cal, "%s/meas.cal", dir);
    snprintf(csv, sizeof csv, "%s/codes.csv", dir);
    optinc_error err;
    optinc_circuit *c = NULL;
    optinc_onn_meta m;
    optinc_chip_spec spec;
    cr_assert_eq(optinc_onn_load(onn, NULL, &c, &m, &err), 0, "%s", err.message);
    cr_assert_eq(optinc_chip_spec_load(CHIP_FILE, NULL, &spec, &err), 0, "%s", err.message);
    optinc_onn_devices dev = {.chip_seed = CHIP_SEED};
    optinc_onn_devices_use_chip(&dev, &spec, 1);

    /* what the lab measures on the chip onn verify draws (onn.h: every
     * device model, the targets on the chip's codes, balanced meshes) */
    for (int l = 0; l < c->n_layers; l++)
        c->layers[l].components = spec.components;
    optinc_chip_options o;
    optinc_chip_options_default(&o);
    o.drive_targets = OPTINC_DRIVE_REQUANTIZE;
    o.balance_loss = 1;
    optinc_chip *chip = NULL;
    optinc_calibration *meas = NULL;
    cr_assert_eq(optinc_chip_new(c, &o, CHIP_SEED, &chip, &err), 0, "%s", err.message);
    cr_assert_eq(optinc_calibration_measure(chip, dev.measure_phase_sigma_rad,
                                            dev.measure_splitter_sigma, CHIP_SEED, &meas, &err),
                 0, "%s", err.message);
    cr_assert_eq(optinc_calibration_write(meas, c, cal, &err), 0, "%s", err.message);
    optinc_calibration_free(meas);
    optinc_chip_free(chip);
    /* the measurement as the lab's file holds it (optinc-calibration(5)
     * prints delta = kappa - 0.5, so kappa reads back within an ulp, not
     * bit for bit): the reference recompiles from the same file */
    cr_assert_eq(optinc_calibration_read(cal, c, NULL, &meas, &err), 0, "%s", err.message);
    dev.measured = meas;

    tu_run r = tu_optinc((const char *[]){"export", onn, "--format", "drive", "--calibration",
                                          cal, "--chip", CHIP_FILE, "--chip-seed", "3", "-o",
                                          csv, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tu_run_free(&r);
    codes k;
    read_codes(csv, &k);

    /* one row per heater: two per MZI, one per mode of each output screen */
    long heaters = 0;
    for (int l = 0; l < c->n_layers; l++)
        for (int s = 0; s < c->layers[l].n_stages; s++)
            if (c->layers[l].stage[s].kind == OPTINC_STAGE_MESH)
                heaters += 2L * c->layers[l].stage[s].mesh->n_mzi
                           + c->layers[l].stage[s].mesh->modes;
    cr_assert_eq(k.n, heaters);
    double step = 2 * M_PI / 4096;   /* 12-bit drivers over [0, 2 pi) */
    int leaking = 0;
    for (int i = 0; i < k.n; i++) {
        const row *w = &k.r[i];
        cr_assert(w->code >= 0 && w->code < 4096, "%ld", w->code);
        /* the drive is the code's grid value; the file prints the shortest
         * decimal that reads back exactly, so 1 ulp of 2 pi bounds it */
        cr_assert_leq(fabs(w->drive - w->code * step), 1e-15 * 2 * M_PI, "%s", w->name);
        /* phase = drive + crosstalk + offset, each read back exactly: the
         * sum rounds once per addition, 3 ulps of the largest term */
        double sum = w->drive + w->crosstalk + w->offset;
        cr_assert_leq(fabs(w->phase - sum), 3 * 2.3e-16 * (fabs(sum) + 8), "%s", w->name);
        /* realistic12.yaml: each heater leaks 0.5% of (drive - 0) to each of at
         * most two neighbours, so at most 0.01 . 2 pi */
        cr_assert(w->crosstalk >= 0 && w->crosstalk <= 0.01 * 2 * M_PI, "%g", w->crosstalk);
        leaking += w->crosstalk > 0;
        cr_assert(!strcmp(w->param, "theta_rad") || !strcmp(w->param, "phi_rad")
                      || !strcmp(w->param, "phase_rad"), "%s", w->param);
        cr_assert_eq(strncmp(w->name, !strcmp(w->param, "phase_rad") ? "PS_" : "MZ_", 3), 0,
                     "%s", w->name);
    }
    cr_assert_gt(leaking, k.n / 2, "crosstalk pre-compensated on %d of %d", leaking, k.n);

    optinc_onn_report calibrated, loaded;
    cr_assert_eq(optinc_onn_verify(c, &m, &dev, 0, &calibrated, NULL, &err), 0, "%s", err.message);
    optinc_onn_devices lab = dev;
    lab.calibrate = 0;
    lab.program = load_codes;
    lab.program_ctx = &k;
    cr_assert_eq(optinc_onn_verify(c, &m, &lab, 0, &loaded, NULL, &err), 0, "%s", err.message);
    cr_assert_eq(loaded.accuracy, calibrated.accuracy);
    cr_assert_eq(loaded.weighted_accuracy, calibrated.weighted_accuracy);
    cr_assert_eq(loaded.mean_abs_error_lsb, calibrated.mean_abs_error_lsb);
    cr_assert_eq(loaded.p_error_ge2, calibrated.p_error_ge2);
    /* and the recompilation mattered: the same chip on its compiled codes */
    optinc_onn_devices raw = dev;
    raw.calibrate = 0;
    optinc_onn_report uncalibrated;
    cr_assert_eq(optinc_onn_verify(c, &m, &raw, 0, &uncalibrated, NULL, &err), 0, "%s",
                 err.message);
    cr_assert_neq(uncalibrated.mean_abs_error_lsb, calibrated.mean_abs_error_lsb);
    cr_log_info("drive: accuracy %.6f loaded, %.6f calibrated, %.6f uncalibrated", loaded.accuracy,
                calibrated.accuracy, uncalibrated.accuracy);
    free(k.r);
    optinc_calibration_free(meas);
    optinc_circuit_free(c);
    tu_rmtree(dir);
    free(dir);
}

Test(drive, options_are_checked)
{
    static const char *const bad[][12] = {
        {"export", "specs/chip16.yaml", "--format", "drive", "-o", "x.csv", NULL},
        {"export", "specs/chip16.yaml", "--format", "sax", "--calibration", "x.cal", "-o",
         "x.json", NULL},
        {"export", "specs/chip16.yaml", "--format", "sax", "--bits", "8", "-o", "x.json", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tu_run r = tu_optinc(bad[i]);
        cr_assert_eq(r.status, 2, "case %zu: %s", i, r.err);
        cr_assert(strstr(r.err, i ? "--format drive" : "--calibration"), "%s", r.err);
        tu_run_free(&r);
    }
}

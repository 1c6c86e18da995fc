/*
 * bench_onn.c - what the ONN costs to train and to verify, in CPU time.
 *
 *   training   epochs of the shipped architecture (4 -> 125 -> 126 -> 127 -> 7,
 *              offset code, 4 servers, 8 bits, 28,561 P outputs), dense and with its
 *              unitary-diagonal segments (the Cayley parameterization adds one
 *              LU inversion per segment and step);
 *   verify     the shipped netlist on every P output, ideal, on a chip
 *              with 8-bit drivers and 0.01 rad phase errors, and on the chip
 *              of specs/chips/realistic12.yaml as drawn and recompiled from
 *              its measurement (--calibrate): the difference is the per-chip
 *              recompilation, one core (a target: at most 10 s); the same for
 *              specs/chips/realistic8.yaml, whose 8-bit codes are chosen in
 *              rounds (two rescored passes; a target: at most 20 s), against
 *              the 12-bit chip's time (codes rounded at once, up to three
 *              rescored passes: one on chip seed 1, whose measured chip
 *              decodes every P output right after the first, so that no
 *              weight is raised and another pass would repeat it);
 *   chips      the 12-bit recompilation of as many chips as there are
 *              cores (optinc_onn_verify_chips, as `onn verify --chips K
 *              --threads T`) on 1 thread and on every core, CPU and wall
 *              time per chip (a target on the wall time: at most 10 s).
 *              The chips are the recompilation's independent units: one
 *              chip's is a chain (each mesh fitted to the fields the
 *              recompiled meshes before it give, each pass rescored after
 *              the last), whose fits no thread can share without changing
 *              the order of their sums.
 *   screen     the verifier's screen (runtime/onn/onn_screen.c) against the
 *              full complex evaluation of every point, on 200,000 random P
 *              outputs of the 16-bit ONN (netlists/onn4x16.pnl.sp): CPU
 *              per point of each on one thread, their ratio, the screen's
 *              wall time on every core, and what all 13^8 points take so.
 * Run from the repository root (it reads netlists/onn4x8.pnl.sp).  CPU time
 * of this process, so a shared machine does not distort the figures, and
 * wall time where threads are the point.
 */
#include <stdio.h>
#include "bench/bench.h"
#include "optinc/onn.h"
#include "optinc/spec.h"

static int bench_train(const char *what, const int *seg)
{
    optinc_onn_task t;
    optinc_onn net;
    optinc_error err;
    int hidden[3] = {125, 126, 127};
    optinc_status st = optinc_onn_task_unit(&t, 4, 8, OPTINC_P_DIGIT_SUMS,
                                            OPTINC_ROUND_HALF_EVEN, &err);
    t.code = OPTINC_CODE_OFFSET;
    if (st || optinc_onn_alloc(&net, &t, hidden, 3, seg, &err)) {
        fprintf(stderr, "bench_onn: %s\n", err.message);
        return 1;
    }
    optinc_onn_train_opts o;
    optinc_onn_train_defaults(&o);
    o.max_epochs = 5;
    o.eval_every = 5;
    o.restarts = 0;             /* a rate per epoch of one start */
    optinc_onn_train_result r;
    double t0 = bench_cpu();
    st = optinc_onn_train(&net, &o, 0, &r, &err);
    double dt = bench_cpu() - t0;
    optinc_onn_free(&net);
    if (st) {
        fprintf(stderr, "bench_onn: %s\n", err.message);
        return 1;
    }
    printf("%-34s %10.3f s/epoch  %12.0f points/s\n", what, dt / o.max_epochs,
           28561.0 * o.max_epochs / dt);
    return 0;
}

/* Verifies the shipped netlist on dev; *cpu (may be NULL) gets the CPU
 * seconds the verification took. */
static int bench_verify(const char *what, const optinc_onn_devices *dev, double *cpu)
{
    optinc_circuit *c;
    optinc_onn_meta m;
    optinc_onn_report r;
    optinc_error err;
    if (optinc_onn_load("netlists/onn4x8.pnl.sp", NULL, &c, &m, &err)) {
        fprintf(stderr, "bench_onn: %s\n", err.message);
        return 1;
    }
    double t0 = bench_cpu();
    optinc_status st = optinc_onn_verify(c, &m, dev, 0, &r, NULL, &err);
    double dt = bench_cpu() - t0;
    optinc_circuit_free(c);
    if (st) {
        fprintf(stderr, "bench_onn: %s\n", err.message);
        return 1;
    }
    printf("%-34s %10.3f s        %12.0f points/s  accuracy %.6f\n", what, dt,
           (double)r.checked / dt, r.accuracy);
    if (cpu)
        *cpu = dt;
    return 0;
}

/* The chip file's chip, verified as drawn and after its recompilation; the
 * recompilation is the difference of the two CPU times, into *cpu. */
static int bench_recompile(const char *path, const char *name, double *cpu)
{
    optinc_chip_spec spec;
    optinc_error err;
    if (optinc_chip_spec_load(path, NULL, &spec, &err)) {
        fprintf(stderr, "bench_onn: %s\n", err.message);
        return 1;
    }
    optinc_onn_devices dev = {.ideal = 1, .chip_seed = 1, .chip = &spec.components,
                              .measure_phase_sigma_rad = spec.calibration.phase_sigma_rad,
                              .measure_splitter_sigma = spec.calibration.splitter_sigma};
    double drawn, recompiled;
    char what[64];
    snprintf(what, sizeof what, "verify netlist, %s chip", name);
    if (bench_verify(what, &dev, &drawn))
        return 1;
    dev.calibrate = 1;
    if (bench_verify("  the same, recompiled", &dev, &recompiled))
        return 1;
    *cpu = recompiled - drawn;
    printf("%-34s %10.3f s        (measurement and recompilation of one chip)\n",
           "recompilation, one chip", *cpu);
    return 0;
}

/* The 12-bit chip's recompilation against the target, the 8-bit chip's
 * (codes chosen in rounds) against the 12-bit chip's. */
static int bench_recompilations(void)
{
    double r12, r8;
    if (bench_recompile("specs/chips/realistic12.yaml", "realistic12", &r12)
        || bench_recompile("specs/chips/realistic8.yaml", "realistic8", &r8))
        return 1;
    printf("%-34s %10.2f x        (8-bit: rounds, 2 passes / 12-bit: at once, 1 to 3 passes)\n",
           "recompilation, 8-bit / 12-bit", r8 / r12);
    bench_target("per-chip recompilation of the shipped unit, 12-bit, 1 core (CPU time)", r12,
                 "<=", 10.0, "s");
    bench_target("per-chip recompilation of the shipped unit, 8-bit, 1 core (CPU time)", r8, "<=",
                 20.0, "s");
    return 0;
}

/* Verifies `chips` chips of dev on `threads` threads: CPU and wall
 * seconds into t. */
static int bench_verify_chips(const optinc_circuit *c, const optinc_onn_meta *m,
                              const optinc_onn_devices *dev, int chips, int threads, double t[2])
{
    optinc_onn_report r[64];
    optinc_error err;
    double t0 = bench_cpu(), w0 = bench_wall();
    optinc_status st = optinc_onn_verify_chips(c, m, dev, 0, chips, threads, r, &err);
    t[0] = bench_cpu() - t0;
    t[1] = bench_wall() - w0;
    if (st)
        fprintf(stderr, "bench_onn: %s\n", err.message);
    return st != OPTINC_OK;
}

/* The realistic 12-bit chip's recompilation on as many chips as there are
 * cores (at most 64), on 1 thread and on every core: per chip, the
 * verification as drawn subtracted. */
static int bench_chips(void)
{
    int cores = bench_cores() < 64 ? bench_cores() : 64;
    optinc_chip_spec spec;
    optinc_circuit *c;
    optinc_onn_meta m;
    optinc_error err;
    if (optinc_chip_spec_load("specs/chips/realistic12.yaml", NULL, &spec, &err)
        || optinc_onn_load("netlists/onn4x8.pnl.sp", NULL, &c, &m, &err)) {
        fprintf(stderr, "bench_onn: %s\n", err.message);
        return 1;
    }
    optinc_onn_devices dev = {.ideal = 1, .chip_seed = 1};
    optinc_onn_devices_use_chip(&dev, &spec, 0);
    optinc_onn_devices cal = dev;
    cal.calibrate = 1;
    double per[2][2];
    int threads[2] = {1, cores}, bad = 0;
    for (int k = 0; k < 2 && !bad; k++) {
        double drawn[2], recompiled[2];
        bad = bench_verify_chips(c, &m, &dev, cores, threads[k], drawn)
              || bench_verify_chips(c, &m, &cal, cores, threads[k], recompiled);
        for (int i = 0; i < 2; i++)
            per[k][i] = (recompiled[i] - drawn[i]) / cores;
        if (!bad)
            printf("recompilation, %d chips, %d thread%s %7.3f s CPU %8.3f s wall per chip\n",
                   cores, threads[k], threads[k] > 1 ? "s" : " ", per[k][0], per[k][1]);
    }
    optinc_circuit_free(c);
    if (bad)
        return 1;
    printf("%-34s %10.2f x        (wall per chip, 1 thread / %d threads)\n",
           "recompilation, speed-up", per[0][1] / per[1][1], cores);
    bench_target("per-chip recompilation of the shipped unit, 12-bit, every core (wall per chip)",
                 per[1][1], "<=", 10.0, "s");
    return 0;
}

/* The 16-bit ONN's 200,000 random points with opts o: CPU and wall
 * seconds into t, the points the screen decided into *screened. */
static int bench_screen_run(const optinc_circuit *c, const optinc_onn_meta *m,
                            const optinc_onn_verify_opts *o, double t[2], uint64_t *screened)
{
    optinc_onn_devices ideal = {.ideal = 1, .chip_seed = 1};
    optinc_onn_report r;
    optinc_error err;
    double t0 = bench_cpu(), w0 = bench_wall();
    optinc_status st = optinc_onn_verify_with(c, m, &ideal, 200000, o, &r, NULL, &err);
    t[0] = bench_cpu() - t0;
    t[1] = bench_wall() - w0;
    *screened = r.screened;
    if (st)
        fprintf(stderr, "bench_onn: %s\n", err.message);
    return st != OPTINC_OK;
}

static int bench_screen(void)
{
    optinc_circuit *c;
    optinc_onn_meta m;
    optinc_error err;
    if (optinc_onn_load("netlists/onn4x16.pnl.sp", NULL, &c, &m, &err)) {
        fprintf(stderr, "bench_onn: %s\n", err.message);
        return 1;
    }
    optinc_onn_verify_opts full, fast, all;
    optinc_onn_verify_opts_default(&full);
    full.full = 1;
    optinc_onn_verify_opts_default(&fast);
    all = fast;
    all.threads = bench_cores();
    double tf[2], ts[2], ta[2];
    uint64_t nf, ns, na;
    int bad = bench_screen_run(c, &m, &full, tf, &nf) || bench_screen_run(c, &m, &fast, ts, &ns)
              || bench_screen_run(c, &m, &all, ta, &na);
    optinc_circuit_free(c);
    if (bad)
        return 1;
    const double n = 200000, box = 815730721;   /* 13^8 */
    printf("%-34s %10.3f us/point CPU\n", "verify 16-bit ONN, full", 1e6 * tf[0] / n);
    printf("%-34s %10.3f us/point CPU  screened %llu of %.0f\n", "verify 16-bit ONN, screened",
           1e6 * ts[0] / n, (unsigned long long)ns, n);
    printf("%-34s %10.2f x        (full / screened, CPU, 1 thread)\n", "screen, speed-up",
           tf[0] / ts[0]);
    printf("%-34s %10.3f us/point wall on %d threads; all 13^8 points: %.1f CPU h, %.1f h wall\n",
           "verify 16-bit ONN, screened", 1e6 * ta[1] / n, all.threads, box * ts[0] / n / 3600,
           box * ta[1] / n / 3600);
    return 0;
}

int main(void)
{
    static const int seg[8] = {5, 5, 126, 126, 127, 127, 7, 8};
    optinc_onn_devices ideal = {.ideal = 1, .chip_seed = 1},
                       chip = {.phase_sigma_rad = 0.01, .chip_seed = 1};
    printf("%-34s %s\n", "ONN (4 servers, 8 bits)", "CPU time");
    return bench_train("train, dense", NULL) || bench_train("train, unitary-diagonal", seg) ||
           bench_verify("verify netlist, ideal", &ideal, NULL) ||
           bench_verify("verify netlist, 8-bit, 0.01 rad", &chip, NULL) ||
           bench_screen() || bench_recompilations() || bench_chips();
}

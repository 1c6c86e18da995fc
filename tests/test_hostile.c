/*
 * test_hostile.c - the command line against a careless or hostile user: an
 * output that is one of the run's inputs (by any path: itself, a link, a
 * hard link, a file the spec or the netlist names), a run that would train
 * for minutes before its output fails, and options a run would silently
 * ignore or read as something else than they say.  Each is refused with
 * exit 2 before anything is written, and the inputs stay byte for byte what
 * they were.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "testutil.h"

#define ARGS(...) ((const char *[]){__VA_ARGS__, NULL})

/* Copies the repository file src to the scratch folder as name. */
static void copy_in(const char *src, const char *name)
{
    size_t len;
    char *data = tu_read_file(src, &len);
    cr_assert_not_null(data, "%s", src);
    cr_assert_eq(tu_write_bytes(tu_scratch(name), data, len), 0);
    free(data);
}

/* Runs optinc in the scratch folder (so the paths below are its files'
 * names) and returns the result. */
static tu_run run_here(const char *const *args)
{
    char here[4096];
    cr_assert_not_null(getcwd(here, sizeof here));
    const char *prog = tu_optinc_path();
    char abs[4400];
    if (prog[0] != '/')
        snprintf(abs, sizeof abs, "%s/%s", here, prog);
    else
        snprintf(abs, sizeof abs, "%s", prog);
    setenv("OPTINC", abs, 1);
    cr_assert_eq(chdir(tu_scratch_dir()), 0);
    tu_run r = tu_optinc(args);
    cr_assert_eq(chdir(here), 0);
    return r;
}

/* run_here() of the words of head, then those of tail (both NULL-terminated). */
static tu_run run_with(const char *const *head, const char *const *tail)
{
    const char *args[32];
    int n = 0;
    while (*head && n < 31)
        args[n++] = *head++;
    while (*tail && n < 31)
        args[n++] = *tail++;
    args[n] = NULL;
    return run_here(args);
}

static void must_run(const char *const *args)
{
    tu_run r = run_here(args);
    cr_assert_eq(r.status, 0, "%s %s: %s", args[0], args[1], r.err);
    tu_run_free(&r);
}

/* The files a run must leave alone: their bytes before it. */
typedef struct kept {
    const char *name;
    char *data;
    size_t len;
} kept;

static kept keep(const char *name)
{
    kept k = {name, NULL, 0};
    k.data = tu_read_file(tu_scratch(name), &k.len);
    cr_assert_not_null(k.data, "%s", name);
    return k;
}

/* The bytes read before the refused run (what the file held): a run that
 * writes nothing leaves them exactly. */
static void still_kept(kept *k, const char *when)
{
    size_t len;
    char *now = tu_read_file(tu_scratch(k->name), &len);
    cr_expect(now && len == k->len && !memcmp(now, k->data, len), "%s: %s changed", when,
              k->name);
    free(now);
    free(k->data);
}

/* Every output that is an input of its run is refused before anything is
 * written: the spec itself, a matrix file the spec names, a calibration
 * file, the netlist, one of its .includes, an input batch, an ONN's own
 * netlist, the spec of onn train --resume and its matrices; also when the
 * output is a symbolic or a hard link to the input. */
Test(hostile, outputs_that_are_inputs, .init = tu_scratch_init, .fini = tu_scratch_fini,
     .timeout = 120)
{
    copy_in("specs/real4.yaml", "S.yaml");
    copy_in("netlists/onn4x8.pnl.sp", "O.sp");
    copy_in("specs/onn4x8.yaml", "R.yaml");
    mkdir(tu_scratch("onn4x8"), 0777);
    for (int l = 1; l <= 4; l++) {
        char src[64], dst[64];
        snprintf(src, sizeof src, "specs/onn4x8/W%d.npy", l);
        snprintf(dst, sizeof dst, "onn4x8/W%d.npy", l);
        copy_in(src, dst);
    }
    /* R.yaml names its matrices onn4x8/W*.npy, where a spec written as
     * onn4x8.yml puts its own */
    cr_assert_eq(tu_write_file(tu_scratch("W.csv"), "0.5, 0.1\n-0.2, 0.3\n"), 0);
    cr_assert_eq(tu_write_file(tu_scratch("M.yaml"),
                               "schema_version: 1\nname: m\nmatrices:\n"
                               "  W: {file: W.csv, shape: [2, 2], dtype: real}\n"
                               "layers:\n  - {name: L1, matrix: W}\n"), 0);
    must_run(ARGS("compile", "S.yaml", "-o", "N.sp", "--quiet"));
    must_run(ARGS("simulate", "N.sp", "--save-calibration", "C.cal", "--matrix", "X.npy"));
    /* a netlist that is an include of another file */
    char *net = tu_read_file(tu_scratch("N.sp"), NULL);
    cr_assert_not_null(net);
    char *end = strstr(net, "\n.end\n");
    cr_assert_not_null(end);
    end[1] = '\0';
    cr_assert_eq(tu_write_file(tu_scratch("body.inc"), net), 0);
    free(net);
    cr_assert_eq(tu_write_file(tu_scratch("wrap.sp"), "* wrapper\n.include \"body.inc\"\n.end\n"),
                 0);
    cr_assert_eq(symlink("S.yaml", tu_scratch("link.sp")), 0);
    char *spec = strdup(tu_scratch("S.yaml"));
    cr_assert_eq(link(spec, tu_scratch("hard.sp")), 0);
    free(spec);
    /* a drawing of N.sp (circuit real4, layer L1) that is N.sp by another name */
    char *netlist = strdup(tu_scratch("N.sp"));
    cr_assert_eq(link(netlist, tu_scratch("real4_L1.svg")), 0);
    free(netlist);
    /* an ONN netlist without its `*! onn` line: its task comes from the spec
     * its header names, which is then an input too */
    must_run(ARGS("compile", "R.yaml", "-o", "RN.sp", "--quiet"));
    char *onn = tu_read_file(tu_scratch("RN.sp"), NULL);
    cr_assert_not_null(onn);
    char *line = strstr(onn, "\n*! onn = ");
    cr_assert_not_null(line);
    memmove(line + 1, strchr(line + 1, '\n') + 1, strlen(strchr(line + 1, '\n') + 1) + 1);
    cr_assert_eq(tu_write_file(tu_scratch("RN.sp"), onn), 0);
    free(onn);
    int files = tu_dir_count(tu_scratch_dir());
    struct {
        const char *args[12];
        const char *input, *what;
    } cases[] = {
        {{"compile", "S.yaml", "-o", "S.yaml"}, "S.yaml", "the spec 'S.yaml'"},
        {{"compile", "M.yaml", "-o", "W.csv"}, "W.csv", "the matrix file 'W.csv'"},
        {{"compile", "S.yaml", "--calibration", "C.cal", "-o", "C.cal"}, "C.cal",
         "the calibration file 'C.cal'"},
        {{"compile", "S.yaml", "-o", "link.sp"}, "S.yaml", "the spec 'S.yaml'"},
        {{"compile", "S.yaml", "-o", "hard.sp"}, "S.yaml", "the spec 'S.yaml'"},
        {{"simulate", "N.sp", "--matrix", "N.sp"}, "N.sp", "the circuit 'N.sp'"},
        {{"simulate", "N.sp", "--save-calibration", "N.sp"}, "N.sp", "the circuit 'N.sp'"},
        {{"simulate", "N.sp", "--calibration", "C.cal", "--save-calibration", "C.cal"}, "C.cal",
         "the calibration file 'C.cal'"},
        {{"simulate", "N.sp", "--input", "X.npy", "--output", "X.npy"}, "X.npy",
         "the input batch 'X.npy'"},
        {{"simulate", "wrap.sp", "--matrix", "body.inc"}, "body.inc",
         "the included file 'body.inc'"},
        {{"simulate", "M.yaml", "--matrix", "W.csv"}, "W.csv", "the matrix file 'W.csv'"},
        {{"onn", "export", "O.sp", "--hist", "O.sp"}, "O.sp", "the ONN 'O.sp'"},
        {{"onn", "export", "RN.sp", "--lut", "R.yaml"}, "R.yaml", "the spec 'R.yaml'"},
        {{"onn", "export", "RN.sp", "--hist", "onn4x8/W2.npy"}, "onn4x8/W2.npy",
         "the matrix file 'onn4x8/W2.npy'"},
        {{"draw", "N.sp", "-o", ".", "--format", "svg"}, "N.sp", "the input 'N.sp'"},
        {{"onn", "train", "--resume", "R.yaml", "-o", "R.yaml", "--epochs", "1000000"},
         "R.yaml", "the spec 'R.yaml'"},
        {{"onn", "train", "--resume", "R.yaml", "-o", "onn4x8.yml", "--epochs", "1000000"},
         "onn4x8/W1.npy", "the matrix file 'onn4x8/W1.npy'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kept k = keep(cases[i].input);
        tu_run r = run_here(cases[i].args);
        char when[160];
        snprintf(when, sizeof when, "case %zu (%s %s ... %s)", i, cases[i].args[0],
                 cases[i].args[1], cases[i].input);
        cr_expect_eq(r.status, 2, "%s: exit %d: %s", when, r.status, r.err);
        cr_expect(r.err && strstr(r.err, cases[i].what) && strstr(r.err, "this run reads"),
                  "%s: %s", when, r.err);
        still_kept(&k, when);
        cr_expect_eq(tu_dir_count(tu_scratch_dir()), files, "%s: files appeared", when);
        tu_run_free(&r);
    }
}

/* `onn train` checks where it will write before it trains: a folder as the
 * spec, a file where the matrices' folder goes, a folder that does not
 * exist, a name that is not an identifier (a newline in it would add a key
 * to the spec it writes).  Each exits 2 at once, with --epochs that would
 * otherwise train for hours, and writes nothing. */
Test(hostile, onn_train_checks_its_outputs_first, .init = tu_scratch_init,
     .fini = tu_scratch_fini, .timeout = 60)
{
    mkdir(tu_scratch("folder"), 0777);
    cr_assert_eq(tu_write_file(tu_scratch("x"), "not a folder\n"), 0);
    struct {
        const char *args[8];
        const char *message;
    } cases[] = {
        {{"-o", "folder"}, "output 'folder' is a folder, not a file"},
        {{"-o", "x.yaml"}, "'x', where the ONN's matrices go, is not a folder"},
        {{"-o", "nowhere/x.yaml"}, "cannot create a file in 'nowhere'"},
        {{"-o", "ok.yaml", "--name", "bad name"},
         "the ONN's name 'bad name' is not an identifier"},
        {{"-o", "ok.yaml", "--name", "a\nb: 1"}, "the ONN's name 'a?b: 1' is not an identifier"},
        {{"-o", "ok.yaml", "--name", "1abc"}, "the ONN's name '1abc' is not an identifier"},
    };
    int files = tu_dir_count(tu_scratch_dir());
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        time_t t0 = time(NULL);
        tu_run r = run_with(ARGS("onn", "train", "--epochs", "1000000"), cases[i].args);
        cr_expect_eq(r.status, 2, "case %zu: exit %d: %s", i, r.status, r.err);
        cr_expect(r.err && strstr(r.err, cases[i].message), "case %zu: %s", i, r.err);
        cr_expect_leq(time(NULL) - t0, 10, "case %zu trained first", i);
        cr_expect_eq(tu_dir_count(tu_scratch_dir()), files, "case %zu: files appeared", i);
        tu_run_free(&r);
    }
}

/* Options the chosen all-reduce would ignore are refused, not dropped, and
 * so are lists and numbers that would be read as something else than they
 * say; all before any data is read (--data names no folder). */
Test(hostile, train_refuses_what_it_would_ignore, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    cr_assert_eq(tu_write_file(tu_scratch("H.hist"), "p_error 0.01\n1 3\n-1 1\n"), 0);
    cr_assert_eq(tu_write_file(tu_scratch("ring.yaml"),
                               "schema_version: 1\nname: t\nmatrices:\n"
                               "  W: {shape: [2, 2], dtype: complex, "
                               "generate: {kind: haar_unitary, seed: 1}}\n"
                               "layers:\n  - {name: L1, matrix: W}\n"
                               "train:\n  allreduce: ring\n"), 0);
    struct {
        const char *args[8];
        const char *message;
    } cases[] = {
        {{"--allreduce", "ring", "--inject-errors", "H.hist"},
         "--inject-errors injects errors into the codes of a quantizing all-reduce"},
        {{"ring.yaml", "--inject-errors", "H.hist"}, "(--allreduce ring) does not have"},
        {{"--allreduce", "ring", "--onn", "x.sp"}, "--onn names the ONN of the optinc"},
        {{"--allreduce", "exact", "--onn", "exact"}, "(--allreduce exact --onn exact)"},
        {{"--allreduce", "ring", "--bits", "4"}, "--bits sets the code width of"},
        {{"--allreduce", "exact", "--block-size", "64"}, "--block-size sets the scale blocks"},
        {{"--allreduce", "quantized", "--phase-sigma", "0.1"}, "--phase-sigma sets the chip"},
        {{"--allreduce", "optinc", "--onn", "exact", "--chip-seed", "3"},
         "--chip-seed sets the chip"},
        {{"--allreduce", "ring", "--programmed"}, "--programmed sets the chip"},
        {{"--hidden", "16,,8"}, "--hidden takes up to 16 integers from 1 to 65536"},
        {{"--hidden", "16,"}, "not '16,'"},
        {{"--cost-model", "--efficiency", "2"}, "--efficiency takes a number in (0, 1]"},
        {{"--cost-model", "--efficiency", "0"}, "--efficiency takes a number in (0, 1]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = run_with(ARGS("train", "--data", "nowhere"), cases[i].args);
        cr_expect_eq(r.status, 2, "case %zu: exit %d: %s", i, r.status, r.err);
        cr_expect(r.err && strstr(r.err, "optinc train: error: ") &&
                  strstr(r.err, cases[i].message), "case %zu: %s", i, r.err);
        tu_run_free(&r);
    }
    /* what each of them is for still runs */
    tu_run r = run_here(ARGS("train", "--cost-model", "--efficiency", "1", "--bits", "4"));
    cr_expect_eq(r.status, 0, "%s", r.err);
    tu_run_free(&r);
}

/* A spec's train: values the trainer cannot take are reported at their
 * place in the spec: more servers than the all-reduce takes, an ONN file
 * that is not there. */
Test(hostile, train_spec_values_at_their_position, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    static const char head[] = "schema_version: 1\nname: t\nmatrices:\n"
                               "  W: {shape: [2, 2], dtype: complex, "
                               "generate: {kind: haar_unitary, seed: 1}}\n"
                               "layers:\n  - {name: L1, matrix: W}\ntrain:\n";
    char text[1024];
    snprintf(text, sizeof text, "%s  servers: 300\n", head);
    cr_assert_eq(tu_write_file(tu_scratch("many.yaml"), text), 0);
    snprintf(text, sizeof text, "%s  allreduce: optinc\n  onn: nope.sp\n", head);
    cr_assert_eq(tu_write_file(tu_scratch("nope.yaml"), text), 0);
    struct {
        const char *spec, *message;
    } cases[] = {
        {"many.yaml", "many.yaml:8:12: error: 'servers' in train is 300, more than the 256 "
                      "servers the all-reduce takes"},
        {"nope.yaml", "nope.yaml:9:8: error: 'onn' in train: cannot open netlist 'nope.sp'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = run_here(ARGS("train", cases[i].spec, "--data", "nowhere"));
        cr_expect_eq(r.status, 2, "%s: exit %d: %s", cases[i].spec, r.status, r.err);
        cr_expect(r.err && strstr(r.err, cases[i].message), "%s: %s", cases[i].spec, r.err);
        tu_run_free(&r);
    }
}

/* --out is checked before the run: it must be a folder, each file the run
 * writes there must be writable, and none may be an input of the run. */
Test(hostile, train_checks_its_outputs_first, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    cr_assert_eq(tu_write_file(tu_scratch("file"), "x\n"), 0);
    mkdir(tu_scratch("out"), 0777);
    mkdir(tu_scratch("out/weights.f32"), 0777);
    mkdir(tu_scratch("run"), 0777);
    cr_assert_eq(tu_write_file(tu_scratch("run/metrics.csv"), "p_error 0.01\n1 3\n-1 1\n"), 0);
    kept k = keep("run/metrics.csv");
    struct {
        const char *args[8];
        const char *message;
    } cases[] = {
        {{"--out", "file"}, "file: error: --out 'file' is not a folder"},
        {{"--out", "out"}, "output 'out/weights.f32' is a folder, not a file"},
        {{"--out", "run", "--allreduce", "quantized", "--inject-errors", "run/metrics.csv"},
         "run/metrics.csv: error: this output is the error histogram 'run/metrics.csv'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = run_with(ARGS("train", "--data", "nowhere"), cases[i].args);
        cr_expect_eq(r.status, 2, "case %zu: exit %d: %s", i, r.status, r.err);
        cr_expect(r.err && strstr(r.err, cases[i].message), "case %zu: %s", i, r.err);
        tu_run_free(&r);
    }
    still_kept(&k, "--inject-errors in --out");
}

/* A program that mpirun started several times without --backend mpi would
 * run that many independent trainings: it refuses, rank 0 saying why.  (The
 * environment is mpirun's, set here; test_mpi.c runs the real one.) */
Test(hostile, mpirun_without_the_mpi_backend)
{
    setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
    setenv("OMPI_COMM_WORLD_RANK", "0", 1);
    tu_run r = tu_optinc(ARGS("train", "--data", "nowhere"));
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "optinc train: error: mpirun started 3 copies of this program, "
                            "which would each train alone: add --backend mpi"), "%s", r.err);
    tu_run_free(&r);
    setenv("OMPI_COMM_WORLD_RANK", "2", 1);
    r = tu_optinc(ARGS("train", "--data", "nowhere"));
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "", "only rank 0 speaks");
    tu_run_free(&r);
    /* one copy is a run like any other: here it stops at the missing data */
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    setenv("OMPI_COMM_WORLD_RANK", "0", 1);
    r = tu_optinc(ARGS("train", "--data", "nowhere"));
    cr_expect(!strstr(r.err, "copies"), "%s", r.err);
    tu_run_free(&r);
}

/* An option given an empty path or name is refused at the command line,
 * naming the option, not later with a message that names no file. */
Test(hostile, empty_option_values, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    copy_in("specs/real4.yaml", "S.yaml");
    struct {
        const char *args[8];
        const char *message;
    } cases[] = {
        {{"compile", "S.yaml", "--calibration", ""},
         "optinc compile: error: --calibration takes FILE, not an empty string"},
        {{"compile", "S.yaml", "-o", ""},
         "optinc compile: error: --output takes NET.sp, not an empty string"},
        {{"simulate", "S.yaml", "--matrix", ""},
         "optinc simulate: error: --matrix takes OUT.npy, not an empty string"},
        {{"draw", "S.yaml", "-o", ""}, "optinc draw: error: --output takes DIR, not an empty "
                                       "string"},
        {{"train", "--out", ""}, "optinc train: error: --out takes DIR, not an empty string"},
        {{"onn", "export", "x.sp", "--hist", ""},
         "optinc onn export: error: --hist takes FILE, not an empty string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = run_here(cases[i].args);
        cr_expect_eq(r.status, 2, "case %zu: exit %d: %s", i, r.status, r.err);
        cr_expect(r.err && strstr(r.err, cases[i].message), "case %zu: %s", i, r.err);
        tu_run_free(&r);
    }
}

/* The input limit (OPTINC_MAX_INPUT_BYTES) holds for an input batch too:
 * a 2 x 600 .csv batch of a 2-mode circuit is refused under 1000 bytes,
 * with the limit's name, and read under the default. */
Test(hostile, input_batch_under_the_input_limit, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    cr_assert_eq(tu_write_file(tu_scratch("T.yaml"),
                               "schema_version: 1\nname: t\nmatrices:\n"
                               "  W: {shape: [2, 2], dtype: complex, "
                               "generate: {kind: haar_unitary, seed: 1}}\n"
                               "layers:\n  - {name: L1, matrix: W}\n"), 0);
    char row[8 * 600 + 2];
    size_t k = 0;
    for (int j = 0; j < 600; j++)
        k += (size_t)snprintf(row + k, sizeof row - k, "%s0.5", j ? "," : "");
    row[k++] = '\n';
    row[k] = '\0';
    char text[2 * sizeof row];
    snprintf(text, sizeof text, "%s%s", row, row);
    cr_assert_eq(tu_write_file(tu_scratch("B.csv"), text), 0);
    setenv("OPTINC_MAX_INPUT_BYTES", "1000", 1);
    tu_run r = run_here(ARGS("simulate", "T.yaml", "--input", "B.csv", "-o", "Y.npy"));
    unsetenv("OPTINC_MAX_INPUT_BYTES");
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect(r.err && strstr(r.err, "B.csv: error: matrix file 'B.csv' is larger than the "
                                     "limit of 1000 (OPTINC_MAX_INPUT_BYTES)"), "%s", r.err);
    cr_expect_neq(access(tu_scratch("Y.npy"), F_OK), 0, "an output from a refused input");
    tu_run_free(&r);
    r = run_here(ARGS("simulate", "T.yaml", "--input", "B.csv", "-o", "Y.npy"));
    cr_expect_eq(r.status, 0, "%s", r.err);
    tu_run_free(&r);
}

/* An input refused after the outputs were checked still leaves nothing
 * behind: a batch of the wrong shape writes no --matrix (which comes first
 * when the batch is fine), and a training run without its data makes no
 * --out folder. */
Test(hostile, refused_inputs_leave_no_outputs, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    copy_in("specs/real4.yaml", "S.yaml");
    cr_assert_eq(tu_write_file(tu_scratch("B.csv"), "1,2\n3,4\n"), 0);
    int files = tu_dir_count(tu_scratch_dir());
    tu_run r = run_here(ARGS("simulate", "S.yaml", "--matrix", "M.npy", "--input", "B.csv",
                             "-o", "Y.npy"));
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect(r.err && strstr(r.err, "B.csv: error: the input is 2x2, but circuit"), "%s",
              r.err);
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), files, "simulate left a file");
    tu_run_free(&r);
    r = run_here(ARGS("train", "--data", "nowhere", "--out", "run", "--epochs", "1"));
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect(r.err && strstr(r.err, "Fashion-MNIST not found"), "%s", r.err);
    cr_expect_eq(tu_dir_count(tu_scratch_dir()), files, "train left its --out folder");
    tu_run_free(&r);
}

/* Outputs that collide with each other, with the data set, or cannot be
 * written are refused before the first file is written: two options naming
 * one file, a companion or a drawing linked to another output, a training
 * file linked to a data file, an output that is a folder among others that
 * are fine.  Each exits 2, and every file there keeps its bytes. */
/* No .timeout: run beside outputs_that_are_inputs, which has one, two timed
 * tests made Criterion's runner leak 48 bytes under LeakSanitizer. */
Test(hostile, outputs_that_collide_or_cannot_be_written, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    copy_in("netlists/real4.pnl.sp", "N.sp");
    copy_in("netlists/twolayer.pnl.sp", "T.sp");
    copy_in("netlists/onn4x8.pnl.sp", "O.sp");
    cr_assert_eq(tu_write_file(tu_scratch("in.csv"), "1\n0\n0\n0\n"), 0);
    cr_assert_eq(tu_write_file(tu_scratch("n.py"), "old\n"), 0);
    cr_assert_eq(symlink("n.py", tu_scratch("n_models.py")), 0);
    mkdir(tu_scratch("dr"), 0777);
    cr_assert_eq(tu_write_file(tu_scratch("dr/twolayer_hidden.svg"), "old\n"), 0);
    cr_assert_eq(symlink("twolayer_hidden.svg", tu_scratch("dr/twolayer_out.svg")), 0);
    mkdir(tu_scratch("adir"), 0777);
    mkdir(tu_scratch("s.py"), 0777);
    /* the data set is never read: the outputs are checked first */
    mkdir(tu_scratch("data"), 0777);
    cr_assert_eq(tu_write_file(tu_scratch("data/t10k-labels-idx1-ubyte.gz"), "labels\n"), 0);
    mkdir(tu_scratch("o"), 0777);
    cr_assert_eq(symlink("../data/t10k-labels-idx1-ubyte.gz", tu_scratch("o/metrics.csv")), 0);
    mkdir(tu_scratch("o5"), 0777);
    cr_assert_eq(tu_write_file(tu_scratch("o5/metrics.csv"), "old\n"), 0);
    cr_assert_eq(symlink("metrics.csv", tu_scratch("o5/weights.f32")), 0);
    struct {
        const char *args[12];
        const char *message;
    } cases[] = {
        {{"simulate", "N.sp", "--input", "in.csv", "-o", "s.npy", "--matrix", "s.npy"},
         "s.npy: error: this output is the file 's.npy' the run writes too"},
        {{"onn", "export", "O.sp", "--hist", "x.txt", "--lut", "x.txt"},
         "x.txt: error: this output is the file 'x.txt' the run writes too"},
        {{"export", "N.sp", "--format", "sax", "-o", "n.py"},
         "n_models.py: error: this output is the file 'n.py' the run writes too"},
        {{"draw", "T.sp", "-o", "dr", "--format", "svg"},
         "dr/twolayer_out.svg: error: this output is the file 'dr/twolayer_hidden.svg'"},
        {{"train", "--data", "data", "--out", "o", "--epochs", "1"},
         "o/metrics.csv: error: this output is the data file 'data/t10k-labels-idx1-ubyte.gz'"},
        {{"train", "--data", "data", "--out", "o5", "--epochs", "1"},
         "o5/weights.f32: error: this output is the file 'o5/metrics.csv' the run writes too"},
        {{"simulate", "N.sp", "--matrix", "m.npy", "--input", "in.csv", "-o", "adir"},
         "output 'adir' is a folder, not a file"},
        {{"onn", "export", "O.sp", "--hist", "h2.txt", "--lut", "adir"},
         "output 'adir' is a folder, not a file"},
        {{"export", "N.sp", "--format", "sax", "-o", "s.py"},
         "output 's.py' is a folder, not a file"},
    };
    kept k[] = {keep("n.py"), keep("dr/twolayer_hidden.svg"),
                keep("data/t10k-labels-idx1-ubyte.gz"), keep("o5/metrics.csv")};
    int files = tu_dir_count(tu_scratch_dir());
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = run_here(cases[i].args);
        cr_expect_eq(r.status, 2, "case %zu: exit %d: %s", i, r.status, r.err);
        cr_expect(r.err && strstr(r.err, cases[i].message), "case %zu: %s", i, r.err);
        cr_expect_eq(tu_dir_count(tu_scratch_dir()), files, "case %zu: files appeared", i);
        tu_run_free(&r);
    }
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        still_kept(&k[i], "a colliding output");
}

/* An address space too small for the BLAS's working buffer (ulimit -v
 * below its 136 MiB) is refused at start, with status 2 and the limit
 * named: OpenBLAS, asked for the buffer later, in an SVD, retried the
 * allocation forever.  The limit is set by sh for the optinc it execs,
 * with one OpenBLAS thread, as optinc-limits(7) asks under such a limit. */
Test(hostile, address_space_too_small_for_blas, .timeout = 30)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("an ASan program reserves terabytes of address space");
#endif
    const char *sh = "ulimit -v 122880 && OPENBLAS_NUM_THREADS=1 exec \"$0\" \"$@\"";
    tu_run r = tu_start((char *const[]){"/bin/sh", "-c", (char *)sh, (char *)tu_optinc_path(),
                                        "compile", "specs/real4.yaml", "--quiet", NULL});
    tu_wait(&r);
    cr_assert_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, "address-space limit (ulimit -v)"), "%s", r.err);
    tu_run_free(&r);
}

/* Under an address-space limit with OpenBLAS's default thread count, the
 * threads of its pool, started when the library is loaded, each take a
 * 128 MiB buffer: one that lost the race to the limit retried forever, in
 * the program's BLAS calls or in OpenBLAS's destructor at exit, and a
 * compile that fits the limit hung about one time in three.  optinc runs
 * itself again with one BLAS thread under a limit, so five compiles of the
 * shipped unit all end, at 250 MiB, with status 0. */
Test(hostile, address_space_limit_with_the_blas_thread_pool, .timeout = 120)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("an ASan program reserves terabytes of address space");
#endif
    char *dir = tu_tempdir(), out[4200];
    snprintf(out, sizeof out, "%s/unit.sp", dir);
    const char *sh = "ulimit -v 256000 && unset OPENBLAS_NUM_THREADS && exec \"$0\" \"$@\"";
    for (int i = 0; i < 5; i++) {
        tu_run r = tu_start((char *const[]){"/bin/sh", "-c", (char *)sh,
                                            (char *)tu_optinc_path(), "compile",
                                            "specs/onn4x8.yaml", "-o", out, "--quiet", NULL});
        tu_wait(&r);
        cr_assert_eq(r.status, 0, "run %d: exit %d: %s", i, r.status, r.err);
        tu_run_free(&r);
    }
    tu_rmtree(dir);
    free(dir);
}

/* Graphviz does not check every allocation (libcgraph's agnode used what a
 * failed one returned and crashed, GLib aborted a PNG): a drawing too big
 * for the address space left is refused first, with status 2, the layer,
 * its size and the limit named, and no folder made.  384 modes are 147,456
 * elements, about 261 MiB by optinc-limits(7)'s estimate: more than the
 * 280 MiB limit leaves beyond the program, whichever BLAS it loads (the
 * limit holds OpenBLAS's 136 MiB buffer; the reference BLAS has none). */
Test(hostile, drawing_too_big_for_address_space, .timeout = 60)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("an ASan program reserves terabytes of address space");
#endif
    char *dir = tu_tempdir(), spec[4200], out[4200];
    snprintf(spec, sizeof spec, "%s/g.yaml", dir);
    snprintf(out, sizeof out, "%s/drawings", dir);
    cr_assert_eq(tu_write_file(spec, "schema_version: 1\nname: g\nmatrices:\n"
                                     "  W: {shape: [384, 384], dtype: real, "
                                     "generate: {kind: gaussian, seed: 1}}\n"
                                     "layers:\n  - {name: L1, matrix: W}\n"), 0);
    const char *sh = "ulimit -v 286720 && OPENBLAS_NUM_THREADS=1 exec \"$0\" \"$@\"";
    tu_run r = tu_start((char *const[]){"/bin/sh", "-c", (char *)sh, (char *)tu_optinc_path(),
                                        "draw", spec, "-o", out, "--format", "png", NULL});
    tu_wait(&r);
    cr_assert_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "g.yaml:6:5: error") &&
              strstr(r.err, "layer 'L1' (147456 elements)") &&
              strstr(r.err, "ulimit -v 286720 kB"), "%s", r.err);
    cr_expect_neq(access(out, F_OK), 0, "the folder was made");
    tu_run_free(&r);
    tu_rmtree(dir);
    free(dir);
}

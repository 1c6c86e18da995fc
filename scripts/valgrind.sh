#!/bin/sh
# Runs the Criterion test binaries given under valgrind memcheck (make
# valgrind): every test process and every program a test starts ($OPTINC ...)
# is checked, with the suppressions for OpenBLAS and Graphviz in
# tests/valgrind/*.supp.  Passes when every test passes and every process
# reports 0 errors, definite leaks included ("definitely lost" counts as an
# error; "possibly lost" and "still reachable" memory of the libraries does
# not).
#
# Criterion runs each test in a process of its own, started by exec, hence
# --trace-children=yes; -j1 keeps each binary to one core and its logs apart,
# and VALGRIND_JOBS binaries (default 2, the CI machine's cores) run side by
# side, each reporting when all are done, in the order given.
# One log per process: $OPTINC_BUILD/valgrind/<binary>/<pid>.log; a process
# that execs a program valgrind does not trace (sh for system(), popen())
# leaves a log without a summary, which is not an error.
#
# Not run under valgrind (the normal and SAN=1 runs cover them):
#   test_mpi, test_mpi_*         start mpirun (OpenMPI's own leaks and
#                                uninitialised bytes need ~30 suppressions)
#   allreduce/onn_table_equals*, simulate or verify every input of an ONN:
#   onn/shipped_onn_verifies*,   past their 60 s and 120 s timeouts at
#   onn_chip/shipped_unit_*,     memcheck's ~50x slowdown (command_line
#   onn_chip/command_line,       verifies the shipped unit on a chip file;
#   onn_chip/coarse_chips*       coarse_chips recompiles 2 chips in rounds,
#                                4 s natively)
#   onn/tiny_training_converges* train the tiny ONN on 10 and on up to 20
#   onn/a_stuck_start*           seeds, restarts included (5 s and 1.6 s
#                                natively); train_export_compile_verify runs
#                                the trainer under memcheck, and SAN=1 runs
#                                these two
#   onn/cascade_of_any_depth,    the 64-server cascade on 20,000 inputs, and
#   onn/verify_chips_same*       3 chips verified 4 times: past their 120 s
#                                under memcheck; command_line_errors runs
#                                onn cascade's paths there, SAN=1 these two
#   onn/shipped_16bit_unit*,     read the 16-bit unit (9.3 MB, 192 modes) and
#   screen/changes_no_result_of_the_sixteen_bit_onn
#                                check 200,000 and 20,000 outputs (1.2 s and
#                                0.9 s natively): past 120 s; the screen's
#                                other tests run its code
#   screen/changes_no_result_of_the_shipped_unit
#                                verifies the unit exhaustively six times, the
#                                full way three (0.9 s natively): past 120 s
#   screen/focus_file_on_the_command_line
#                                resumes the 8-bit unit's training (projection
#                                of its segments, an epoch, the check of every
#                                P output): past 120 s; focus_points_are_trained_on
#                                trains on focus points under memcheck
#   atomic/compile_killed*,      kill programs at chosen moments: timing, not
#   atomic/killed_at*,           memory, is what they test, and under valgrind
#   atomic/readers*,             each moment costs 30x longer
#   atomic/interrupted*,
#   atomic/concurrent_runs*      races 40 pairs of exports: the order of the
#                                renames, not memory, is what it tests
#   limits/yaml_node_count       an 8 MB YAML file: minutes under memcheck for
#                                a path (the event pass) other cases cover
#   drive/codes_read_back*       trains the tiny ONN and recompiles it three
#                                times (3.4 s natively); drive/options_are_checked
#                                and test_calibration run the code under memcheck
#   gds/drc_deck*                exports 17 layouts, the unit and both cascade
#                                levels among them, for KLayout (which runs
#                                natively); gds/the_segmented_unit_is_routed
#                                routes the unit under memcheck
#   netlist/numbers_format_as*   a million doubles formatted and parsed against
#                                printf and strtod: arithmetic on stack
#                                buffers, minutes under memcheck; the SAN=1 run
#                                checks its memory
# Programs a test starts that are not optinc (mpirun, gnuplot, sh, klayout) are not
# traced, nor the optinc programs test_netlist starts: its bad-fixture test
# reads every fixture in process (checked) and then through the program,
# 46 runs that would pass its 60 s timeout under memcheck.
build=${OPTINC_BUILD:-build}
supp=""
# Absolute paths: a test may start optinc in another folder (test_hostile
# runs it in its scratch folder), and valgrind in that child must still find
# the suppressions.
for s in "$(pwd)"/tests/valgrind/*.supp; do
    supp="$supp --suppressions=$s"
done
# Checks test binary $1: prints its report, returns 1 when it failed.
check_one() {
    t=$1
    name=$(basename "$t")
    start=$(date +%s)
    filter=""
    skip='*/mpirun,*/mpiexec,*/orterun,*/orted,*/gnuplot,*/sh,*/klayout'
    case $name in
        test_mpi | test_mpi_*) echo "$name: skipped (starts mpirun)"; return 0 ;;
        test_allreduce) filter='allreduce/!(onn_table_equals_direct_simulation)' ;;
        test_atomic) filter='atomic/!(compile_killed*|killed_at*|readers*|interrupted*|concurrent_runs*)' ;;
        test_limits) filter='limits/!(yaml_node_count)' ;;
        test_drive) filter='drive/!(codes_read_back_give_the_calibrated_accuracy)' ;;
        test_gds) filter='gds/!(drc_deck_passes_every_shipped_layout_and_catches_a_moved_waveguide)' ;;
        test_onn) filter='onn/!(shipped_onn_verifies_exhaustively|shipped_16bit_unit_exact_on_random_outputs|tiny_training_converges_on_every_seed|a_stuck_start_is_restarted|cascade_of_any_depth|verify_chips_same_for_any_thread_count)' ;;
        test_onn_screen) filter='screen/!(changes_no_result_of_the_shipped_unit|changes_no_result_of_the_sixteen_bit_onn|focus_file_on_the_command_line)' ;;
        test_onn_chip) filter='onn_chip/!(shipped_unit_on_chip_files|command_line|coarse_chips_recompiled|shipped_unit_keeps_phase_errors_low)' ;;
        test_netlist) skip="$skip,*/optinc"
            filter='netlist/!(numbers_format_as_printf_and_parse_as_strtod)' ;;
    esac
    logs=$build/valgrind/$name
    rm -rf "$logs"
    mkdir -p "$logs"
    out=$(valgrind --trace-children=yes \
              --trace-children-skip="$skip" \
              --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
              --num-callers=40 --error-exitcode=9 $supp --log-file="$logs/%p.log" \
              "$t" -j1 ${filter:+--filter "$filter"} --xml="$logs/report.xml" 2>&1)
    rc=$?
    syn=$(printf '%s\n' "$out" | grep 'Synthesis:' | tail -n 1)
    bad=$(grep -l 'ERROR SUMMARY: [1-9]' "$logs"/*.log)
    nlogs=$(ls "$logs"/*.log | wc -l)
    untraced=$(grep -L 'ERROR SUMMARY' "$logs"/*.log | wc -l)
    failed=0
    if [ $rc -ne 0 ] || [ -n "$bad" ] || [ -z "$syn" ]; then
        failed=1
        printf '%s\n' "$out" | grep -v '^\[----\] *$' | tail -n 30
        for b in $bad; do
            echo "== $b"
            grep -v '^==[0-9]*== *$' "$b" | head -n 60
        done
    fi
    echo "$name: $syn; $nlogs processes ($untraced left for an untraced program)," \
         "$(echo "$bad" | grep -c .) with errors; $(( $(date +%s) - start )) s"
    return $failed
}

# One binary (the lanes below start this script once per binary): its
# report and exit status into files beside its logs.
if [ "${1:-}" = --one ]; then
    name=$(basename "$2")
    mkdir -p "$build/valgrind"
    check_one "$2" > "$build/valgrind/$name.report" 2>&1
    echo $? > "$build/valgrind/$name.status"
    exit 0
fi
rm -f "$build"/valgrind/*.report "$build"/valgrind/*.status
printf '%s\n' "$@" | xargs -n 1 -P "${VALGRIND_JOBS:-2}" sh "$0" --one
# Each binary's report, in the order given.
status=0
for t in "$@"; do
    name=$(basename "$t")
    cat "$build/valgrind/$name.report"
    [ "$(cat "$build/valgrind/$name.status" 2>/dev/null)" = 0 ] || status=1
done
exit $status

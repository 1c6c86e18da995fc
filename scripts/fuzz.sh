#!/bin/sh
# Runs each libFuzzer target given for FUZZ_TIME seconds (default 60), one
# after the other, niced (the machine is shared), and prints one line per
# target: executions, new corpus units and crashes.  Exit status 1 when any
# target found a crash, leak or timeout; its input is kept as
# build/fuzz/artifacts/<target>-crash-<sha1> (or -leak-, -timeout-, -oom-).
#
#   fuzz/corpus/<target>/     the seed corpus, committed (read only here),
#                              and the bad-input fixtures of the format
#                              (tests/bad/spec/ or netlist/, and limits/;
#                              tests/bad/matrix/ for the matrix readers;
#                              tests/bad/<name>/ for fuzz_<name>, when there
#                              is one)
#   fuzz/corpus-work/<target>/ what the fuzzer adds (ignored by git; kept
#                              between runs so a later run starts from there)
#   fuzz/<target>.dict         tokens of the format, when present
#
# Before fuzzing, each target replays its regression inputs once: the seed
# corpus and the bad-input fixtures of its format (tests/bad/<kind>/, where
# every crash fuzzing ever found is kept), so a fixed bug that comes back
# fails here even when the random search does not meet it again.
#
# Limits per input: 10 s (-timeout), 2 GiB (-rss_limit_mb), and -max_len
# large enough for the seeds (specs and netlists run to a few KiB).
T=${FUZZ_TIME:-60}
status=0
mkdir -p build/fuzz/artifacts
for f in "$@"; do
    name=$(basename "$f")
    case $name in
        fuzz_spec | fuzz_netlist) kinds="${name#fuzz_} limits" ;;
        fuzz_export) kinds="netlist limits" ;;
        fuzz_csv | fuzz_npy) kinds=matrix ;;
        *) kinds=${name#fuzz_} ;;
    esac
    fixtures=""
    for k in $kinds; do
        [ -d "tests/bad/$k" ] && fixtures="$fixtures tests/bad/$k"
    done
    replay=$(find "fuzz/corpus/$name" $fixtures -type f | sort)
    if ! "$f" -timeout=10 -rss_limit_mb=2048 $replay >"build/fuzz/$name.replay.log" 2>&1; then
        echo "$name: a regression input fails:"
        grep -B 2 -A 30 'ERROR' "build/fuzz/$name.replay.log" | head -n 60
        status=1
        continue
    fi
    work=fuzz/corpus-work/$name
    mkdir -p "$work"
    dict=""
    [ -f "fuzz/$name.dict" ] && dict="-dict=fuzz/$name.dict"
    log=build/fuzz/$name.log
    nice -n 10 "$f" -max_total_time="$T" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
        -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$name-" $dict \
        "$work" "fuzz/corpus/$name" $fixtures >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    crashes=$(grep -c '^==[0-9]*==ERROR\|^SUMMARY: \|ERROR: libFuzzer' "$log")
    units=$(ls "$work" | wc -l)
    echo "$name: ${runs:-0} executions in ${T} s, corpus $units units, exit $rc, $crashes crash reports"
    if [ $rc -ne 0 ]; then
        status=1
        if grep -q 'ERROR' "$log"; then
            grep -A 30 'ERROR' "$log" | head -n 60
        else
            tail -n 20 "$log"
        fi
    fi
done
exit $status

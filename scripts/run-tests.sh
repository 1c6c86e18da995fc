#!/bin/sh
# Runs every Criterion test binary given, keeps each one's Synthesis line in the
# log, prints every skipped test with its reason (an MPI test in a build
# without MPI, say), and ends with one "N passed, N failed, N skipped" line.
# OPTINC_TEST_JOBS: the tests each binary runs at once (default 2).
passed=0; failed=0; skipped=0; status=0
for t in "$@"; do
    name=$(basename "$t")
    out=$("$t" -j"${OPTINC_TEST_JOBS:-2}" --verbose --xml="$t.xml" 2>&1); rc=$?
    syn=$(printf '%s\n' "$out" | grep 'Synthesis:' | tail -n 1)
    p=$(printf '%s' "$syn" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
    f=$(printf '%s' "$syn" | sed -n 's/.*Failing: \([0-9]*\).*/\1/p')
    [ -n "$p" ] || p=0
    [ -n "$f" ] || f=1
    skips=$(printf '%s\n' "$out" | grep '^\[SKIP\]')
    [ -z "$skips" ] || { printf '%s\n' "$skips"; skipped=$((skipped + $(printf '%s\n' "$skips" | wc -l))); }
    passed=$((passed + p)); failed=$((failed + f))
    if [ $rc -ne 0 ] || [ "$f" -ne 0 ]; then
        status=1
        printf '%s\n' "$out" | grep -v '^\[----\] Criterion\|^\[RUN \]\|^\[PASS\]\|^\[====\] Running' | tail -n 40
    fi
    echo "$name: $syn"
done
echo "$passed passed, $failed failed, $skipped skipped"
exit $status

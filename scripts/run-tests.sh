#!/bin/sh
# Runs every Criterion test binary given, keeps each one's Synthesis line in the
# log, and ends with one "N passed, N failed" line over all of them.
passed=0; failed=0; status=0
for t in "$@"; do
    name=$(basename "$t")
    out=$("$t" -j2 --xml="$t.xml" 2>&1); rc=$?
    syn=$(printf '%s\n' "$out" | grep 'Synthesis:' | tail -n 1)
    p=$(printf '%s' "$syn" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
    f=$(printf '%s' "$syn" | sed -n 's/.*Failing: \([0-9]*\).*/\1/p')
    [ -n "$p" ] || p=0
    [ -n "$f" ] || f=1
    passed=$((passed + p)); failed=$((failed + f))
    if [ $rc -ne 0 ] || [ "$f" -ne 0 ]; then
        status=1
        printf '%s\n' "$out" | grep -v '^\[----\]' | tail -n 40
    fi
    echo "$name: $syn"
done
echo "$passed passed, $failed failed"
exit $status

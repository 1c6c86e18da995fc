#!/bin/sh
# The hardening passes of CI, run by .ci/run after `make check`, each timed:
#
#   make check SAN=1     every test again, built with ASan + UBSan (build-san/)
#   make valgrind        the tests that do not start MPI under memcheck, with
#                        tests/valgrind/*.supp (scripts/valgrind.sh)
#   make fuzz            each libFuzzer target for FUZZ_TIME (60) seconds,
#                        after replaying its seeds and bad-input fixtures
#   catalogue            tests/README is what scripts/bad-inputs.sh writes now
#
# All passes run even when one fails; the exit status is 1 when any failed.
# SKIP_SAN=1 leaves out the first pass (.ci/run runs it on its own).
status=0
step() {
    name=$1
    shift
    start=$(date +%s)
    "$@"
    rc=$?
    echo "== $name: exit $rc, $(( $(date +%s) - start )) s"
    [ $rc -eq 0 ] || status=1
}
catalogue() {
    OPTINC=build/optinc sh scripts/bad-inputs.sh > build/README.new || return 1
    diff -u tests/README build/README.new ||
        { echo "tests/README is stale: run 'sh scripts/bad-inputs.sh > tests/README'"; return 1; }
}
[ -n "${SKIP_SAN:-}" ] || step "make check SAN=1" make --no-print-directory check SAN=1
step "make valgrind" make --no-print-directory valgrind
step "make fuzz FUZZ_TIME=${FUZZ_TIME:-60}" make --no-print-directory fuzz FUZZ_TIME="${FUZZ_TIME:-60}"
step "bad-input catalogue current" catalogue
exit $status

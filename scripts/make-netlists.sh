#!/bin/sh
# Regenerates the golden netlists: netlists/NAME.pnl.sp from specs/NAME.yaml
# for every spec that has layers (a training-only spec has no circuit), with
# --reproducible so the files hold nothing time- or host-dependent.  Called by `make netlists` with OPTINC = the built program;
# run from the repository root (spec paths are recorded as given).
# tests/test_netlist.c fails when a checked-in netlist differs from what the
# compiler writes now: rerun `make netlists` after a deliberate change and
# commit the new files with it.
set -eu
: "${OPTINC:?set OPTINC to the optinc program}"
mkdir -p netlists
for spec in specs/*.yaml; do
    name=$(basename "$spec" .yaml)
    grep -q '^layers:' "$spec" || continue
    "$OPTINC" compile "$spec" -o "netlists/$name.pnl.sp" --reproducible --quiet
    echo "netlists/$name.pnl.sp"
done

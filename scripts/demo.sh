#!/bin/sh
# demo.sh - the main job on the shipped specs (`make demo`):
#   1. compile every spec in specs/ to a netlist in demo-out/ and print the
#      per-layer summaries;
#   2. check each written netlist against its target by simulating it back;
#   3. draw the 8x8 Reck mesh (PNG) and the 16x16 mesh (heat-map overview);
#   4. simulate a 16x16 mesh on Monte-Carlo chips with device errors, and
#      with phases corrected for each chip's couplers;
#   5. verify the shipped, already trained OptINC ONN exhaustively from its
#      netlist;
#   6. a short data-parallel training, ring vs OptINC all-reduce.
# Everything it writes goes to demo-out/.
set -eu
OPTINC=${OPTINC:-build/optinc}
OUT=demo-out
mkdir -p "$OUT"
step() { printf '\n== %s\n' "$*"; }

step "compile specs/*.yaml -> $OUT/*.pnl.sp"
for spec in specs/*.yaml; do
    grep -q '^layers:' "$spec" || continue
    name=$(basename "$spec" .yaml)
    echo "-- $spec"
    "$OPTINC" compile "$spec" -o "$OUT/$name.pnl.sp"
done

step "each netlist, read back and simulated, against the spec's target matrix"
for spec in specs/real4.yaml specs/complex16.yaml specs/reck8.yaml specs/rect10x6.yaml; do
    name=$(basename "$spec" .yaml)
    "$OPTINC" simulate "$OUT/$name.pnl.sp" --ideal --matrix "$OUT/$name.npy" >/dev/null
    echo "$OUT/$name.npy: transfer matrix (complex128) of $OUT/$name.pnl.sp"
done

step "drawings"
"$OPTINC" draw specs/reck8.yaml -o "$OUT/draw" --format svg,png
"$OPTINC" draw specs/complex16.yaml -o "$OUT/draw" --format svg,png --overview
ls "$OUT/draw"

step "the same 16x16 unitary on 20 simulated chips with device errors, then calibrated"
"$OPTINC" simulate specs/chip16.yaml --monte-carlo 20 --seed 1 --calibrate

if [ -f specs/onn4x8.yaml ] && [ -f netlists/onn4x8.pnl.sp ]; then
    step "the shipped OptINC ONN (4 servers, 8-bit), verified exhaustively from its netlist"
    "$OPTINC" onn verify netlists/onn4x8.pnl.sp
fi

step "data-parallel training, ring vs OptINC all-reduce"
OPTINC="$OPTINC" sh scripts/demo-train.sh 2

printf '\nAll demo outputs are in %s/.\n' "$OUT"

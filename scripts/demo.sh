#!/bin/sh
# demo.sh - the main job on the shipped specs (`make demo`); everything it
# writes goes to demo-out/.
#   1. the README's examples, exactly as written there;
#   2. every spec in specs/ compiled to a netlist, with its per-layer summary;
#   3. drawings: the 8x8 Reck mesh in full (PNG) and the 16x16 as a heat map,
#      and the 8x8 Reck mesh exported for SAX, gdsfactory, INTERCONNECT and GDSII;
#   4. the shipped OptINC ONN verified exhaustively from its netlist;
#   5. a short data-parallel training, ring vs OptINC all-reduce, in-process
#      and on 4 MPI ranks.
set -eu
OPTINC=${OPTINC:-build/optinc}
OUT=demo-out
# One BLAS thread per process, and mpirun allowed as root with 4 ranks on 2 cores.
export OPENBLAS_NUM_THREADS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$OUT"
step() { printf '\n== %s\n' "$*"; }

step "the README's examples"
sed -n '/<!-- demo:examples -->/,/^```$/p' README.md | grep -E '^(build/optinc|mpirun|mkdir) ' |
while IFS= read -r line; do
    printf '$ %s\n' "$line"
    cmd=$(printf '%s' "$line" | sed -e 's/ *# .*$//' -e "s|build/optinc|$OPTINC|g")
    sh -c "$cmd" </dev/null
done

step "compile specs/*.yaml -> $OUT/*.pnl.sp"
for spec in specs/*.yaml; do
    grep -q '^layers:' "$spec" || continue
    name=$(basename "$spec" .yaml)
    echo "-- $spec"
    "$OPTINC" compile "$spec" -o "$OUT/$name.pnl.sp"
done

step "drawings: the 8x8 Reck mesh in full, the 16x16 mesh as a heat map"
"$OPTINC" draw specs/reck8.yaml -o "$OUT/draw" --format svg,png
"$OPTINC" draw specs/complex16.yaml -o "$OUT/draw" --format svg,png --overview

step "exports of the 8x8 Reck mesh for SAX, gdsfactory, INTERCONNECT and GDSII"
mkdir -p "$OUT/export"
for format in sax gdsfactory interconnect gds; do
    case $format in sax) ext=json ;; gdsfactory) ext=yml ;; interconnect) ext=spi ;; gds) ext=gds ;; esac
    "$OPTINC" export specs/reck8.yaml --format $format -o "$OUT/export/reck8.$ext"
    echo "-- $format: $OUT/export/reck8.$ext"
done

step "the shipped OptINC ONN (4 servers, 8-bit), verified exhaustively from its netlist"
"$OPTINC" onn verify netlists/onn4x8.pnl.sp

step "data-parallel training, ring vs OptINC all-reduce"
OPTINC="$OPTINC" sh scripts/demo-train.sh 2

printf '\nAll demo outputs are in %s/.\n' "$OUT"

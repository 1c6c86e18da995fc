#!/bin/sh
# demo-train.sh - a short data-parallel training on Fashion-MNIST with ring
# all-reduce and with the OptINC all-reduce (the compiled ONN as the
# aggregator), then the same OptINC run on 4 MPI ranks (when mpirun is there
# and optinc was built with MPI), and a comparison.
# Takes well under two minutes on 2 cores.  Used by `make demo`.
#
#   OPTINC=build/optinc sh scripts/demo-train.sh [EPOCHS]
set -e
OPTINC=${OPTINC:-build/optinc}
EPOCHS=${1:-2}
ONN=netlists/onn4x8.pnl.sp
export OPENBLAS_NUM_THREADS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# value of a key in a one-line JSON object
field() { printf '%s\n' "$1" | sed -n "s/.*\"$2\": \"\{0,1\}\([^\",}]*\).*/\1/p"; }

OPT="--allreduce optinc --onn $ONN"
if [ ! -f "$ONN" ]; then
    echo "demo-train: $ONN not found; OptINC runs with the exact quantized aggregation instead"
    OPT="--allreduce quantized"
fi
COMMON="--servers 4 --epochs $EPOCHS --seed 1 --json --quiet"

echo "== data-parallel training: 784-256-128-10 MLP, Fashion-MNIST, 4 servers, $EPOCHS epochs"
ring=$("$OPTINC" train $COMMON --allreduce ring)
opt=$("$OPTINC" train $COMMON $OPT)
mpi=""
# outside mpirun, --backend mpi only says how to start it, or that this build has no MPI
if command -v mpirun >/dev/null 2>&1 &&
    ! "$OPTINC" train --backend mpi 2>&1 | grep -q "built without MPI"; then
    mpi=$(mpirun -np 4 "$OPTINC" train $COMMON $OPT --backend mpi) || mpi=""
fi

steps=$(field "$ring" steps)
printf '%-10s %-8s %10s %10s %16s %14s\n' all-reduce backend "test acc" "train loss" \
    "bytes/srv/step" "comm us/step"
row() {    # NAME BACKEND JSON
    b=$(field "$3" bytes_sent_per_server); t=$(field "$3" comm_time_s)
    awk -v n="$1" -v be="$2" -v a="$(field "$3" test_accuracy)" -v l="$(field "$3" train_loss)" \
        -v b="$b" -v t="$t" -v s="$steps" \
        'BEGIN { printf "%-10s %-8s %9.2f%% %10.4f %16.0f %14.3f\n", n, be, 100*a, l, b/s, 1e6*t/s }'
}
row ring inproc "$ring"
row "$(field "$opt" allreduce)" inproc "$opt"
[ -n "$mpi" ] && row "$(field "$mpi" allreduce)" mpi "$mpi"
acc=$(field "$opt" onn_accuracy)
[ -n "$acc" ] && echo "ONN table: $(awk -v a="$acc" 'BEGIN { printf "%.4f", 100*a }')% of P outputs exact"
awk -v r="$(field "$ring" bytes_sent_per_server)" -v o="$(field "$opt" bytes_sent_per_server)" \
    'BEGIN { printf "ring sends %.3fx the bytes of OptINC per server (float32 chunks vs 8-bit codes)\n", r/o }'
awk -v r="$(field "$ring" test_accuracy)" -v o="$(field "$opt" test_accuracy)" \
    'BEGIN { printf "test accuracy optinc - ring: %+.2f percentage points\n", 100*(o-r) }'
if [ -n "$mpi" ]; then
    if [ "$(field "$opt" weights_sha256)" = "$(field "$mpi" weights_sha256)" ]; then
        echo "in-process and MPI weights are bit-identical: sha256 $(field "$mpi" weights_sha256)"
    else
        echo "demo-train: in-process and MPI weights differ" >&2
        exit 1
    fi
fi

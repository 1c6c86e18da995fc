#!/bin/sh
# Installs the Debian packages optinc needs, only those that are missing.
# Non-interactive; needs root (or sudo) only when something is missing.
# klayout: tests/test_gds.c reads the GDSII export back with it (skipped without).
set -e
PKGS="build-essential pkg-config valgrind liblapacke-dev libopenblas-dev liblapack-dev
libblas-dev libyaml-dev libgraphviz-dev graphviz libcriterion-dev libopenmpi-dev
openmpi-bin zlib1g-dev dataset-fashion-mnist mandoc gnuplot-nox clang libclang-rt-14-dev
python3-torch python3-numpy python3-matplotlib fortunes klayout"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
        || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "optinc: installing missing packages:$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends $missing

#!/bin/sh
# Checks the layering of ARCHITECTURE.md on the source tree, so that a change
# that breaks it fails `make check` instead of slowly eroding the design:
#
#   - no #include "../..." anywhere in compiler/, runtime/, cli/;
#   - core (compiler/core/) includes only core headers; the compiler
#     (compiler/*) only core and compiler headers; runtime/ no cli header;
#     a private header is included by its path from the repository root;
#   - library code (compiler/, runtime/) never reads the environment or
#     starts a process (getenv, secure_getenv, popen, system, fork, exec*);
#   - no .c file of the library or the program is over 1,000 lines.
#
# Prints one line per violation and exits 1 when there is any.
cd "$(dirname "$0")/.." || exit 2
CORE="error rng matrix limits fileio text lbfgs"
COMPILER="$CORE spec mesh circuit netlist draw export"
status=0
say() { echo "check-layers: $*"; status=1; }

# allowed LIST FILE: every "optinc/NAME.h" FILE includes is in LIST, and every
# private header it includes ("dir/name.h") lies in one of the folders PREFIXES.
allowed() {
    list=$1 file=$2 prefixes=$3
    for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"optinc\/\([a-z_]*\)\.h".*/\1/p' "$file"); do
        case " $list " in *" $h "*) ;; *) say "$file includes optinc/$h.h, a header of a higher layer" ;; esac
    done
    for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file"); do
        case $h in
        optinc/*) ;;
        ../*|*/../*) say "$file includes \"$h\": include private headers by their path from the repository root" ;;
        */*)
            ok=0
            for p in $prefixes; do case $h in "$p"*) ok=1 ;; esac; done
            [ $ok -eq 1 ] || say "$file includes \"$h\", a private header of a higher layer"
            [ -f "$h" ] || say "$file includes \"$h\", which is not a path from the repository root" ;;
        *)
            [ -f "$(dirname "$file")/$h" ] || say "$file includes \"$h\", not in its own folder" ;;
        esac
    done
}

for f in $(find compiler/core -name '*.[ch]'); do allowed "$CORE" "$f" "compiler/core/"; done
for f in $(find compiler -path compiler/core -prune -o -name '*.[ch]' -print); do
    allowed "$COMPILER" "$f" "compiler/"
done
for f in $(find runtime -name '*.[ch]'); do allowed "$COMPILER sim calibration onn onn_aggregate allreduce comm costmodel dataset train" "$f" "compiler/ runtime/"; done
for f in $(find cli -name '*.[ch]'); do allowed "$COMPILER sim calibration onn onn_aggregate allreduce comm costmodel dataset train" "$f" "compiler/ runtime/ cli/"; done

for f in $(grep -rlE '\<(getenv|secure_getenv|popen|system|fork|execv|execvp|execl|execlp)[[:space:]]*\(' compiler runtime); do
    say "$f reads the environment or starts a process; only cli/ may"
done

for f in $(find compiler runtime cli -name '*.c'); do
    n=$(wc -l < "$f")
    [ "$n" -le 1000 ] || say "$f has $n lines; split it along its concerns (at most 1000)"
done
exit $status

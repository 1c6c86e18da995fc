#!/bin/sh
# Prints the BLAS and LAPACK that program $1 loads with the loader's path as
# it is, and fails when $2 is "reference" and they are not the reference
# libraries (libblas3, liblapack3: folders blas/ and lapack/ of the
# multiarch library folder), so that `make check BLAS=reference` cannot pass
# on OpenBLAS by mistake.
set -eu
libs=$(ldd "$1" | sed -n 's/^[[:space:]]*\(lib\(blas\|lapack\)\.so[^ ]*\) => \([^ ]*\).*/\3/p' \
       | xargs -r readlink -f)
echo "BLAS and LAPACK in use:" $libs
if [ "${2:-}" = reference ]; then
    for l in $libs; do
        case $l in
            */blas/libblas.so*|*/lapack/liblapack.so*) ;;
            *) echo "BLAS=reference, but $l is loaded: install libblas3 and liblapack3" >&2
               exit 1 ;;
        esac
    done
    [ "$(echo "$libs" | wc -w)" -eq 2 ] || {
        echo "BLAS=reference: cannot find both libraries (apt-get install libblas3 liblapack3)" >&2
        exit 1; }
fi

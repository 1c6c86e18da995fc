#!/bin/sh
# Writes the bad-input catalogue (tests/README) to stdout: every class of bad
# input the tests cover, with the first line the program prints for it.  The
# messages are not copied from the tests but produced by running $OPTINC
# (default build/optinc) on each input, so the table says what a user sees
# today.  Run from the repository root:
#
#   sh scripts/bad-inputs.sh > tests/README
#
# Inputs: every fixture file under tests/bad/ (each run through the command
# a user would run on it), plus the cases the tests build inline (matrix
# files, calibration files, YAML bombs, command lines), made here under
# build/bad-inputs/ from the same texts.  CI runs this and fails when
# tests/README differs, so the catalogue cannot go stale.
export LC_ALL=C
OPTINC=${OPTINC:-build/optinc}
tmp=build/bad-inputs
rm -rf "$tmp"
mkdir -p "$tmp"
unset OPTINC_MAX_MODES OPTINC_MAX_CARDS OPTINC_MAX_INPUT_BYTES   # the default limits

# One table row: the input's name and the first line of stderr (escaped for
# Markdown), and the exit status.
row() {
    label=$1
    shift
    msg=$("$OPTINC" "$@" 2>&1 >/dev/null)
    rc=$?
    msg=$(printf '%s\n' "$msg" | head -n 1 | sed -e 's/|/\\|/g')
    printf '| %s | %s | `%s` |\n' "$label" "$rc" "$msg"
}

head_table() {
    printf '\n## %s\n\n%s\n\n| input | exit | first line of stderr |\n| --- | --- | --- |\n' "$1" "$2"
}

# A .npy file: version 1, the header dict padded to 64 bytes, then $3 bytes
# of data from $4 (a printf format).
npy() {
    dict=$2
    pad=$(( (10 + ${#dict} + 1 + 63) / 64 * 64 - 10 - ${#dict} - 1 ))
    hl=$(( ${#dict} + pad + 1 ))
    {
        printf '\223NUMPY\001\000'
        printf "\\$(printf '%03o' $((hl % 256)))\\$(printf '%03o' $((hl / 256)))"
        printf '%s%*s\n' "$dict" "$pad" ""
        head -c "$3" /dev/zero
        [ -n "$4" ] && printf "$4"
    } > "$tmp/$1"
}

cat <<'EOF'
# Bad inputs: the catalogue

Every class of bad input the tests cover, and what a user sees: the first
line optinc prints on stderr and its exit status (2: bad input, 1: the run
failed).  Bad input is reported as `FILE:LINE:COL: error: MESSAGE`, where the
message says what is wrong and how to fix it; nothing is written.

This file is generated: `sh scripts/bad-inputs.sh > tests/README` (after
`make`).  The fixtures are under `tests/bad/<kind>/`, with the expected
position and message fragment beside them (`.expect` files) or in the test
that reads them (`tests/test_spec.c`, `tests/test_limits.c`, ...); the
inline cases are made by the script from the texts the tests use.  Resource
limits and the guarantees about output files are described in
optinc-limits(7).

Output files: every file optinc writes appears complete or not at all
(tests/test_atomic.c).  A run killed while writing `NAME` may leave
`.NAME.tmpXXXXXX` beside it; that hidden file is never `NAME`, no optinc
command reads it, and it can be deleted.  A write that fails (a full disk)
names the file and the system's reason and leaves no such file; an output
that is one of the run's inputs is refused before anything is written
(section "Outputs and runs").
EOF

head_table "Specs (YAML)" "\`optinc compile FILE\` on each fixture of tests/bad/spec/ (tests/test_spec.c); the .csv and .npy files there are matrix files the specs name."
for f in tests/bad/spec/*.yaml; do
    row "$f" compile "$f"
done

head_table "Matrix files (.npy, .csv)" "\`optinc simulate CIRCUIT --input FILE --output OUT.npy\` (the same readers load the files a spec names with \`file:\`); cases of tests/test_fileio.c."
d='{'"'"'descr'"'"': '"'"'<f8'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (2, 2), }'
npy dtype_f4.npy "$(printf '%s' "$d" | sed 's/<f8/<f4/')" 32
npy big_endian.npy "$(printf '%s' "$d" | sed 's/<f8/>f8/')" 32
npy fortran.npy "$(printf '%s' "$d" | sed 's/False/True/')" 32
npy three_dims.npy "$(printf '%s' "$d" | sed 's/(2, 2)/(2, 2, 2)/')" 64
npy scalar.npy "$(printf '%s' "$d" | sed 's/(2, 2)/()/')" 8
npy unknown_key.npy "$(printf '%s' "$d" | sed "s/, }/, 'x': 1}/")" 32
npy missing_key.npy "$(printf '%s' "$d" | sed "s/'fortran_order': False, //")" 32
npy truncated.npy "$d" 24
npy trailing.npy "$d" 40
npy too_large.npy "$(printf '%s' "$d" | sed 's/(2, 2)/(70000, 2)/')" 0
npy nan.npy "$d" 8 '\0\0\0\0\0\0\370\177\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
printf 'not numpy' > "$tmp/not_npy.npy"
printf '1,2,3\n4,x5,6\n' > "$tmp/not_a_number.csv"
printf '1,2,3\n4,5\n' > "$tmp/ragged.csv"
printf '1,2\n\n3,4\n' > "$tmp/blank_line.csv"
printf '1,,2\n' > "$tmp/empty_field.csv"
printf '1, nan\n' > "$tmp/nan.csv"
printf '' > "$tmp/empty.csv"
printf '# only a comment\n\n' > "$tmp/comment_only.csv"
yes 1 | head -n 65537 | paste -s -d , - > "$tmp/too_wide.csv"
printf '1.7e308,1.7e308\n1.7e308,-1.7e308\n1.7e308,1\n' > "$tmp/overflowing.csv"
circuit=tests/bad/calibration/circuit.yaml
for f in dtype_f4 big_endian fortran three_dims scalar unknown_key missing_key truncated \
         trailing too_large nan not_npy; do
    row "$f.npy" simulate "$circuit" --input "$tmp/$f.npy" --output "$tmp/out.npy"
done
for f in not_a_number ragged blank_line empty_field nan empty comment_only too_wide overflowing; do
    row "$f.csv" simulate "$circuit" --input "$tmp/$f.csv" --output "$tmp/out.npy"
done
row "no such file" simulate "$circuit" --input "$tmp/missing.npy" --output "$tmp/out.npy"

head_table "Netlists (PNL)" "\`optinc simulate FILE\` on each fixture of tests/bad/netlist/ (tests/test_netlist.c)."
for f in tests/bad/netlist/*.pnl.sp; do
    row "$f" simulate "$f"
done

head_table "Calibration files" "\`optinc simulate $circuit --calibration FILE\`; cases of tests/test_sim.c."
cal() {
    printf "$2" > "$tmp/$1.cal"
    row "$1.cal" simulate "$circuit" --calibration "$tmp/$1.cal"
}
cal empty '# nothing\n'
cal bad_header 'optinc-calibration 2\nL1 V 0 0 0 0\n'
cal few_fields 'optinc-calibration 1\nL1 V 0 0 0.01\n'
cal many_fields 'optinc-calibration 1\nL1 V 0 0 0.01 0.02 0.03\n'
cal no_layer 'optinc-calibration 1\n  L9 V 0 0 0 0\n'
cal no_mesh 'optinc-calibration 1\nL1 S 0 0 0 0\n'
cal bad_column 'optinc-calibration 1\nL1 V 7 0 0 0\n'
cal no_mzi 'optinc-calibration 1\nL1 U 0 1 0 0\n'
cal bad_delta 'optinc-calibration 1\nL1 U 0 0 0.01 abc\n'
cal delta_range 'optinc-calibration 1\nL1 U 0 0 0.6 0\n'
cal duplicate 'optinc-calibration 1\nL1 U 0 0 0 0\n# again\nL1 U 0 0 0.1 0\n'
row "--calibration ''" simulate "$circuit" --calibration ''

head_table "Error histograms" "\`optinc train --allreduce quantized --inject-errors FILE\` (the file is read before any training); cases of tests/test_allreduce.c."
hist() {
    printf "$2" > "$tmp/$1.hist"
    row "$1.hist" train --allreduce quantized --inject-errors "$tmp/$1.hist"
}
hist bad_count '0 10\n1 x\n'
hist bad_delta '0 10\n  1.5 3\n'
hist delta_range '0 10\n70000 1\n'
hist three_fields '0 10\n1 2 3\n'
hist p_error_range 'p_error 2\n'
hist empty '# nothing\n'
hist no_error_bin 'p_error 0.1\n0 5\n'
hist nul '0 10\n1 \0 3\n'

head_table "Resource limits" "Inputs that would need absurd memory or time, refused before the work starts (optinc-limits(7), tests/test_limits.c): the fixtures of tests/bad/limits/ and, made here, YAML that libyaml alone would take hours or gigabytes over."
for f in tests/bad/limits/*.yaml; do
    row "$f" compile "$f"
done
for f in tests/bad/limits/*.pnl.sp; do
    row "$f" simulate "$f"
done
yaml='schema_version: 1\nname: bomb\n'
{ printf "${yaml}x-deep: "; head -c 100000 /dev/zero | tr '\0' '['; echo; } > "$tmp/flow_nesting.yaml"
{ printf "${yaml}x-list:\n"; seq 0 1024 | sed 's/.*/  - \&a& &/'; } > "$tmp/anchors.yaml"
{ printf "${yaml}x-one: &a 1\nx-list: ["; yes '*a,' | head -n 65537 | tr -d '\n'; echo '*a]'; } > "$tmp/aliases.yaml"
{ printf "${yaml}x-flat: ["; yes '1,' | head -n 4194304 | tr -d '\n'; echo '1]'; } > "$tmp/nodes.yaml"
for f in flow_nesting anchors aliases nodes; do
    row "$f.yaml" compile "$tmp/$f.yaml"
done
printf '* a line over 1 MiB\n*' > "$tmp/long_line.pnl.sp"
head -c 1048577 /dev/zero | tr '\0' 'x' >> "$tmp/long_line.pnl.sp"
printf '\n.end\n' >> "$tmp/long_line.pnl.sp"
for k in $(seq 0 17); do
    printf '.include "d%d.inc"\n' $((k + 1)) > "$tmp/d$k.inc"
done
cp "$tmp/d0.inc" "$tmp/include_depth.pnl.sp"
for f in long_line include_depth; do
    row "$f.pnl.sp" simulate "$tmp/$f.pnl.sp"
done
(export OPTINC_MAX_INPUT_BYTES=100; row "OPTINC_MAX_INPUT_BYTES=100 optinc compile specs/real4.yaml" compile specs/real4.yaml)

head_table "Command lines" "Usage errors print \`optinc CMD: error: ...\` and exit 2 (tests/test_cli.c, test_sim.c, test_draw.c, test_train.c, test_onn.c)."
s=specs/real4.yaml
row "optinc frobnicate" frobnicate
row "optinc compile" compile
row "optinc compile A B" compile $s specs/reck8.yaml
row "optinc compile --no-such-option" compile $s --no-such-option
row "optinc compile -o (no file)" compile $s -o
row "optinc compile (missing spec)" compile no/such/spec.yaml
row "optinc simulate" simulate
row "optinc simulate --monte-carlo 0" simulate $s --monte-carlo 0
row "optinc simulate --detect phase" simulate $s --detect phase
row "optinc simulate --output (no --input)" simulate $s --output "$tmp/o.npy"
row "optinc draw (no -o)" draw $s
row "optinc draw --format jpg" draw $s -o "$tmp/d" --format svg,jpg
row "optinc train --allreduce tree" train --allreduce tree
row "optinc train --servers 0" train --servers 0
row "optinc train --bits 7" train --bits 7
row "optinc train --backend tcp" train --backend tcp
row "optinc train --lr -1" train --lr -1
row "optinc train A B" train a.yaml b.yaml
row "optinc train --backend mpi (no mpirun)" train --backend mpi
row "optinc onn" onn
row "optinc onn frobnicate" onn frobnicate
row "optinc onn verify --sigma -1" onn verify specs/onn4x8.yaml --sigma -1
row "optinc train --hidden 16,,8" train --hidden 16,,8
row "optinc train --cost-model --efficiency 2" train --cost-model --efficiency 2
row "optinc train --allreduce ring --inject-errors H" train --allreduce ring --inject-errors H
row "optinc train --allreduce exact --onn NET.sp" train --allreduce exact --onn NET.sp
row "optinc train --allreduce ring --bits 4" train --allreduce ring --bits 4
row "optinc onn train --name 'bad name'" onn train -o "$tmp/x.yaml" --name 'bad name'

head_table "Outputs and runs" "An output that is an input of its run, a run that would fail only after its work, spec values the trainer cannot take; refused before anything is written (tests/test_hostile.c; damaged checkpoints: tests/test_train.c)."
cp $s "$tmp/S.yaml"
cp netlists/onn4x8.pnl.sp "$tmp/O.sp"
printf '0.5, 0.1\n-0.2, 0.3\n' > "$tmp/W.csv"
printf 'schema_version: 1\nname: m\nmatrices:\n  W: {file: W.csv, shape: [2, 2], dtype: real}\nlayers:\n  - {name: L1, matrix: W}\n' > "$tmp/M.yaml"
"$OPTINC" compile "$tmp/S.yaml" -o "$tmp/N.sp" --quiet
"$OPTINC" simulate "$tmp/N.sp" --save-calibration "$tmp/C.cal" > /dev/null
mkdir -p "$tmp/folder"
train='schema_version: 1\nname: t\nmatrices:\n  W: {shape: [2, 2], dtype: complex, generate: {kind: haar_unitary, seed: 1}}\nlayers:\n  - {name: L1, matrix: W}\ntrain:\n'
printf "${train}  servers: 300\n" > "$tmp/servers_300.yaml"
printf "${train}  allreduce: optinc\n  onn: nope.sp\n" > "$tmp/onn_missing.yaml"
row "compile S.yaml -o S.yaml" compile "$tmp/S.yaml" -o "$tmp/S.yaml"
row "compile M.yaml -o W.csv (its matrix file)" compile "$tmp/M.yaml" -o "$tmp/W.csv"
row "compile --calibration C -o C" compile "$tmp/S.yaml" --calibration "$tmp/C.cal" -o "$tmp/C.cal"
row "simulate N.sp --matrix N.sp" simulate "$tmp/N.sp" --matrix "$tmp/N.sp"
row "simulate N.sp --save-calibration N.sp" simulate "$tmp/N.sp" --save-calibration "$tmp/N.sp"
row "onn export N --hist N" onn export "$tmp/O.sp" --hist "$tmp/O.sp"
row "onn train -o FOLDER" onn train -o "$tmp/folder"
row "train SPEC (train.servers: 300)" train "$tmp/servers_300.yaml" --data "$tmp"
row "train SPEC (train.onn: nope.sp)" train "$tmp/onn_missing.yaml" --data "$tmp"
row "train --out FILE" train --out "$tmp/S.yaml" --data "$tmp"
rm -rf "$tmp"

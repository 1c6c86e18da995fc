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
unset OPTINC_MAX_MODES OPTINC_MAX_CARDS OPTINC_MAX_INPUT_BYTES OPTINC_MAX_INCLUDES \
    OPTINC_INCLUDE_PATH   # the default limits, includes from the netlist's folder only

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

MPI ranks that disagree: ranks started with settings that differ (an MPI
app context gives each rank its own command line, spec and data) stop
before training, every one with status 2, and rank 0 prints `optinc train:
error: ranks disagree on --hidden: rank 0 has 8, rank 1 has 16; start
every rank with the same options` (optinc-train(1), "Ranks agree or
stop").  These cases need mpirun, and a build without MPI says something
else, so they are not run here but by tests/test_mpi_agree.c, one per
class of option.
EOF

head_table "Specs (YAML)" "\`optinc compile FILE\` on each fixture of tests/bad/spec/ (tests/test_spec.c); the .csv and .npy files there are matrix files the specs name."
for f in tests/bad/spec/*.yaml; do
    row "$f" compile "$f"
done

head_table "ONN specs" "\`optinc onn verify FILE\` on each fixture of tests/bad/onn/ (tests/test_onn.c): specs that compile but do not describe an ONN optinc can run."
for f in tests/bad/onn/*.yaml; do
    row "$f" onn verify "$f"
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
printf '1, 0x1p-2\n' > "$tmp/hex.csv"
printf '' > "$tmp/empty.csv"
printf '# only a comment\n\n' > "$tmp/comment_only.csv"
yes 1 | head -n 65537 | paste -s -d , - > "$tmp/too_wide.csv"
printf '1.7e308,1.7e308\n1.7e308,-1.7e308\n1.7e308,1\n' > "$tmp/overflowing.csv"
circuit=tests/bad/calibration/circuit.yaml
for f in dtype_f4 big_endian fortran three_dims scalar unknown_key missing_key truncated \
         trailing too_large nan not_npy; do
    row "$f.npy" simulate "$circuit" --input "$tmp/$f.npy" --output "$tmp/out.npy"
done
for f in not_a_number ragged blank_line empty_field nan hex empty comment_only too_wide overflowing; do
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
cal bad_header 'optinc-calibration 9\nL1 V 0 0 0 0\n'
cal nine_fields_v2 'optinc-calibration 2\nL1 V 0 0 0 0 0 0 9\n'
cal few_fields 'optinc-calibration 1\nL1 V 0 0 0.01\n'
cal many_fields 'optinc-calibration 1\nL1 V 0 0 0.01 0.02 0.03\n'
cal no_layer 'optinc-calibration 1\n  L9 V 0 0 0 0\n'
cal no_mesh 'optinc-calibration 1\nL1 S 0 0 0 0\n'
cal bad_column 'optinc-calibration 1\nL1 V 7 0 0 0\n'
cal no_mzi 'optinc-calibration 1\nL1 U 0 1 0 0\n'
cal bad_delta 'optinc-calibration 1\nL1 U 0 0 0.01 abc\n'
cal hex_delta 'optinc-calibration 1\nL1 U 0 0 0x1p-7 0\n'
cal delta_range 'optinc-calibration 1\nL1 U 0 0 0.6 0\n'
cal duplicate 'optinc-calibration 1\nL1 U 0 0 0 0\n# again\nL1 U 0 0 0.1 0\n'
cal tap_no_chain 'optinc-calibration 2\nL1 U tap 0 0 0.5\n'
cal tap_fields 'optinc-calibration 2\nL1 U tap 0 0\n'
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
hist sum_overflow '0 1e308\n3 1e308\n'

head_table "Resource limits" "Inputs that would need absurd memory or time, refused before the work starts (optinc-limits(7), tests/test_limits.c): the fixtures of tests/bad/limits/ and, made here, YAML that libyaml alone would take hours or gigabytes over, and netlists of includes (a million of an empty file; one through a link out of its folder)."
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
: > "$tmp/empty.inc"
{ echo '* a million .includes of an empty file'; yes '.include "empty.inc"' | head -n 1000000
  echo .end; } > "$tmp/include_empties.pnl.sp"
mkdir -p "$tmp/net"
ln -s ../include_depth.pnl.sp "$tmp/net/link.inc"
printf '* an .include through a link out of its folder\n.include "link.inc"\n.end\n' \
    > "$tmp/net/include_link_out.pnl.sp"
for f in long_line include_depth include_empties net/include_link_out; do
    row "$f.pnl.sp" simulate "$tmp/$f.pnl.sp"
done
(export OPTINC_MAX_INPUT_BYTES=100; row "OPTINC_MAX_INPUT_BYTES=100 optinc compile specs/real4.yaml" compile specs/real4.yaml)
(export OPTINC_MAX_INPUT_BYTES=5000; row "OPTINC_MAX_INPUT_BYTES=5000 optinc compile specs/real4.yaml -o N.sp --flatten --expand-mzi (a netlist the reader would refuse)" compile specs/real4.yaml -o "$tmp/N_big.sp" --flatten --expand-mzi)

head_table "Command lines" "Usage errors print \`optinc CMD: error: ...\` and exit 2 (tests/test_cli.c, test_sim.c, test_draw.c, test_train.c, test_onn.c)."
s=specs/real4.yaml
row "optinc frobnicate" frobnicate
row "optinc compile" compile
row "optinc compile A B" compile $s specs/reck8.yaml
row "optinc compile --no-such-option" compile $s --no-such-option
row "optinc compile -o (no file)" compile $s -o
row "optinc compile (missing spec)" compile no/such/spec.yaml
row "optinc export --format drive (no --calibration)" export $s --format drive -o "$tmp/d.csv"
row "optinc export --format sax --bits 8" export $s --format sax --bits 8 -o "$tmp/d.json"
cp -r specs/onn4x8 "$tmp/" && printf 'layout: {mode_pitch_um: 20}\n' | cat specs/onn4x8.yaml - > "$tmp/onn_tight.yaml"
row "optinc export SEGMENTED --format gds (mode pitch 20 um)" export "$tmp/onn_tight.yaml" --format gds -o "$tmp/t.gds"
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
row "optinc onn cascade UNIT --servers 64 --levels 4" onn cascade netlists/onn4x8.pnl.sp --servers 64 --levels 4
row "optinc onn cascade LEVEL1 --servers 64 (a level, not a unit)" onn cascade specs/cascade/onn16x8_level1.yaml --servers 64
row "optinc onn cascade A B --levels 2" onn cascade a.sp b.sp --levels 2
row "optinc train --servers 8 --allreduce optinc (4-server unit: 4^L servers)" train specs/train_fmnist.yaml --servers 8 --allreduce optinc
row "optinc train --hidden 16,,8" train --hidden 16,,8
row "optinc train --cost-model --efficiency 2" train --cost-model --efficiency 2
row "optinc train --allreduce ring --inject-errors H" train --allreduce ring --inject-errors H
row "optinc train --allreduce exact --onn NET.sp" train --allreduce exact --onn NET.sp
row "optinc train --allreduce ring --bits 4" train --allreduce ring --bits 4
row "optinc onn train --name 'bad name'" onn train -o "$tmp/x.yaml" --name 'bad name'
row "optinc onn verify --misses F.csv --chips 2" onn verify netlists/onn4x8.pnl.sp --misses "$tmp/m.csv" --sigma 0.01 --chips 2

head_table "Files of points" "\`onn train --focus F.csv\` and \`onn verify --points F.csv\` read the points \`onn verify --misses\` writes (tests/test_onn_screen.c, focus_file_refused): each row a reachable P output of the ONN's task."
printf '1,2,3,4\n13,0,0,0\n' > "$tmp/past_box.csv"
row "--focus: a digit sum past the box (13 of 0..12)" onn train --resume specs/onn4x8.yaml --focus "$tmp/past_box.csv" -o "$tmp/x.yaml"
printf '1,2,3.5,4\n' > "$tmp/fraction.csv"
row "--focus: a digit sum that is not an integer" onn train --resume specs/onn4x8.yaml --focus "$tmp/fraction.csv" -o "$tmp/x.yaml"
printf '1,2,3\n' > "$tmp/short_row.csv"
row "--focus: fewer columns than the task's P outputs" onn train --resume specs/onn4x8.yaml --focus "$tmp/short_row.csv" -o "$tmp/x.yaml"
printf '1,2,x,4\n' > "$tmp/not_a_number.csv"
row "--points: a field that is not a number" onn verify netlists/onn4x8.pnl.sp --points "$tmp/not_a_number.csv"

head_table "Exports" "Names a format cannot hold or that collide with the names an export makes itself, and outputs or model maps that would inject a line (tests/test_export.c, names_cannot_collide_or_inject)."
export_spec() {
    printf 'schema_version: 1\nname: %s\nsettings: {seed: 1}\nmatrices:\n  W1: {shape: [2, 2], dtype: real, generate: {kind: gaussian, seed: 1}}\nlayers:\n  - {name: L1, matrix: W1}\n' "$1" > "$tmp/$1.yaml"
}
for n in gain layer_L1; do
    export_spec $n
    row "export SPEC --format sax (a circuit named $n)" export "$tmp/$n.yaml" --format sax -o "$tmp/x.json"
done
export_spec stage_L1_V
row "export SPEC --format interconnect (a circuit named stage_L1_V)" export "$tmp/stage_L1_V.yaml" --format interconnect -o "$tmp/x.spi"
row "export --format interconnect -o 'a<newline>b.spi'" export specs/real4.yaml --format interconnect -o "$tmp/a
b.spi"
printf 'mzi my_mzi Design\013kits\n' > "$tmp/vt.map"
row "export --format interconnect --model-map (a library with a vertical tab)" export specs/real4.yaml --format interconnect -o "$tmp/x.spi" --model-map "$tmp/vt.map"

head_table "Outputs and runs" "An output that is an input of its run, two outputs of one name, a run that would fail only after its work, spec values the trainer cannot take; refused before anything is written (tests/test_hostile.c, test_atomic.c; damaged checkpoints: tests/test_train.c)."
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
cp specs/onn4x8.yaml "$tmp/R.yaml"
cp -r specs/onn4x8 "$tmp/onn4x8"
"$OPTINC" compile "$tmp/R.yaml" -o "$tmp/RN.sp" --quiet 2>/dev/null
sed -i '/^\*! onn = /d' "$tmp/RN.sp"       # its task now comes from the spec it names
ln -f "$tmp/N.sp" "$tmp/real4_L1.svg"
row "onn export N --lut S (N without its *! onn line names S)" onn export "$tmp/RN.sp" --lut "$tmp/R.yaml"
row "draw N.sp -o DIR (DIR/real4_L1.svg is N.sp)" draw "$tmp/N.sp" -o "$tmp" --format svg
layers='schema_version: 1\nname: C\nmatrices:\n  W: {shape: [4, 4], dtype: complex, generate: {kind: haar_unitary, seed: 1}}\nlayers:\n'
printf "${layers}  - {name: L1, matrix: W}\n  - {name: layers, matrix: W}\n" > "$tmp/layer_layers.yaml"
printf "${layers}  - {name: L, matrix: W}\n  - {name: L_overview, matrix: W}\n" > "$tmp/layer_overview.yaml"
row "draw S.yaml (a layer named 'layers', the layer graph's name)" draw "$tmp/layer_layers.yaml" -o "$tmp/drawn" --format svg
row "draw S.yaml --overview (layers L and L_overview)" draw "$tmp/layer_overview.yaml" -o "$tmp/drawn" --format svg --overview
nl="$tmp/new
line.yaml"
cp "$tmp/S.yaml" "$nl"
"$OPTINC" compile "$nl" -o "$tmp/nl.sp" --quiet
row "simulate N.sp (its spec's path has a newline, escaped in the header)" simulate "$tmp/nl.sp"
row "onn train --name 'a<newline>b: 1'" onn train -o "$tmp/x.yaml" --name 'a
b: 1'
npy dmax.npy "$d" 0 '\377\377\377\377\377\377\357\177\377\377\377\377\377\377\357\177\377\377\377\377\377\377\357\177\377\377\377\377\377\377\357\377'
printf 'schema_version: 1\nname: t\nmatrices:\n  W: {shape: [2, 2], dtype: complex, generate: {kind: haar_unitary, seed: 1}}\nlayers:\n  - {name: L1, matrix: W}\n' > "$tmp/T.yaml"
row "simulate --input (entries near DBL_MAX)" simulate "$tmp/T.yaml" --input "$tmp/dmax.npy" --output "$tmp/dmax_out.npy"
row "compile S.yaml -o ''" compile "$tmp/S.yaml" -o ''
row "train --out ''" train --out ''

head_table "Devices, links, FIFOs and sizes" "Outputs onto a character device are written through (the node stays), onto a link replace the link's target; inputs that are FIFOs, devices or folders are refused without blocking, and sizes are checked before reading (tests/test_hostile.c, test_atomic.c, test_fileio.c).  The device nodes are made in the scratch folder (as root), never the real /dev."
t="$tmp/dev"
mkdir -p "$t"
if mknod "$t/null" c 1 3 2>/dev/null && mknod "$t/full" c 1 7 && mknod "$t/zero" c 1 5; then
    row "compile -o NULL (a node like /dev/null)" compile "$tmp/S.yaml" -o "$t/null" --quiet
    row "compile -o FULL (a node like /dev/full)" compile "$tmp/S.yaml" -o "$t/full" --quiet
    row "simulate --matrix FULL" simulate "$tmp/N.sp" --matrix "$t/full"
    row "simulate --save-calibration NULL" simulate "$tmp/N.sp" --save-calibration "$t/null"
    ln -s zero "$t/z.csv"
    ln -s zero "$t/z.cal"
    printf 'schema_version: 1\nname: m\nmatrices:\n  W: {file: dev/z.csv, shape: [2, 2], dtype: real}\nlayers:\n  - {name: L1, matrix: W}\n' > "$tmp/zero_matrix.yaml"
    row "file: a link to ZERO" compile "$tmp/zero_matrix.yaml"
    row "--calibration a link to ZERO" simulate "$tmp/N.sp" --calibration "$t/z.cal"
    row "--inject-errors ZERO" train --allreduce quantized --inject-errors "$t/zero"
    printf '| (device nodes) | | `%s` |\n' "$(stat -c '%F' "$t/null"), $(stat -c '%F' "$t/full")"
fi
echo old > "$tmp/target.sp"
ln -s target.sp "$tmp/link.sp"
row "compile -o LINK" compile "$tmp/S.yaml" -o "$tmp/link.sp" --quiet
printf '| (after it) | | `%s` |\n' "link.sp: $(stat -c '%F' "$tmp/link.sp"); target.sp: $(head -c 20 "$tmp/target.sp")"
mkfifo "$t/fifo.yaml" "$t/fifo.sp" "$t/fifo.csv" "$t/fifo.cal" "$t/fifo.hist" "$t/fifo.inc"
printf '* wrapper\n.include "fifo.inc"\n.end\n' > "$t/inc.sp"
printf 'schema_version: 1\nname: m\nmatrices:\n  W: {file: fifo.csv, shape: [2, 2], dtype: real}\nlayers:\n  - {name: L1, matrix: W}\n' > "$t/fifo_matrix.yaml"
row "FIFO as spec" compile "$t/fifo.yaml"
row "FIFO as netlist" simulate "$t/fifo.sp"
row "FIFO as .include" simulate "$t/inc.sp"
row "FIFO as file:" compile "$t/fifo_matrix.yaml"
row "FIFO as --calibration" simulate "$tmp/N.sp" --calibration "$t/fifo.cal"
row "FIFO as --inject-errors" train --allreduce quantized --inject-errors "$t/fifo.hist"
mkdir "$t/adir.csv" "$t/adir.npy"
for f in adir.csv adir.npy; do
    printf "schema_version: 1\nname: m\nmatrices:\n  W: {file: $f, shape: [2, 2], dtype: real}\nlayers:\n  - {name: L1, matrix: W}\n" > "$t/m_$f.yaml"
    row "file: $f (a folder)" compile "$t/m_$f.yaml"
done
truncate -s 3G "$t/sparse.csv"
printf 'schema_version: 1\nname: m\nmatrices:\n  W: {file: sparse.csv, shape: [2, 2], dtype: real}\nlayers:\n  - {name: L1, matrix: W}\n' > "$t/sparse.yaml"
row "file: a 3 GB sparse .csv" compile "$t/sparse.yaml"
rm -f "$t/sparse.csv"
printf '0.5,0.1\n-0.2,0\0.3\n' > "$t/nul.csv"
printf 'optinc-calibration 1\nL1 U 0 0 0\0 0\n' > "$t/nul.cal"
row "NUL byte in a .csv" simulate "$circuit" --input "$t/nul.csv" --output "$tmp/out.npy"
row "NUL byte in a calibration file" simulate "$circuit" --calibration "$t/nul.cal"
printf '\357\273\2770.5,0.1\n-0.2,0.3\n0.1,0.1\n' > "$t/bom.csv"
{ printf '\357\273\277'; cat "$tmp/N.sp"; } > "$t/bom.sp"
row "byte-order mark in a .csv (accepted)" simulate "$circuit" --input "$t/bom.csv" --output "$tmp/out.npy"
row "byte-order mark in a netlist (accepted)" simulate "$t/bom.sp"
for r in 1 2 3; do yes 0.5 | head -n 160 | paste -s -d , -; done > "$t/batch.csv"
(export OPTINC_MAX_INPUT_BYTES=1000; row "OPTINC_MAX_INPUT_BYTES=1000 simulate --input (1000 bytes)" simulate "$circuit" --input "$t/batch.csv" --output "$tmp/out.npy")

# A small data set of 8 x 8 images (512 to train, 128 to test) and a run of
# 48 steps with a checkpoint every 5 steps.
bytes() {   # the bytes of the decimal numbers given
    printf "$(printf '\\%03o' "$@")"
}
idx() {     # FILE DIMS COUNT: the IDX header of unsigned bytes in DIMS dimensions, COUNT items
    n=$3
    bytes 0 0 8 "$2" $(( (n >> 24) & 255 )) $(( (n >> 16) & 255 )) $(( (n >> 8) & 255 )) \
        $(( n & 255 )) > "$1"
}
data="$tmp/data"
mkdir -p "$data"
for split in train:512 t10k:128; do
    name=${split%:*}
    n=${split#*:}
    idx "$data/$name-images-idx3-ubyte.gz" 3 "$n"
    bytes 0 0 0 8 0 0 0 8 >> "$data/$name-images-idx3-ubyte.gz"
    head -c $((n * 64)) /dev/zero | tr '\0' '\140' >> "$data/$name-images-idx3-ubyte.gz"
    idx "$data/$name-labels-idx1-ubyte.gz" 1 "$n"
    seq 0 $((n - 1)) | awk '{ printf "%d ", $1 % 4 }' | sed 's/ $//' > "$tmp/labels"
    bytes $(cat "$tmp/labels") >> "$data/$name-labels-idx1-ubyte.gz"
done
run="--data $data --hidden 16 --batch 8 --epochs 3 --seed 3 --quiet --checkpoint-every 5"

head_table "Checkpoints and stopped runs" "\`optinc train --resume\` on a damaged \`checkpoint.bin\` (a checksum over all of it, tests/test_train.c), and a run stopped by a signal: it writes a last checkpoint and says where (in process, and on mpirun when it is installed: tests/test_mpi_fault.c).  OPTINC_TEST_FAULT=pause:0:23 holds rank 0 after step 23 until the signal, so the step is the same on every machine."
ck="$tmp/ck"
"$OPTINC" train $run --out "$ck" > /dev/null
cp "$ck/checkpoint.bin" "$tmp/good.bin"
size=$(wc -c < "$tmp/good.bin")
flip() {   # the checkpoint with the byte at $1 changed
    cp "$tmp/good.bin" "$ck/checkpoint.bin"
    b=$(od -An -tu1 -j "$1" -N1 "$tmp/good.bin")
    printf "\\$(printf '%03o' $(( (b + 1) % 256 )))" | dd of="$ck/checkpoint.bin" bs=1 seek="$1" conv=notrunc 2>/dev/null
}
flip $((size / 2)); row "one byte changed in the middle" train $run --out "$ck" --resume
flip 0; row "its first byte changed" train $run --out "$ck" --resume
flip $((size - 1)); row "its last byte changed" train $run --out "$ck" --resume
head -c $((size - 7)) "$tmp/good.bin" > "$ck/checkpoint.bin"; row "cut short" train $run --out "$ck" --resume
{ cat "$tmp/good.bin"; printf x; } > "$ck/checkpoint.bin"; row "a byte appended" train $run --out "$ck" --resume
: > "$ck/checkpoint.bin"; row "empty" train $run --out "$ck" --resume
rm "$ck/checkpoint.bin"; mkfifo "$ck/checkpoint.bin"; row "a FIFO" train $run --out "$ck" --resume
rm -f "$ck/checkpoint.bin"

# The program of $@ started in the background with the pause fault, and
# SIGINT sent to it (mpirun, or optinc itself) once its checkpoint of step
# 20 is there; one table row of its first line of stderr that names optinc.
stopped() {
    label=$1
    out=$2
    shift 2
    rm -rf "$out"
    OPTINC_TEST_FAULT=pause:0:23 "$@" > /dev/null 2> "$tmp/stopped.err" &
    pid=$!
    i=0
    while [ ! -f "$out/checkpoint.bin" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 1
    kill -INT $pid
    wait $pid
    rc=$?
    msg=$(grep -m 1 '^optinc' "$tmp/stopped.err" | sed -e 's/|/\\|/g')
    printf '| %s | %s | `%s` |\n' "$label" "$rc" "$msg"
}
stopped "SIGINT during train" "$tmp/sig" "$OPTINC" train $run --out "$tmp/sig"
if command -v mpirun > /dev/null && "$OPTINC" train --backend mpi --help > /dev/null 2>&1 &&
   ! "$OPTINC" train --backend mpi --data "$data" 2>&1 | grep -q 'built without MPI'; then
    mpi="mpirun --oversubscribe"
    [ "$(id -u)" = 0 ] && mpi="$mpi --allow-run-as-root"
    printf "${train}  servers: 4\n" > "$tmp/servers_4.yaml"
    mpirow() {
        label=$1
        shift
        msg=$($mpi "$@" 2>&1 >/dev/null)
        rc=$?
        msg=$(printf '%s\n' "$msg" | grep -m 1 'error\|optinc' | sed -e 's/|/\\|/g')
        printf '| %s | %s | `%s` |\n' "$label" "$rc" "$msg"
    }
    mpirow "mpirun -np 3 optinc train SPEC (train.servers: 4) --backend mpi" -np 3 "$OPTINC" train "$tmp/servers_4.yaml" --data "$data" --backend mpi
    mpirow "mpirun -np 2 optinc train (no --backend mpi)" -np 2 "$OPTINC" train --data "$data"
    mpirow "mpirun -np 3 optinc train --servers 4 --backend mpi" -np 3 "$OPTINC" train --servers 4 --data "$data" --backend mpi
    stopped "SIGINT to mpirun -np 4 during train --backend mpi" "$tmp/sig" $mpi -np 4 \
        --mca odls_base_sigkill_timeout 6 "$OPTINC" train $run --out "$tmp/sig" --backend mpi
fi
rm -rf "$tmp"

# check.py - reads an optinc GDSII layout with KLayout's Python API and
# checks it against the circuit (optinc-gds(5)); run by tests/test_gds.c:
#
#   klayout -b -r tests/gds/check.py -rd gds=FILE -rd top=NAME \
#       -rd mzi=N -rd ps=N -rd att=N -rd term=N -rd columns=C -rd modes=M \
#       -rd column_pitch_nm=P -rd mode_pitch_nm=Q
#
# Checks: the database unit is 1 nm; the one top cell is named after the
# circuit; its references per element cell are the circuit's element counts
# (a cell the circuit does not use is absent); no two MZI references
# overlap (their boxes merged have the area of their sum: touching is
# allowed); and the top cell's bounding box is the floorplan, from (0,
# -Q/2) to (C*P, M*Q - Q/2).  Prints one "gds check: ok" line, or raises
# (klayout then exits with status 1).
import pya

layout = pya.Layout()
layout.read(gds)
assert abs(layout.dbu - 0.001) < 1e-12, "database unit %g um, not 0.001" % layout.dbu

tops = layout.top_cells()
assert len(tops) == 1, "top cells: %s" % [c.name for c in tops]
cell = tops[0]
assert cell.name == top, "top cell %s, expected %s" % (cell.name, top)

counts = {}
mzi_boxes = []
for inst in cell.each_inst():
    name = inst.cell.name
    counts[name] = counts.get(name, 0) + 1
    if name == "mzi":
        mzi_boxes.append(inst.bbox())
for name, want in (("mzi", mzi), ("ps", ps), ("att", att), ("term", term)):
    got = counts.pop(name, 0)
    assert got == int(want), "%d references of %s, expected %s" % (got, name, want)
    assert (layout.cell(name) is not None) == (int(want) > 0), "cell %s present or not" % name
assert not counts, "references of unknown cells: %s" % counts

region = pya.Region()
total = 0
for b in mzi_boxes:
    region.insert(b)
    total += b.area()
merged = region.merged().area()
assert merged == total, "MZI boxes overlap: merged area %d < sum %d" % (merged, total)

P, Q, C, M = int(column_pitch_nm), int(mode_pitch_nm), int(columns), int(modes)
want = pya.Box(0, -(Q // 2), C * P, M * Q - Q // 2)
assert cell.bbox() == want, "bounding box %s, expected %s" % (cell.bbox(), want)
print("gds check: ok: %s, %d MZIs, box %s" % (top, len(mzi_boxes), want))

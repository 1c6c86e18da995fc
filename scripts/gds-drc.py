# gds-drc.py - the DRC deck of optinc's GDSII layer map (optinc-gds(5),
# DESIGN RULES), a KLayout Python macro run in batch:
#
#   klayout -b -r scripts/gds-drc.py -rd gds=LAYOUT.gds[,LAYOUT.gds...]
#
# The rules, checked on the layout flattened from its one top cell:
#   WG_PATH     every shape on the waveguide layer 1/0 is a PATH of the
#               drawn waveguide width, 500 nm;
#   WG_SPACE    distinct waveguides are at least 250 nm apart (the
#               closest drawn pair, a coupler's arms, are 300 nm apart);
#   WG_OVERLAP  waveguides of distinct nets do not touch or overlap: a net
#               is a chain of paths joined end to end, so the merged
#               waveguide region has one shape per net (a crossing cell,
#               xing, joins two nets on purpose: its arms are left out, so
#               a net counts once per piece between crossings);
#   WG_END      every end of a waveguide path meets exactly one other end,
#               or a port label of the circuit (layer 11/0), or lies under
#               a terminator's absorber (49/0); no end is open, no three
#               ends meet;
#   HEATER      heaters (47/0) lie on a waveguide and are at least 1 um
#               apart;
#   PAD         every pad (45/0) has one heater wire (46/0) reaching it
#               (only when the layout has pads).
# Prints one "drc: RULE at (X, Y) um: WHAT" line per violation (the first
# 20 of each rule), then per layout "drc: FILE: N violations" with the
# counts per rule; exits with status 1 when a layout has any (the macro
# raises).  Several layouts in one run save KLayout's start-up.
import pya

WG, PORT, HEATER, ABSORBER, PAD, WIRE = (1, 0), (11, 0), (47, 0), (49, 0), (45, 0), (46, 0)
WG_WIDTH = 500
WG_SPACE = 250
HEATER_SPACE = 1000
SHOWN = 20

def check(path):
    layout = pya.Layout()
    layout.read(path)
    tops = layout.top_cells()
    if len(tops) != 1:
        raise RuntimeError("drc: %d top cells; the deck checks a layout with one" % len(tops))
    top = tops[0]
    dbu = layout.dbu
    counts = {}


    def violation(rule, x, y, what):
        counts[rule] = counts.get(rule, 0) + 1
        if counts[rule] <= SHOWN:
            print("drc: %s at (%.3f, %.3f) um: %s" % (rule, x * dbu, y * dbu, what))


    def layer(spec):
        return layout.find_layer(pya.LayerInfo(spec[0], spec[1]))


    def region(spec):
        i = layer(spec)
        return pya.Region(top.begin_shapes_rec(i)) if i is not None else pya.Region()


    # ---- the waveguide paths, in top coordinates
    wg = layer(WG)
    paths = []
    if wg is not None:
        it = top.begin_shapes_rec(wg)
        while not it.at_end():
            s = it.shape()
            if s.is_path():
                p = s.path.transformed(it.trans())
                pts = list(p.each_point())
                if p.width != WG_WIDTH:
                    violation("WG_PATH", pts[0].x, pts[0].y, "a path %d nm wide, not %d"
                              % (p.width, WG_WIDTH))
                paths.append((pts[0], pts[-1], p, it.cell().name == "xing"))
            else:
                c = s.bbox.transformed(it.trans()).center()
                violation("WG_PATH", c.x, c.y, "a %s on the waveguide layer, not a path"
                          % ("box" if s.is_box() else "polygon" if s.is_polygon() else "shape"))
            it.next()

    # ---- ends: which meet which, and the nets they join (union-find)
    parent = list(range(len(paths)))


    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i


    ends = {}
    for i, (a, b, _, _) in enumerate(paths):
        for q in (a, b):
            ends.setdefault((q.x, q.y), []).append(i)
    ports = set()
    pl = layer(PORT)
    if pl is not None:
        it = top.begin_shapes_rec(pl)
        while not it.at_end():
            if it.shape().is_text():
                t = it.shape().text.transformed(it.trans())
                ports.add((t.x, t.y))
            it.next()
    absorbers = region(ABSORBER)
    lonely = []
    for (x, y), who in ends.items():
        if len(who) == 2:
            if paths[who[0]][3] == paths[who[1]][3]:   # crossings join nets apart
                ra, rb = find(who[0]), find(who[1])
                parent[ra] = rb
        elif len(who) > 2:
            violation("WG_END", x, y, "%d waveguide ends meet at one point" % len(who))
        elif (x, y) not in ports:
            lonely.append(pya.Box(x - 1, y - 1, x + 1, y + 1))
    if lonely:
        open_ends = pya.Region(lonely).not_interacting(absorbers)
        for b in open_ends.each():
            c = b.bbox().center()
            violation("WG_END", c.x, c.y, "an open waveguide end (no other end, port or "
                      "terminator meets it)")
    plain = [i for i in range(len(paths)) if not paths[i][3]]
    nets = len(set(find(i) for i in plain))

    # ---- spacing and overlap of the waveguides (a crossing cell's arms
    # join two nets on purpose: the overlap count leaves them out)
    waveguides, routed = pya.Region(), pya.Region()
    for _, _, p, xing in paths:
        waveguides.insert(p)
        if not xing:
            routed.insert(p)
    merged = waveguides.merged()
    shapes = routed.merged().count()
    if shapes != nets:
        c = merged.bbox().center()
        violation("WG_OVERLAP", c.x, c.y, "%d merged waveguide shapes for %d nets: %d nets touch "
                  "or overlap another" % (shapes, nets, nets - shapes))
    for ep in merged.isolated_check(WG_SPACE).each():
        c = ep.bbox().center()
        violation("WG_SPACE", c.x, c.y, "waveguides %.3f um apart, under %.3f"
                  % (ep.distance() * dbu, WG_SPACE * dbu))

    # ---- heaters and pads
    heaters = region(HEATER).merged()
    for h in heaters.not_interacting(waveguides).each():
        c = h.bbox().center()
        violation("HEATER", c.x, c.y, "a heater on no waveguide")
    for ep in heaters.isolated_check(HEATER_SPACE).each():
        c = ep.bbox().center()
        violation("HEATER", c.x, c.y, "heaters %.3f um apart, under %.3f"
                  % (ep.distance() * dbu, HEATER_SPACE * dbu))
    pads, wires = region(PAD).merged(), region(WIRE).merged()
    for p in pads.not_interacting(wires).each():
        c = p.bbox().center()
        violation("PAD", c.x, c.y, "a pad no heater wire reaches")

    total = sum(counts.values())
    print("drc: %s: %d violations%s; %d waveguide paths, %d pieces between crossings, "
          "%d crossings, %d ports" % (path, total, "".join(" %s=%d" % kv for kv in
                                                          sorted(counts.items())),
                                      len(plain), nets, (len(paths) - len(plain)) // 2,
                                      len(ports)))
    return total


bad = [p for p in gds.split(",") if check(p)]
if bad:
    raise RuntimeError("drc: violations in %s" % ", ".join(bad))

# move-waveguide.py - a seeded layout error for the DRC deck's test
# (tests/test_gds.c): moves the index-th waveguide PATH of the top cell by
# dy_nm nanometres across its direction and writes the layout to out.
#
#   klayout -b -r tests/gds/move-waveguide.py -rd gds=IN -rd out=OUT \
#       -rd index=K -rd dy_nm=D
#
# Prints "moved: (x0, y0)-(x1, y1) nm by D nm".
import pya

layout = pya.Layout()
layout.read(gds)
top = layout.top_cells()[0]
wg = layout.find_layer(pya.LayerInfo(1, 0))
routes = [s for s in top.shapes(wg).each() if s.is_path()]
s = routes[int(index)]
p = s.path
a, b = list(p.each_point())[0], list(p.each_point())[-1]
s.path = p.moved(0, int(dy_nm))
layout.write(out)
print("moved: (%d, %d)-(%d, %d) nm by %s nm" % (a.x, a.y, b.x, b.y, dy_nm))

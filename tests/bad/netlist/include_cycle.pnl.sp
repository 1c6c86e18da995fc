* PNL 1.0 photonic netlist (bad-input fixture)
*! circuit = seed=1 wavelength_um=1.55
*! layer.L1 = rows=2 cols=2 gain=1 mesh=clements attenuators=none activation=none
.include "include_cycle_a.inc"
.subckt t in0 in1 out0 out1
X_L1 in0 in1 out0 out1 layer_L1
.ends t
t in0 in1 out0 out1 t
.end

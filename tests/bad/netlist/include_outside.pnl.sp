* PNL 1.0 photonic netlist (bad-input fixture)
*! circuit = seed=1 wavelength_um=1.55
*! layer.L1 = rows=2 cols=2 gain=1 mesh=clements attenuators=none activation=none
.include "../limits/nested_cells.pnl.sp"
.subckt layer_L1 in0 in1 out0 out1
MZ_L1_U_c0_r0 in0 in1 a0 a1 mzi theta_rad=1.5 phi_rad=0.25
PS_L1_U_c1_r0 a0 out0 ps phase_rad=0.5
PS_L1_U_c1_r1 a1 out1 ps phase_rad=0
.ends layer_L1
.subckt t in0 in1 out0 out1
X_L1 in0 in1 out0 out1 layer_L1
.ends t
t in0 in1 out0 out1 t
.end

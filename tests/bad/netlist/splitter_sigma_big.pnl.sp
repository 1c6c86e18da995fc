* PNL 1.0 photonic netlist (bad-input fixture)
* a coupler splits 0.5 + sigma N within [0, 1]: splitter_error_sigma stops at 0.5, as in a spec
*! circuit = seed=1 wavelength_um=1.55
*! layer.L1 = rows=2 cols=2 gain=1 mesh=clements attenuators=none activation=none
*! layer.L1.mzi = insertion_loss_dB=0 phase_error_sigma_rad=0 splitter_error_sigma=0.75
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

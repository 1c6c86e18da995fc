* PNL 1.0 photonic netlist, see optinc-netlist(5)
*! generator = optinc 0.1.0
*! spec = path="seg.yaml" sha256="6a43936a47c540cebd1e4f3a0e1dcdbd082fd6773e0aeded13c27fad1a194b2e"
*! mzi_convention = M = B.diag(exp(i.theta_rad),1).B.diag(exp(i.phi_rad),1), B = [[1,i],[i,1]]/sqrt(2), (in0,in1) -> (out0,out1) = modes (m,m+1)
*! units = phase:rad attenuation:dB loss:dB length:um wavelength:um power:dBm
*! circuit = seed=1 wavelength_um=1.55
*! layer.L1 = rows=5 cols=5 gain=2.9140574154763228 mesh=clements attenuators=output activation=relu_eo approximation_error=0.14540961629287444 attenuators_capped=0
*! layer.L1.segments = rows=2 cols=2 pass_through=1
*! layer.L1.input_scale = in0=1 in1=2 in2=0.5 in3=1
*! layer.L1.mzi = insertion_loss_dB=0 phase_error_sigma_rad=0 splitter_error_sigma=0
*! layer.L1.phase_shifter = bits=0 range_lo_rad=0 range_hi_rad=6.2831853071795862 noise_sigma_rad=0 thermal_crosstalk=0
*! layer.L1.attenuator = insertion_loss_dB=0 max_attenuation_dB=60 bits=0
*! layer.L1.waveguide = loss_dB_cm=0
*! layer.L1.crossing = insertion_loss_dB=0 crosstalk_dB=0
*! layer.L1.detector = responsivity_A_W=1

.subckt layer_L1 in0 in1 in2 in3 in4 out0 out1 out2 out3 out4
SP_L1_P_c0_r0 in0 L1_P_m0 L1_P_m4 split tap=0.5
SP_L1_P_c0_r1 in1 L1_P_m1 L1_P_m5 split tap=0.5
SP_L1_P_c0_r2 in2 L1_P_m2 L1_P_m6 split tap=0.5
SP_L1_P_c0_r3 in3 L1_P_m3 L1_P_m7 split tap=0.5
AT_L1_T_c0_r0 L1_P_m0 L1_T_m0 att att_dB=0 t_target=1
AT_L1_T_c0_r1 L1_P_m1 L1_T_m1 att att_dB=0 t_target=1
AT_L1_T_c0_r2 L1_P_m2 L1_T_m2 att att_dB=0 t_target=1
AT_L1_T_c0_r3 L1_P_m3 L1_T_m3 att att_dB=0 t_target=1
AT_L1_T_c0_r4 L1_P_m4 L1_T_m4 att att_dB=0 t_target=1
AT_L1_T_c0_r5 L1_P_m5 L1_T_m5 att att_dB=0 t_target=1
AT_L1_T_c0_r6 L1_P_m6 L1_T_m6 att att_dB=0 t_target=1
AT_L1_T_c0_r7 L1_P_m7 L1_T_m7 att att_dB=0 t_target=1
MZ_L1_Q_c0_r0 L1_T_m0 L1_T_m1 L1_Q_c0_m0 L1_Q_c0_m1 mzi theta_rad=1.2432567727976929 phi_rad=0
MZ_L1_Q_c0_r2 L1_T_m2 L1_T_m3 L1_Q_c0_m2 L1_Q_c0_m3 mzi theta_rad=0.78833721501710263 phi_rad=3.1415926535897931
MZ_L1_Q_c0_r4 L1_T_m4 L1_T_m5 L1_Q_c0_m4 L1_Q_c0_m5 mzi theta_rad=0.019630557409390015 phi_rad=0
MZ_L1_Q_c0_r6 L1_T_m6 L1_T_m7 L1_Q_c0_m6 L1_Q_c0_m7 mzi theta_rad=2.7715604935298224 phi_rad=3.1415926535897931
PS_L1_Q_c1_r0 L1_Q_c0_m0 L1_Q_c1_m0 ps phase_rad=4.0907605939858431
PS_L1_Q_c1_r1 L1_Q_c0_m1 L1_Q_c1_m1 ps phase_rad=4.0907605939858431
PS_L1_Q_c1_r2 L1_Q_c0_m2 L1_Q_c1_m2 ps phase_rad=1.1766277192863452
PS_L1_Q_c1_r3 L1_Q_c0_m3 L1_Q_c1_m3 ps phase_rad=1.1766277192863452
PS_L1_Q_c1_r4 L1_Q_c0_m4 L1_Q_c1_m4 ps phase_rad=4.7025737016799951
PS_L1_Q_c1_r5 L1_Q_c0_m5 L1_Q_c1_m5 ps phase_rad=4.7025737016799951
PS_L1_Q_c1_r6 L1_Q_c0_m6 L1_Q_c1_m6 ps phase_rad=3.3266087336197785
PS_L1_Q_c1_r7 L1_Q_c0_m7 L1_Q_c1_m7 ps phase_rad=3.3266087336197785
AT_L1_r0 L1_Q_c1_m0 L1_S_m0 att att_dB=8.6988156468047872 t_target=0.36733238421339737
AT_L1_r1 L1_Q_c1_m1 L1_S_m1 att att_dB=8.9623039494592227 t_target=0.35635659659450247
AT_L1_r2 L1_Q_c1_m2 L1_S_m2 att att_dB=0 t_target=1
AT_L1_r3 L1_Q_c1_m3 L1_S_m3 att att_dB=1.5912717471937274 t_target=0.83260001167448305
AT_L1_r4 L1_Q_c1_m4 L1_S_m4 att att_dB=14.526332594457788 t_target=0.18779471684985299
AT_L1_r5 L1_Q_c1_m5 L1_S_m5 att att_dB=7.7263024943191549 t_target=0.41085149846957758
AT_L1_r6 L1_Q_c1_m6 L1_S_m6 att att_dB=0.23705546770656102 t_target=0.97307704274623652
AT_L1_r7 L1_Q_c1_m7 L1_S_m7 att att_dB=4.4176350889855414 t_target=0.60133744160763225
CB_L1_C_c0_r0 L1_S_m0 L1_S_m2 out0 comb tap=0.5
CB_L1_C_c0_r1 L1_S_m1 L1_S_m3 out1 comb tap=0.5
CB_L1_C_c0_r2 L1_S_m4 L1_S_m6 out2 comb tap=0.5
CB_L1_C_c0_r3 L1_S_m5 L1_S_m7 out3 comb tap=0.5
TH_L1_r4 in4 out4 thru
.ends layer_L1

.subckt seg in0 in1 in2 in3 in4 out0 out1 out2 out3 out4
X_L1 in0 in1 in2 in3 in4 out0 out1 out2 out3 out4 layer_L1
.ends seg

seg in0 in1 in2 in3 in4 out0 out1 out2 out3 out4 seg
.end

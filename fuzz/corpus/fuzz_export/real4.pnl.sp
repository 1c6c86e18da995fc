* PNL 1.0 photonic netlist, see optinc-netlist(5)
*! generator = optinc 0.1.0
*! spec = path="specs/real4.yaml" sha256="2c55e8acc5502c4c5f6bcdddcc7139ada7fe7e07c42c3869c8382ea04f91f7fe"
*! mzi_convention = M = B.diag(exp(i.theta_rad),1).B.diag(exp(i.phi_rad),1), B = [[1,i],[i,1]]/sqrt(2), (in0,in1) -> (out0,out1) = modes (m,m+1)
*! units = phase:rad attenuation:dB loss:dB length:um wavelength:um power:dBm
*! circuit = seed=42 wavelength_um=1.55
*! layer.L1 = rows=4 cols=4 gain=0.64177609627401766 mesh=clements attenuators=middle activation=none approximation_error=0 attenuators_capped=0
*! layer.L1.mzi = insertion_loss_dB=0 phase_error_sigma_rad=0 splitter_error_sigma=0
*! layer.L1.phase_shifter = bits=0 range_lo_rad=0 range_hi_rad=6.2831853071795862 noise_sigma_rad=0 thermal_crosstalk=0
*! layer.L1.attenuator = insertion_loss_dB=0 max_attenuation_dB=60 bits=0
*! layer.L1.waveguide = loss_dB_cm=0
*! layer.L1.crossing = insertion_loss_dB=0 crosstalk_dB=0
*! layer.L1.detector = responsivity_A_W=1

.subckt layer_L1 in0 in1 in2 in3 out0 out1 out2 out3
MZ_L1_V_c0_r0 in0 in1 L1_V_c0_m0 L1_V_c0_m1 mzi theta_rad=0.82052898617637959 phi_rad=0
MZ_L1_V_c0_r2 in2 in3 L1_V_c0_m2 L1_V_c0_m3 mzi theta_rad=1.0378695084666338 phi_rad=3.1415926535897931
MZ_L1_V_c1_r1 L1_V_c0_m1 L1_V_c0_m2 L1_V_c1_m1 L1_V_c1_m2 mzi theta_rad=1.146434906913846 phi_rad=3.25026291473492
MZ_L1_V_c2_r0 L1_V_c0_m0 L1_V_c1_m1 L1_V_c2_m0 L1_V_c2_m1 mzi theta_rad=0.83924636641238548 phi_rad=2.2526840413969467
MZ_L1_V_c2_r2 L1_V_c1_m2 L1_V_c0_m3 L1_V_c2_m2 L1_V_c2_m3 mzi theta_rad=0.70357949197671266 phi_rad=4.1391715269277665
MZ_L1_V_c3_r1 L1_V_c2_m1 L1_V_c2_m2 L1_V_c3_m1 L1_V_c3_m2 mzi theta_rad=1.4918512355162563 phi_rad=4.0713380897099301 phi_target_rad=-2.2118472174696562
PS_L1_V_c4_r0 L1_V_c2_m0 L1_V_c4_m0 ps phase_rad=0.059020935898463911
PS_L1_V_c4_r1 L1_V_c3_m1 L1_V_c4_m1 ps phase_rad=6.2373315159946818
PS_L1_V_c4_r2 L1_V_c3_m2 L1_V_c4_m2 ps phase_rad=6.2373315159946818
PS_L1_V_c4_r3 L1_V_c2_m3 L1_V_c4_m3 ps phase_rad=5.4124608069579132 phase_target_rad=-0.87072450022167303
AT_L1_r0 L1_V_c4_m0 L1_S_m0 att att_dB=0
AT_L1_r1 L1_V_c4_m1 L1_S_m1 att att_dB=4.2522147570650706
AT_L1_r2 L1_V_c4_m2 L1_S_m2 att att_dB=6.4011372150864485
AT_L1_r3 L1_V_c4_m3 L1_S_m3 att att_dB=24.180428604668407 t_target=0.06179859049110948
MZ_L1_U_c0_r0 L1_S_m0 L1_S_m1 L1_U_c0_m0 L1_U_c0_m1 mzi theta_rad=1.5452372858320431 phi_rad=0
MZ_L1_U_c0_r2 L1_S_m2 L1_S_m3 L1_U_c0_m2 L1_U_c0_m3 mzi theta_rad=1.7821140486646603 phi_rad=3.1415926535897931
MZ_L1_U_c1_r1 L1_U_c0_m1 L1_U_c0_m2 L1_U_c1_m1 L1_U_c1_m2 mzi theta_rad=0.59807265861868286 phi_rad=3.2600310350061017
MZ_L1_U_c2_r0 L1_U_c0_m0 L1_U_c1_m1 L1_U_c2_m0 L1_U_c2_m1 mzi theta_rad=1.5864341869819647 phi_rad=1.9882710375205463
MZ_L1_U_c2_r2 L1_U_c1_m2 L1_U_c0_m3 L1_U_c2_m2 L1_U_c2_m3 mzi theta_rad=1.6068690185756938 phi_rad=1.2717599974855549 phi_target_rad=7.5549453046651411
MZ_L1_U_c3_r1 L1_U_c2_m1 L1_U_c2_m2 L1_U_c3_m1 L1_U_c3_m2 mzi theta_rad=3.0735569131558726 phi_rad=1.2819774132824175 phi_target_rad=7.5651627204620038
PS_L1_U_c4_r0 L1_U_c2_m0 out0 ps phase_rad=2.7290785332520358
PS_L1_U_c4_r1 L1_U_c3_m1 out1 ps phase_rad=1.481118990186578
PS_L1_U_c4_r2 L1_U_c3_m2 out2 ps phase_rad=4.6227116437763698
PS_L1_U_c4_r3 L1_U_c2_m3 out3 ps phase_rad=1.447101119969616
.ends layer_L1

.subckt real4 in0 in1 in2 in3 out0 out1 out2 out3
X_L1 in0 in1 in2 in3 out0 out1 out2 out3 layer_L1
.ends real4

real4 in0 in1 in2 in3 out0 out1 out2 out3 real4
.end

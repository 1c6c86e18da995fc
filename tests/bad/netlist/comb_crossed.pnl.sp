* PNL 1.0 photonic netlist (bad-input fixture: two comb cards whose in1 nets are crossed)
*! generator = optinc 0.1.0
*! mzi_convention = M = B.diag(exp(i.theta_rad),1).B.diag(exp(i.phi_rad),1), B = [[1,i],[i,1]]/sqrt(2), (in0,in1) -> (out0,out1) = modes (m,m+1)
*! units = phase:rad attenuation:dB loss:dB length:um wavelength:um power:dBm
*! circuit = seed=1 wavelength_um=1.55
*! layer.L1 = rows=4 cols=8 gain=1.7999999999999994 mesh=clements attenuators=output activation=none approximation_error=3.3923481307990907e-16 attenuators_capped=0
*! layer.L1.segments = rows=2 cols=2
*! layer.L1.mzi = insertion_loss_dB=0 phase_error_sigma_rad=0 splitter_error_sigma=0
*! layer.L1.phase_shifter = bits=0 range_lo_rad=0 range_hi_rad=6.2831853071795862 noise_sigma_rad=0 thermal_crosstalk=0
*! layer.L1.attenuator = insertion_loss_dB=0 max_attenuation_dB=60 bits=0
*! layer.L1.waveguide = loss_dB_cm=0
*! layer.L1.crossing = insertion_loss_dB=0 crosstalk_dB=0
*! layer.L1.detector = responsivity_A_W=1

.subckt layer_L1 in0 in1 in2 in3 in4 in5 in6 in7 out0 out1 out2 out3
SP_L1_P_c0_r0 in0 L1_P_m0 L1_P_m8 split tap=0.5
SP_L1_P_c0_r1 in1 L1_P_m1 L1_P_m9 split tap=0.5
SP_L1_P_c0_r2 in2 L1_P_m2 L1_P_m10 split tap=0.5
SP_L1_P_c0_r3 in3 L1_P_m3 L1_P_m11 split tap=0.5
SP_L1_P_c0_r4 in4 L1_P_m4 L1_P_m12 split tap=0.5
SP_L1_P_c0_r5 in5 L1_P_m5 L1_P_m13 split tap=0.5
SP_L1_P_c0_r6 in6 L1_P_m6 L1_P_m14 split tap=0.5
SP_L1_P_c0_r7 in7 L1_P_m7 L1_P_m15 split tap=0.5
AT_L1_T_c0_r0 L1_P_m0 L1_T_m0 att att_dB=0
AT_L1_T_c0_r1 L1_P_m1 L1_T_m1 att att_dB=0
AT_L1_T_c0_r2 L1_P_m2 L1_T_m2 att att_dB=0
AT_L1_T_c0_r3 L1_P_m3 L1_T_m3 att att_dB=0
AT_L1_T_c0_r4 L1_P_m4 L1_T_m4 att att_dB=0
AT_L1_T_c0_r5 L1_P_m5 L1_T_m5 att att_dB=0
AT_L1_T_c0_r6 L1_P_m6 L1_T_m6 att att_dB=0
AT_L1_T_c0_r7 L1_P_m7 L1_T_m7 att att_dB=0
AT_L1_T_c0_r8 L1_P_m8 L1_T_m8 att att_dB=0
AT_L1_T_c0_r9 L1_P_m9 L1_T_m9 att att_dB=0
AT_L1_T_c0_r10 L1_P_m10 L1_T_m10 att att_dB=0
AT_L1_T_c0_r11 L1_P_m11 L1_T_m11 att att_dB=0
AT_L1_T_c0_r12 L1_P_m12 L1_T_m12 att att_dB=0
AT_L1_T_c0_r13 L1_P_m13 L1_T_m13 att att_dB=0
AT_L1_T_c0_r14 L1_P_m14 L1_T_m14 att att_dB=0
AT_L1_T_c0_r15 L1_P_m15 L1_T_m15 att att_dB=0
MZ_L1_Q_c0_r0 L1_T_m0 L1_T_m1 L1_Q_c0_m0 L1_Q_c0_m1 mzi theta_rad=3.1415926535897931 phi_rad=3.1415926535897931
MZ_L1_Q_c0_r2 L1_T_m2 L1_T_m3 L1_Q_c0_m2 L1_Q_c0_m3 mzi theta_rad=1.5707963267948972 phi_rad=0
MZ_L1_Q_c0_r4 L1_T_m4 L1_T_m5 L1_Q_c0_m4 L1_Q_c0_m5 mzi theta_rad=3.1415926535897931 phi_rad=3.1415926535897931
MZ_L1_Q_c0_r6 L1_T_m6 L1_T_m7 L1_Q_c0_m6 L1_Q_c0_m7 mzi theta_rad=1.5707963267948957 phi_rad=3.1415926535897931
MZ_L1_Q_c0_r8 L1_T_m8 L1_T_m9 L1_Q_c0_m8 L1_Q_c0_m9 mzi theta_rad=3.1415926535897931 phi_rad=3.1415926535897931
MZ_L1_Q_c0_r10 L1_T_m10 L1_T_m11 L1_Q_c0_m10 L1_Q_c0_m11 mzi theta_rad=1.5707963267948959 phi_rad=0
MZ_L1_Q_c0_r12 L1_T_m12 L1_T_m13 L1_Q_c0_m12 L1_Q_c0_m13 mzi theta_rad=3.1415926535897931 phi_rad=3.1415926535897931
MZ_L1_Q_c0_r14 L1_T_m14 L1_T_m15 L1_Q_c0_m14 L1_Q_c0_m15 mzi theta_rad=1.570796326794897 phi_rad=3.1415926535897931
MZ_L1_Q_c1_r1 L1_Q_c0_m1 L1_Q_c0_m2 L1_Q_c1_m1 L1_Q_c1_m2 mzi theta_rad=1.4483584727591154 phi_rad=2.3561944901923453
MZ_L1_Q_c1_r5 L1_Q_c0_m5 L1_Q_c0_m6 L1_Q_c1_m5 L1_Q_c1_m6 mzi theta_rad=0.36458297908214643 phi_rad=2.3561944901923444
MZ_L1_Q_c1_r9 L1_Q_c0_m9 L1_Q_c0_m10 L1_Q_c1_m9 L1_Q_c1_m10 mzi theta_rad=1.5642151590360287 phi_rad=5.4977871437821371 phi_target_rad=-0.78539816339744872
MZ_L1_Q_c1_r13 L1_Q_c0_m13 L1_Q_c0_m14 L1_Q_c1_m13 L1_Q_c1_m14 mzi theta_rad=0.76587961067787536 phi_rad=2.3561944901923448
MZ_L1_Q_c2_r0 L1_Q_c0_m0 L1_Q_c1_m1 L1_Q_c2_m0 L1_Q_c2_m1 mzi theta_rad=0.67241253365305509 phi_rad=4.6511700533667995 phi_target_rad=-1.6320152538127868
MZ_L1_Q_c2_r2 L1_Q_c1_m2 L1_Q_c0_m3 L1_Q_c2_m2 L1_Q_c2_m3 mzi theta_rad=0.67241253365305553 phi_rad=0.84661709041533939 phi_target_rad=7.1298023975949256
MZ_L1_Q_c2_r4 L1_Q_c0_m4 L1_Q_c1_m5 L1_Q_c2_m4 L1_Q_c2_m5 mzi theta_rad=1.5368093270009844 phi_rad=0.96768965293852105
MZ_L1_Q_c2_r6 L1_Q_c1_m6 L1_Q_c0_m7 L1_Q_c2_m6 L1_Q_c2_m7 mzi theta_rad=1.5368093270009853 phi_rad=4.530097490843616
MZ_L1_Q_c2_r8 L1_Q_c0_m8 L1_Q_c1_m9 L1_Q_c2_m8 L1_Q_c2_m9 mzi theta_rad=0.16189368189552944 phi_rad=4.7090983965052553 phi_target_rad=-1.5740869106743309
MZ_L1_Q_c2_r10 L1_Q_c1_m10 L1_Q_c0_m11 L1_Q_c2_m10 L1_Q_c2_m11 mzi theta_rad=0.16189368189552944 phi_rad=3.9302814008666753
MZ_L1_Q_c2_r12 L1_Q_c0_m12 L1_Q_c1_m13 L1_Q_c2_m12 L1_Q_c2_m13 mzi theta_rad=1.4078072286566996 phi_rad=4.3099306223261795
MZ_L1_Q_c2_r14 L1_Q_c1_m14 L1_Q_c0_m15 L1_Q_c2_m14 L1_Q_c2_m15 mzi theta_rad=1.4078072286567 phi_rad=1.1878565214559584 phi_target_rad=7.4710418286355447
MZ_L1_Q_c3_r1 L1_Q_c2_m1 L1_Q_c2_m2 L1_Q_c3_m1 L1_Q_c3_m2 mzi theta_rad=1.4483584727591157 phi_rad=3.9882097440051321
MZ_L1_Q_c3_r5 L1_Q_c2_m5 L1_Q_c2_m6 L1_Q_c3_m5 L1_Q_c3_m6 mzi theta_rad=0.36458297908214554 phi_rad=1.3885048372538238
MZ_L1_Q_c3_r9 L1_Q_c2_m9 L1_Q_c2_m10 L1_Q_c3_m9 L1_Q_c3_m10 mzi theta_rad=1.5642151590360285 phi_rad=0.78868874727688265 phi_target_rad=7.0718740544564689
MZ_L1_Q_c3_r13 L1_Q_c2_m13 L1_Q_c2_m14 L1_Q_c3_m13 L1_Q_c3_m14 mzi theta_rad=0.76587961067787536 phi_rad=4.3294491750457524
PS_L1_Q_c4_r0 L1_Q_c2_m0 L1_Q_c4_m0 ps phase_rad=6.0081979673709487
PS_L1_Q_c4_r1 L1_Q_c3_m1 L1_Q_c4_m1 ps phase_rad=6.0081979673709487
PS_L1_Q_c4_r2 L1_Q_c3_m2 L1_Q_c4_m2 ps phase_rad=6.0081979673709487
PS_L1_Q_c4_r3 L1_Q_c2_m3 L1_Q_c4_m3 ps phase_rad=2.0199882233658166
PS_L1_Q_c4_r4 L1_Q_c2_m4 L1_Q_c4_m4 ps phase_rad=2.9762946639456764
PS_L1_Q_c4_r5 L1_Q_c3_m5 L1_Q_c4_m5 ps phase_rad=6.1178873175354695
PS_L1_Q_c4_r6 L1_Q_c3_m6 L1_Q_c4_m6 ps phase_rad=6.1178873175354695
PS_L1_Q_c4_r7 L1_Q_c2_m7 L1_Q_c4_m7 ps phase_rad=1.5877898266918526
PS_L1_Q_c4_r8 L1_Q_c2_m8 L1_Q_c4_m8 ps phase_rad=3.0639363965214628
PS_L1_Q_c4_r9 L1_Q_c3_m9 L1_Q_c4_m9 ps phase_rad=3.0639363965214628
PS_L1_Q_c4_r10 L1_Q_c3_m10 L1_Q_c4_m10 ps phase_rad=6.2055290501112559
PS_L1_Q_c4_r11 L1_Q_c2_m11 L1_Q_c4_m11 ps phase_rad=5.4168403028343732
PS_L1_Q_c4_r12 L1_Q_c2_m12 L1_Q_c4_m12 ps phase_rad=5.9817400509097469 phase_target_rad=-0.30144525626983931
PS_L1_Q_c4_r13 L1_Q_c3_m13 L1_Q_c4_m13 ps phase_rad=2.8401473973199534
PS_L1_Q_c4_r14 L1_Q_c3_m14 L1_Q_c4_m14 ps phase_rad=2.8401473973199534
PS_L1_Q_c4_r15 L1_Q_c2_m15 L1_Q_c4_m15 ps phase_rad=1.6522908758639945
AT_L1_r0 L1_Q_c4_m0 L1_S_m0 att att_dB=0
AT_L1_r1 L1_Q_c4_m1 L1_S_m1 att att_dB=5.1054501020661185
TM_L1_r2 L1_Q_c4_m2 term
TM_L1_r3 L1_Q_c4_m3 term
AT_L1_r2 L1_Q_c4_m4 L1_S_m2 att att_dB=9.5424250943932414
AT_L1_r3 L1_Q_c4_m5 L1_S_m3 att att_dB=2.1828893885013541
TM_L1_r6 L1_Q_c4_m6 term
TM_L1_r7 L1_Q_c4_m7 term
AT_L1_r4 L1_Q_c4_m8 L1_S_m4 att att_dB=1.0230504489476251
AT_L1_r5 L1_Q_c4_m9 L1_S_m5 att att_dB=13.064250275506868 t_target=0.22222222222222235
TM_L1_r10 L1_Q_c4_m10 term
TM_L1_r11 L1_Q_c4_m11 term
AT_L1_r6 L1_Q_c4_m12 L1_S_m6 att att_dB=3.521825181113619
AT_L1_r7 L1_Q_c4_m13 L1_S_m7 att att_dB=7.0436503622272451
TM_L1_r14 L1_Q_c4_m14 term
TM_L1_r15 L1_Q_c4_m15 term
CB_L1_C_c0_r0 L1_S_m0 L1_S_m3 out0 comb tap=0.5
CB_L1_C_c0_r1 L1_S_m1 L1_S_m2 out1 comb tap=0.5
CB_L1_C_c0_r2 L1_S_m4 L1_S_m6 out2 comb tap=0.5
CB_L1_C_c0_r3 L1_S_m5 L1_S_m7 out3 comb tap=0.5
.ends layer_L1

.subckt seg in0 in1 in2 in3 in4 in5 in6 in7 out0 out1 out2 out3
X_L1 in0 in1 in2 in3 in4 in5 in6 in7 out0 out1 out2 out3 layer_L1
.ends seg

seg in0 in1 in2 in3 in4 in5 in6 in7 out0 out1 out2 out3 seg
.end

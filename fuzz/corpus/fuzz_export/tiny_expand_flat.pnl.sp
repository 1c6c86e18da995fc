* PNL 1.0 photonic netlist, see optinc-netlist(5)
*! generator = optinc 0.1.0
*! spec = path="/tmp/tiny.yaml" sha256="1b758bd887a47ecdd2a22507cfc9c41415736d4ce3dc2e1fed131a810a78ca61"
*! mzi_convention = M = B.diag(exp(i.theta_rad),1).B.diag(exp(i.phi_rad),1), B = [[1,i],[i,1]]/sqrt(2), (in0,in1) -> (out0,out1) = modes (m,m+1)
*! units = phase:rad attenuation:dB loss:dB length:um wavelength:um power:dBm
*! circuit = seed=1 wavelength_um=1.55
*! layer.L1 = rows=2 cols=3 gain=1.9167888508757305 mesh=clements attenuators=middle activation=relu_eo approximation_error=0 attenuators_capped=0
*! layer.L1.mzi = insertion_loss_dB=0 phase_error_sigma_rad=0 splitter_error_sigma=0
*! layer.L1.phase_shifter = bits=4 range_lo_rad=0 range_hi_rad=6.2831853071795862 noise_sigma_rad=0 thermal_crosstalk=0
*! layer.L1.attenuator = insertion_loss_dB=0 max_attenuation_dB=60 bits=6
*! layer.L1.waveguide = loss_dB_cm=0
*! layer.L1.crossing = insertion_loss_dB=0 crosstalk_dB=0
*! layer.L1.detector = responsivity_A_W=1

.subckt tiny in0 in1 in2 out0 out1
X_L1__MZ_L1_V_c0_r0__PS_ext in0 X_L1__MZ_L1_V_c0_r0__ext ps phase_rad=3.1415926535897931 code=8 bits=4
X_L1__MZ_L1_V_c0_r0__DC_a X_L1__MZ_L1_V_c0_r0__ext in1 X_L1__MZ_L1_V_c0_r0__up X_L1__MZ_L1_V_c0_r0__lo dc coupling=0.5
X_L1__MZ_L1_V_c0_r0__PS_int X_L1__MZ_L1_V_c0_r0__up X_L1__MZ_L1_V_c0_r0__int ps phase_rad=2.748893571891069 code=7 phase_target_rad=2.7320609483493197 bits=4
X_L1__MZ_L1_V_c0_r0__DC_b X_L1__MZ_L1_V_c0_r0__int X_L1__MZ_L1_V_c0_r0__lo X_L1__L1_V_c0_m0 X_L1__L1_V_c0_m1 dc coupling=0.5
X_L1__MZ_L1_V_c1_r1__PS_ext X_L1__L1_V_c0_m1 X_L1__MZ_L1_V_c1_r1__ext ps phase_rad=0.39269908169872414 code=1 phase_target_rad=6.487951159799823 bits=4
X_L1__MZ_L1_V_c1_r1__DC_a X_L1__MZ_L1_V_c1_r1__ext in2 X_L1__MZ_L1_V_c1_r1__up X_L1__MZ_L1_V_c1_r1__lo dc coupling=0.5
X_L1__MZ_L1_V_c1_r1__PS_int X_L1__MZ_L1_V_c1_r1__up X_L1__MZ_L1_V_c1_r1__int ps phase_rad=2.3561944901923448 code=6 phase_target_rad=2.1657930140457049 bits=4
X_L1__MZ_L1_V_c1_r1__DC_b X_L1__MZ_L1_V_c1_r1__int X_L1__MZ_L1_V_c1_r1__lo X_L1__L1_V_c1_m1 X_L1__L1_V_c1_m2 dc coupling=0.5
X_L1__MZ_L1_V_c2_r0__PS_ext X_L1__L1_V_c0_m0 X_L1__MZ_L1_V_c2_r0__ext ps phase_rad=5.8904862254808616 code=15 phase_target_rad=6.0000513400277793 bits=4
X_L1__MZ_L1_V_c2_r0__DC_a X_L1__MZ_L1_V_c2_r0__ext X_L1__L1_V_c1_m1 X_L1__MZ_L1_V_c2_r0__up X_L1__MZ_L1_V_c2_r0__lo dc coupling=0.5
X_L1__MZ_L1_V_c2_r0__PS_int X_L1__MZ_L1_V_c2_r0__up X_L1__MZ_L1_V_c2_r0__int ps phase_rad=1.5707963267948966 code=4 phase_target_rad=1.5196593791944526 bits=4
X_L1__MZ_L1_V_c2_r0__DC_b X_L1__MZ_L1_V_c2_r0__int X_L1__MZ_L1_V_c2_r0__lo X_L1__L1_V_c2_m0 X_L1__L1_V_c2_m1 dc coupling=0.5
X_L1__PS_L1_V_c3_r0 X_L1__L1_V_c2_m0 X_L1__L1_V_c3_m0 ps phase_rad=4.3196898986859651 code=11 phase_target_rad=4.440459110559507 bits=4
X_L1__PS_L1_V_c3_r1 X_L1__L1_V_c2_m1 X_L1__L1_V_c3_m1 ps phase_rad=1.1780972450961724 code=3 phase_target_rad=1.2988664569697144 bits=4
X_L1__PS_L1_V_c3_r2 X_L1__L1_V_c1_m2 X_L1__L1_V_c3_m2 ps phase_rad=0.39269908169872414 code=1 phase_target_rad=0.48789981977204422 bits=4
X_L1__AT_L1_r0 X_L1__L1_V_c3_m0 X_L1__L1_S_m0 att att_dB=0 code=0 bits=6
X_L1__AT_L1_r1 X_L1__L1_V_c3_m1 X_L1__L1_S_m1 att att_dB=2.8571428571428572 code=3 bits=6 t_target=0.73075053915490651
X_L1__TM_L1_r2 X_L1__L1_V_c3_m2 term
X_L1__MZ_L1_U_c0_r0__PS_ext X_L1__L1_S_m0 X_L1__MZ_L1_U_c0_r0__ext ps phase_rad=3.1415926535897931 code=8 bits=4
X_L1__MZ_L1_U_c0_r0__DC_a X_L1__MZ_L1_U_c0_r0__ext X_L1__L1_S_m1 X_L1__MZ_L1_U_c0_r0__up X_L1__MZ_L1_U_c0_r0__lo dc coupling=0.5
X_L1__MZ_L1_U_c0_r0__PS_int X_L1__MZ_L1_U_c0_r0__up X_L1__MZ_L1_U_c0_r0__int ps phase_rad=1.5707963267948966 code=4 phase_target_rad=1.4360074795832825 bits=4
X_L1__MZ_L1_U_c0_r0__DC_b X_L1__MZ_L1_U_c0_r0__int X_L1__MZ_L1_U_c0_r0__lo X_L1__L1_U_c0_m0 X_L1__L1_U_c0_m1 dc coupling=0.5
X_L1__PS_L1_U_c1_r0 X_L1__L1_U_c0_m0 out0 ps phase_rad=3.9269908169872414 code=10 phase_target_rad=3.9943852405930484 bits=4
X_L1__PS_L1_U_c1_r1 X_L1__L1_U_c0_m1 out1 ps phase_rad=0.78539816339744828 code=2 phase_target_rad=0.85279258700325533 bits=4
.ends tiny

tiny in0 in1 in2 out0 out1 tiny
.end

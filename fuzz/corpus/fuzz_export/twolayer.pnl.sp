* PNL 1.0 photonic netlist, see optinc-netlist(5)
*! generator = optinc 0.1.0
*! spec = path="specs/twolayer.yaml" sha256="38c3d94c2f4f4baa7a700cce093f21277eda3060e4aa72a3c9c60b131bedf92a"
*! mzi_convention = M = B.diag(exp(i.theta_rad),1).B.diag(exp(i.phi_rad),1), B = [[1,i],[i,1]]/sqrt(2), (in0,in1) -> (out0,out1) = modes (m,m+1)
*! units = phase:rad attenuation:dB loss:dB length:um wavelength:um power:dBm
*! circuit = seed=7 wavelength_um=1.55
*! layer.hidden = rows=4 cols=6 gain=3.7702071396250836 mesh=clements attenuators=middle activation=relu_eo approximation_error=0 attenuators_capped=0
*! layer.hidden.mzi = insertion_loss_dB=0.10000000000000001 phase_error_sigma_rad=0.01 splitter_error_sigma=0
*! layer.hidden.phase_shifter = bits=8 range_lo_rad=0 range_hi_rad=6.2831853071795862 noise_sigma_rad=0 thermal_crosstalk=0
*! layer.hidden.attenuator = insertion_loss_dB=0.050000000000000003 max_attenuation_dB=30 bits=10
*! layer.hidden.waveguide = loss_dB_cm=0
*! layer.hidden.crossing = insertion_loss_dB=0 crosstalk_dB=0
*! layer.hidden.detector = responsivity_A_W=0.90000000000000002
*! layer.out = rows=3 cols=4 gain=4 mesh=reck attenuators=middle activation=none approximation_error=0 attenuators_capped=0
*! layer.out.mzi = insertion_loss_dB=0.20000000000000001 phase_error_sigma_rad=0.01 splitter_error_sigma=0
*! layer.out.phase_shifter = bits=6 range_lo_rad=0 range_hi_rad=6.2831853071795862 noise_sigma_rad=0 thermal_crosstalk=0
*! layer.out.attenuator = insertion_loss_dB=0.050000000000000003 max_attenuation_dB=30 bits=10
*! layer.out.waveguide = loss_dB_cm=0
*! layer.out.crossing = insertion_loss_dB=0 crosstalk_dB=0
*! layer.out.detector = responsivity_A_W=0.90000000000000002

.subckt layer_hidden in0 in1 in2 in3 in4 in5 out0 out1 out2 out3
MZ_hidden_V_c0_r0 in0 in1 hidden_V_c0_m0 hidden_V_c0_m1 mzi theta_rad=0.63813600776042678 theta_code=26 theta_target_rad=0.62711636082469902 phi_rad=3.1415926535897931 phi_code=128 bits=8
MZ_hidden_V_c0_r2 in2 in3 hidden_V_c0_m2 hidden_V_c0_m3 mzi theta_rad=0.049087385212340517 theta_code=2 theta_target_rad=0.039661828796939691 phi_rad=3.1415926535897931 phi_code=128 bits=8
MZ_hidden_V_c0_r4 in4 in5 hidden_V_c0_m4 hidden_V_c0_m5 mzi theta_rad=2.7734372644972392 theta_code=113 theta_target_rad=2.7854484941589752 phi_rad=0 phi_code=0 bits=8
MZ_hidden_V_c1_r1 hidden_V_c0_m1 hidden_V_c0_m2 hidden_V_c1_m1 hidden_V_c1_m2 mzi theta_rad=0.83448554860978885 theta_code=34 theta_target_rad=0.82644028002031256 phi_rad=5.9886609959055432 phi_code=244 phi_target_rad=-0.29372726601387988 bits=8
MZ_hidden_V_c1_r3 hidden_V_c0_m3 hidden_V_c0_m4 hidden_V_c1_m3 hidden_V_c1_m4 mzi theta_rad=1.5462526341887264 theta_code=63 theta_target_rad=1.5375737032136636 phi_rad=1.3744467859455345 phi_code=56 phi_target_rad=1.3728933326810178 bits=8
MZ_hidden_V_c2_r0 hidden_V_c0_m0 hidden_V_c1_m1 hidden_V_c2_m0 hidden_V_c2_m1 mzi theta_rad=0.63813600776042678 theta_code=26 theta_target_rad=0.64480801694151646 phi_rad=4.8351074434155406 phi_code=197 phi_target_rad=-1.4513034527986202 bits=8
MZ_hidden_V_c2_r2 hidden_V_c1_m2 hidden_V_c1_m3 hidden_V_c2_m2 hidden_V_c2_m3 mzi theta_rad=0.024543692606170259 theta_code=1 theta_target_rad=0.019531594345493453 phi_rad=1.7180584824319181 phi_code=70 phi_target_rad=1.7284600442776941 bits=8
MZ_hidden_V_c2_r4 hidden_V_c1_m4 hidden_V_c0_m5 hidden_V_c2_m4 hidden_V_c2_m5 mzi theta_rad=1.2762720155208536 theta_code=52 theta_target_rad=1.2749962752296657 phi_rad=0.80994185600361857 phi_code=33 phi_target_rad=7.0851947823676511 bits=8
MZ_hidden_V_c3_r1 hidden_V_c2_m1 hidden_V_c2_m2 hidden_V_c3_m1 hidden_V_c3_m2 mzi theta_rad=0.66267970036659696 theta_code=27 theta_target_rad=0.66218419438096143 phi_rad=4.5651268247476677 phi_code=186 phi_target_rad=-1.7257708206101103 bits=8
MZ_hidden_V_c3_r3 hidden_V_c2_m3 hidden_V_c2_m4 hidden_V_c3_m3 hidden_V_c3_m4 mzi theta_rad=1.2517283229146832 theta_code=51 theta_target_rad=1.2525750911311611 phi_rad=4.5651268247476677 phi_code=186 phi_target_rad=4.571334469219944 bits=8
MZ_hidden_V_c4_r0 hidden_V_c2_m0 hidden_V_c3_m1 hidden_V_c4_m0 hidden_V_c4_m1 mzi theta_rad=0.51541754472957546 theta_code=21 theta_target_rad=0.52386582716429153 phi_rad=0.17180584824319181 phi_code=7 phi_target_rad=0.17611760337526672 bits=8
MZ_hidden_V_c4_r2 hidden_V_c3_m2 hidden_V_c3_m3 hidden_V_c4_m2 hidden_V_c4_m3 mzi theta_rad=0.26998061866787282 theta_code=11 theta_target_rad=0.26655390238347998 phi_rad=1.7180584824319181 phi_code=70 phi_target_rad=1.7249372640052503 bits=8
MZ_hidden_V_c4_r4 hidden_V_c3_m4 hidden_V_c2_m5 hidden_V_c4_m4 hidden_V_c4_m5 mzi theta_rad=2.1353012567368124 theta_code=87 theta_target_rad=2.1373260731574715 phi_rad=0.93266031903446978 phi_code=38 phi_target_rad=7.2276940884089029 bits=8
MZ_hidden_V_c5_r1 hidden_V_c4_m1 hidden_V_c4_m2 hidden_V_c5_m1 hidden_V_c5_m2 mzi theta_rad=0.41724277430489443 theta_code=17 theta_target_rad=0.40771325670565028 phi_rad=4.7369326729908598 phi_code=193 phi_target_rad=4.7378739552046376 bits=8
MZ_hidden_V_c5_r3 hidden_V_c4_m3 hidden_V_c4_m4 hidden_V_c5_m3 hidden_V_c5_m4 mzi theta_rad=2.1107575641306422 theta_code=86 theta_target_rad=2.1038511547275842 phi_rad=1.8898643306751099 phi_code=77 phi_target_rad=1.879894866616312 bits=8
PS_hidden_V_c6_r0 hidden_V_c4_m0 hidden_V_c6_m0 ps phase_rad=5.0805443694772432 code=207 phase_target_rad=-1.1935055798367966 bits=8
PS_hidden_V_c6_r1 hidden_V_c5_m1 hidden_V_c6_m1 ps phase_rad=4.8596511360217116 code=198 phase_target_rad=-1.4228471830095695 bits=8
PS_hidden_V_c6_r2 hidden_V_c5_m2 hidden_V_c6_m2 ps phase_rad=1.7180584824319181 code=70 phase_target_rad=-4.5644398365993624 bits=8
PS_hidden_V_c6_r3 hidden_V_c5_m3 hidden_V_c6_m3 ps phase_rad=2.1353012567368124 code=87 phase_target_rad=2.1323743085427376 bits=8
PS_hidden_V_c6_r4 hidden_V_c5_m4 hidden_V_c6_m4 ps phase_rad=5.2768939103266055 code=215 phase_target_rad=5.2739669621325307 bits=8
PS_hidden_V_c6_r5 hidden_V_c4_m5 hidden_V_c6_m5 ps phase_rad=1.6198837120072371 code=66 phase_target_rad=1.6135035591116333 bits=8
AT_hidden_r0 hidden_V_c6_m0 hidden_S_m0 att att_dB=0 code=0 bits=10
AT_hidden_r1 hidden_V_c6_m1 hidden_S_m1 att att_dB=5.6891495601173023 code=194 bits=10 t_target=0.51950684461564789
AT_hidden_r2 hidden_V_c6_m2 hidden_S_m2 att att_dB=9.0322580645161299 code=308 bits=10 t_target=0.35402597785514561
AT_hidden_r3 hidden_V_c6_m3 hidden_S_m3 att att_dB=14.750733137829911 code=503 bits=10 t_target=0.18310374362823192
TM_hidden_r4 hidden_V_c6_m4 term
TM_hidden_r5 hidden_V_c6_m5 term
MZ_hidden_U_c0_r0 hidden_S_m0 hidden_S_m1 hidden_U_c0_m0 hidden_U_c0_m1 mzi theta_rad=0.56450492994191592 theta_code=23 theta_target_rad=0.57020734427680653 phi_rad=3.1415926535897931 phi_code=128 bits=8
MZ_hidden_U_c0_r2 hidden_S_m2 hidden_S_m3 hidden_U_c0_m2 hidden_U_c0_m3 mzi theta_rad=2.1598449493429825 theta_code=88 theta_target_rad=2.1590905350358391 phi_rad=3.1415926535897931 phi_code=128 bits=8
MZ_hidden_U_c1_r1 hidden_U_c0_m1 hidden_U_c0_m2 hidden_U_c1_m1 hidden_U_c1_m2 mzi theta_rad=0.49087385212340517 theta_code=20 theta_target_rad=0.49661260108647598 phi_rad=0.78539816339744828 phi_code=32 phi_target_rad=7.0776269025591034 bits=8
MZ_hidden_U_c2_r0 hidden_U_c0_m0 hidden_U_c1_m1 hidden_U_c2_m0 hidden_U_c2_m1 mzi theta_rad=0.46633015951723489 theta_code=19 theta_target_rad=0.47184453994826914 phi_rad=2.6016314162540475 phi_code=106 phi_target_rad=2.6135442227176506 bits=8
MZ_hidden_U_c2_r2 hidden_U_c1_m2 hidden_U_c0_m3 hidden_U_c2_m2 hidden_U_c2_m3 mzi theta_rad=2.4052818754046852 theta_code=98 theta_target_rad=2.4107771924208166 phi_rad=1.3253594007331939 phi_code=54 phi_target_rad=7.6056753334312441 bits=8
MZ_hidden_U_c3_r1 hidden_U_c2_m1 hidden_U_c2_m2 hidden_U_c3_m1 hidden_U_c3_m2 mzi theta_rad=2.5525440310417071 theta_code=104 theta_target_rad=2.5533600472147815 phi_rad=2.2825634123738339 phi_code=93 phi_target_rad=-3.9912289546916542 bits=8
PS_hidden_U_c4_r0 hidden_U_c2_m0 out0 ps phase_rad=3.1415926535897931 code=128 phase_target_rad=-3.1345701648301887 bits=8
PS_hidden_U_c4_r1 hidden_U_c3_m1 out1 ps phase_rad=1.1535535524900022 code=47 phase_target_rad=1.1507750930489711 bits=8
PS_hidden_U_c4_r2 hidden_U_c3_m2 out2 ps phase_rad=4.2951462060797949 code=175 phase_target_rad=4.2923677466387637 bits=8
PS_hidden_U_c4_r3 hidden_U_c2_m3 out3 ps phase_rad=0.85902924121595903 code=35 phase_target_rad=0.85665878986146526 bits=8
.ends layer_hidden

.subckt layer_out in0 in1 in2 in3 out0 out1 out2
MZ_out_V_c0_r2 in2 in3 out_V_c0_m2 out_V_c0_m3 mzi theta_rad=2.3561944901923448 theta_code=24 theta_target_rad=2.3110291978400364 phi_rad=2.9452431127404308 phi_code=30 phi_target_rad=2.9142879373897821 bits=6
MZ_out_V_c1_r1 in1 out_V_c0_m2 out_V_c1_m1 out_V_c1_m2 mzi theta_rad=1.4726215563702154 theta_code=15 theta_target_rad=1.4955136459571818 phi_rad=0.58904862254808621 phi_code=6 phi_target_rad=0.5912571611777917 bits=6
MZ_out_V_c2_r0 in0 out_V_c1_m1 out_V_c2_m0 out_V_c2_m1 mzi theta_rad=1.4726215563702154 theta_code=15 theta_target_rad=1.4712720282194891 phi_rad=5.9886609959055432 phi_code=61 phi_target_rad=-0.33203466298862017 bits=6
MZ_out_V_c2_r2 out_V_c1_m2 out_V_c0_m3 out_V_c2_m2 out_V_c2_m3 mzi theta_rad=1.8653206380689396 theta_code=19 theta_target_rad=1.8550187215484051 phi_rad=1.8653206380689396 phi_code=19 phi_target_rad=1.901691565925248 bits=6
MZ_out_V_c3_r1 out_V_c2_m1 out_V_c2_m2 out_V_c3_m1 out_V_c3_m2 mzi theta_rad=1.2762720155208536 theta_code=13 theta_target_rad=1.277839592723587 phi_rad=3.043417883165112 phi_code=31 phi_target_rad=3.0651740153000411 bits=6
MZ_out_V_c4_r2 out_V_c3_m2 out_V_c2_m3 out_V_c4_m2 out_V_c4_m3 mzi theta_rad=1.4726215563702154 theta_code=15 theta_target_rad=1.5011871333113334 phi_rad=1.7671458676442586 phi_code=18 phi_target_rad=1.8084276297277471 bits=6
PS_out_V_c5_r0 out_V_c2_m0 out_V_c5_m0 ps phase_rad=4.5160394395353274 code=46 phase_target_rad=4.4794127210834063 bits=6
PS_out_V_c5_r1 out_V_c3_m1 out_V_c5_m1 ps phase_rad=0.68722339297276724 code=7 phase_target_rad=0.70815136216903563 bits=6
PS_out_V_c5_r2 out_V_c4_m2 out_V_c5_m2 ps phase_rad=5.8904862254808616 code=60 phase_target_rad=-0.35858625563361834 bits=6
PS_out_V_c5_r3 out_V_c4_m3 out_V_c5_m3 ps phase_rad=1.9634954084936207 code=20 phase_target_rad=1.9925186014277487 bits=6
AT_out_r0 out_V_c5_m0 out_S_m0 att att_dB=3.6363636363636362 code=124 bits=10 t_target=0.6588294257536097
AT_out_r1 out_V_c5_m1 out_S_m1 att att_dB=5.3665689149560114 code=183 bits=10 t_target=0.53992504784979289
AT_out_r2 out_V_c5_m2 out_S_m2 att att_dB=9.0615835777126108 code=309 bits=10 t_target=0.35244301111113302
TM_out_r3 out_V_c5_m3 term
MZ_out_U_c0_r1 out_S_m1 out_S_m2 out_U_c0_m1 out_U_c0_m2 mzi theta_rad=2.6507188014663878 theta_code=27 theta_target_rad=2.6333670867174748 phi_rad=3.1415926535897931 phi_code=32 bits=6
MZ_out_U_c1_r0 out_S_m0 out_U_c0_m1 out_U_c1_m0 out_U_c1_m1 mzi theta_rad=0.98174770424681035 theta_code=10 theta_target_rad=0.96098776071978342 phi_rad=2.8470683423157501 phi_code=29 phi_target_rad=2.8874798701536339 bits=6
MZ_out_U_c2_r1 out_U_c1_m1 out_U_c0_m2 out_U_c2_m1 out_U_c2_m2 mzi theta_rad=1.3744467859455345 theta_code=14 theta_target_rad=1.3701620985906331 phi_rad=4.5160394395353274 phi_code=46 phi_target_rad=4.4726445497781988 bits=6
PS_out_U_c3_r0 out_U_c1_m0 out0 ps phase_rad=1.3744467859455345 code=14 phase_target_rad=1.344415229871164 bits=6
PS_out_U_c3_r1 out_U_c2_m1 out1 ps phase_rad=4.5160394395353274 code=46 phase_target_rad=-1.7810993906337527 bits=6
PS_out_U_c3_r2 out_U_c2_m2 out2 ps phase_rad=3.7306412761378791 code=38 phase_target_rad=3.7527377896729304 bits=6
.ends layer_out

.subckt twolayer in0 in1 in2 in3 in4 in5 out0 out1 out2
X_hidden in0 in1 in2 in3 in4 in5 hidden_out0 hidden_out1 hidden_out2 hidden_out3 layer_hidden
X_out hidden_out0 hidden_out1 hidden_out2 hidden_out3 out0 out1 out2 layer_out
.ends twolayer

twolayer in0 in1 in2 in3 in4 in5 out0 out1 out2 twolayer
.end

* PNL 1.0 photonic netlist, see optinc-netlist(5)
*! generator = optinc 0.1.0
*! spec = path="specs/rect10x6.yaml" sha256="1c109f42b67caf5ade30c46f07e59f38b01ee0e2fdfbc23ddd9899da93fdb511"
*! mzi_convention = M = B.diag(exp(i.theta_rad),1).B.diag(exp(i.phi_rad),1), B = [[1,i],[i,1]]/sqrt(2), (in0,in1) -> (out0,out1) = modes (m,m+1)
*! units = phase:rad attenuation:dB loss:dB length:um wavelength:um power:dBm
*! circuit = seed=10 wavelength_um=1.55
*! layer.L1 = rows=10 cols=6 gain=4.9797252291825265 mesh=clements attenuators=middle activation=none approximation_error=0 attenuators_capped=0
*! layer.L1.mzi = insertion_loss_dB=0 phase_error_sigma_rad=0 splitter_error_sigma=0
*! layer.L1.phase_shifter = bits=0 range_lo_rad=0 range_hi_rad=6.2831853071795862 noise_sigma_rad=0 thermal_crosstalk=0
*! layer.L1.attenuator = insertion_loss_dB=0.050000000000000003 max_attenuation_dB=40 bits=0
*! layer.L1.waveguide = loss_dB_cm=0
*! layer.L1.crossing = insertion_loss_dB=0 crosstalk_dB=0
*! layer.L1.detector = responsivity_A_W=1

.subckt layer_L1 in0 in1 in2 in3 in4 in5 out0 out1 out2 out3 out4 out5 out6 out7 out8 out9
MZ_L1_V_c0_r0 in0 in1 L1_V_c0_m0 L1_V_c0_m1 mzi theta_rad=0.45360964516788416 phi_rad=3.1415926535897931
MZ_L1_V_c0_r2 in2 in3 L1_V_c0_m2 L1_V_c0_m3 mzi theta_rad=1.6231898640529145 phi_rad=0
MZ_L1_V_c0_r4 in4 in5 L1_V_c0_m4 L1_V_c0_m5 mzi theta_rad=1.5715002280605885 phi_rad=0 phi_target_rad=6.2831853071795862
MZ_L1_V_c1_r1 L1_V_c0_m1 L1_V_c0_m2 L1_V_c1_m1 L1_V_c1_m2 mzi theta_rad=1.5685770297287909 phi_rad=3.7263827630323085
MZ_L1_V_c1_r3 L1_V_c0_m3 L1_V_c0_m4 L1_V_c1_m3 L1_V_c1_m4 mzi theta_rad=1.4642254732540949 phi_rad=3.1157478355936301
MZ_L1_V_c2_r0 L1_V_c0_m0 L1_V_c1_m1 L1_V_c2_m0 L1_V_c2_m1 mzi theta_rad=2.8368388237694417 phi_rad=2.9398749511018072
MZ_L1_V_c2_r2 L1_V_c1_m2 L1_V_c1_m3 L1_V_c2_m2 L1_V_c2_m3 mzi theta_rad=0.17929383873220894 phi_rad=3.0635720573562821
MZ_L1_V_c2_r4 L1_V_c1_m4 L1_V_c0_m5 L1_V_c2_m4 L1_V_c2_m5 mzi theta_rad=0.83239036602873728 phi_rad=0.83868359016784844 phi_target_rad=7.1218688973474347
MZ_L1_V_c3_r1 L1_V_c2_m1 L1_V_c2_m2 L1_V_c3_m1 L1_V_c3_m2 mzi theta_rad=0.19900386501655376 phi_rad=4.8763922184274584 phi_target_rad=-1.4067930887521278
MZ_L1_V_c3_r3 L1_V_c2_m3 L1_V_c2_m4 L1_V_c3_m3 L1_V_c3_m4 mzi theta_rad=0.34020017878285991 phi_rad=1.1652318538161133 phi_target_rad=7.4484171609956995
MZ_L1_V_c4_r0 L1_V_c2_m0 L1_V_c3_m1 L1_V_c4_m0 L1_V_c4_m1 mzi theta_rad=0.42654133637829128 phi_rad=0.26350517055104561 phi_target_rad=6.5466904777306318
MZ_L1_V_c4_r2 L1_V_c3_m2 L1_V_c3_m3 L1_V_c4_m2 L1_V_c4_m3 mzi theta_rad=0.26960114254952261 phi_rad=4.3774226642890595
MZ_L1_V_c4_r4 L1_V_c3_m4 L1_V_c2_m5 L1_V_c4_m4 L1_V_c4_m5 mzi theta_rad=1.2260136960236128 phi_rad=4.5422888909932597 phi_target_rad=-1.7408964161863265
MZ_L1_V_c5_r1 L1_V_c4_m1 L1_V_c4_m2 L1_V_c5_m1 L1_V_c5_m2 mzi theta_rad=2.4178084403950737 phi_rad=1.157359913784882 phi_target_rad=7.4405452209644682
MZ_L1_V_c5_r3 L1_V_c4_m3 L1_V_c4_m4 L1_V_c5_m3 L1_V_c5_m4 mzi theta_rad=1.254214657673226 phi_rad=1.8789025141405118
PS_L1_V_c6_r0 L1_V_c4_m0 L1_V_c6_m0 ps phase_rad=5.9336992632536143 phase_target_rad=-0.34948604392597216
PS_L1_V_c6_r1 L1_V_c5_m1 L1_V_c6_m1 ps phase_rad=5.1382314560660918 phase_target_rad=-1.1449538511134945
PS_L1_V_c6_r2 L1_V_c5_m2 L1_V_c6_m2 ps phase_rad=5.1382314560660918 phase_target_rad=-1.1449538511134945
PS_L1_V_c6_r3 L1_V_c5_m3 L1_V_c6_m3 ps phase_rad=0.69953317969671058
PS_L1_V_c6_r4 L1_V_c5_m4 L1_V_c6_m4 ps phase_rad=3.8411258332865037 phase_target_rad=-2.4420594738930825
PS_L1_V_c6_r5 L1_V_c4_m5 L1_V_c6_m5 ps phase_rad=2.8974368353282203
AT_L1_r0 L1_V_c6_m0 L1_S_m0 att att_dB=0 t_target=1
AT_L1_r1 L1_V_c6_m1 L1_S_m1 att att_dB=2.4353213089690278 t_target=0.75549907083771595
AT_L1_r2 L1_V_c6_m2 L1_S_m2 att att_dB=3.4571237250169617 t_target=0.67165122897293505
AT_L1_r3 L1_V_c6_m3 L1_S_m3 att att_dB=5.7260140030350071 t_target=0.51724857139539049
AT_L1_r4 L1_V_c6_m4 L1_S_m4 att att_dB=9.0051384509145009 t_target=0.35460354866692645
AT_L1_r5 L1_V_c6_m5 L1_S_m5 att att_dB=11.29861587479799 t_target=0.27231352140952864
TM_L1_r6 L1_S_m6 term
TM_L1_r7 L1_S_m7 term
TM_L1_r8 L1_S_m8 term
TM_L1_r9 L1_S_m9 term
MZ_L1_U_c0_r0 L1_S_m0 L1_S_m1 L1_U_c0_m0 L1_U_c0_m1 mzi theta_rad=2.3605565323325317 phi_rad=0 phi_target_rad=6.2831853071795862
MZ_L1_U_c0_r2 L1_S_m2 L1_S_m3 L1_U_c0_m2 L1_U_c0_m3 mzi theta_rad=2.0771857737111046 phi_rad=3.1415926535897931
MZ_L1_U_c0_r4 L1_S_m4 L1_S_m5 L1_U_c0_m4 L1_U_c0_m5 mzi theta_rad=0.91366223670587043 phi_rad=0 phi_target_rad=6.2831853071795862
MZ_L1_U_c0_r6 L1_S_m6 L1_S_m7 L1_U_c0_m6 L1_U_c0_m7 mzi theta_rad=1.7572781797782226 phi_rad=0 phi_target_rad=6.2831853071795862
MZ_L1_U_c0_r8 L1_S_m8 L1_S_m9 L1_U_c0_m8 L1_U_c0_m9 mzi theta_rad=0.96439547703086159 phi_rad=0
MZ_L1_U_c1_r1 L1_U_c0_m1 L1_U_c0_m2 L1_U_c1_m1 L1_U_c1_m2 mzi theta_rad=0.4955169658214702 phi_rad=6.1414999278688729
MZ_L1_U_c1_r3 L1_U_c0_m3 L1_U_c0_m4 L1_U_c1_m3 L1_U_c1_m4 mzi theta_rad=2.0452055671263505 phi_rad=5.7014235386769698
MZ_L1_U_c1_r5 L1_U_c0_m5 L1_U_c0_m6 L1_U_c1_m5 L1_U_c1_m6 mzi theta_rad=0.53646772889470018 phi_rad=3.5634006251259693
MZ_L1_U_c1_r7 L1_U_c0_m7 L1_U_c0_m8 L1_U_c1_m7 L1_U_c1_m8 mzi theta_rad=0.31971448265581781 phi_rad=5.8867439558059056
MZ_L1_U_c2_r0 L1_U_c0_m0 L1_U_c1_m1 L1_U_c2_m0 L1_U_c2_m1 mzi theta_rad=0.2661944036283308 phi_rad=1.6768694303949181
MZ_L1_U_c2_r2 L1_U_c1_m2 L1_U_c1_m3 L1_U_c2_m2 L1_U_c2_m3 mzi theta_rad=0.086771255938312031 phi_rad=3.3346751857396164
MZ_L1_U_c2_r4 L1_U_c1_m4 L1_U_c1_m5 L1_U_c2_m4 L1_U_c2_m5 mzi theta_rad=1.1404519601563337 phi_rad=2.8090317060101442
MZ_L1_U_c2_r6 L1_U_c1_m6 L1_U_c1_m7 L1_U_c2_m6 L1_U_c2_m7 mzi theta_rad=0.60320799309342243 phi_rad=2.6367746790966713
MZ_L1_U_c2_r8 L1_U_c1_m8 L1_U_c0_m9 L1_U_c2_m8 L1_U_c2_m9 mzi theta_rad=1.7228985148319018 phi_rad=4.5525317390567803
MZ_L1_U_c3_r1 L1_U_c2_m1 L1_U_c2_m2 L1_U_c3_m1 L1_U_c3_m2 mzi theta_rad=0.66422234202271691 phi_rad=0.10337095830481324 phi_target_rad=6.3865562654843995
MZ_L1_U_c3_r3 L1_U_c2_m3 L1_U_c2_m4 L1_U_c3_m3 L1_U_c3_m4 mzi theta_rad=0.19842447234727745 phi_rad=0.19427940452936099 phi_target_rad=-6.0889059026502252
MZ_L1_U_c3_r5 L1_U_c2_m5 L1_U_c2_m6 L1_U_c3_m5 L1_U_c3_m6 mzi theta_rad=0.48000959683239897 phi_rad=2.3681526955652146 phi_target_rad=8.6513380027448008
MZ_L1_U_c3_r7 L1_U_c2_m7 L1_U_c2_m8 L1_U_c3_m7 L1_U_c3_m8 mzi theta_rad=0.62703024336609481 phi_rad=5.1123769999260205 phi_target_rad=-1.1708083072535658
MZ_L1_U_c4_r0 L1_U_c2_m0 L1_U_c3_m1 L1_U_c4_m0 L1_U_c4_m1 mzi theta_rad=0.34656476854443552 phi_rad=5.1478711097008611 phi_target_rad=-1.1353141974787251
MZ_L1_U_c4_r2 L1_U_c3_m2 L1_U_c3_m3 L1_U_c4_m2 L1_U_c4_m3 mzi theta_rad=0.4509774847563528 phi_rad=3.1029731232814353
MZ_L1_U_c4_r4 L1_U_c3_m4 L1_U_c3_m5 L1_U_c4_m4 L1_U_c4_m5 mzi theta_rad=0.62091035413128681 phi_rad=2.5089452578077767
MZ_L1_U_c4_r6 L1_U_c3_m6 L1_U_c3_m7 L1_U_c4_m6 L1_U_c4_m7 mzi theta_rad=0.95669534205505036 phi_rad=5.1858873231928682 phi_target_rad=-1.0972979839867181
MZ_L1_U_c4_r8 L1_U_c3_m8 L1_U_c2_m9 L1_U_c4_m8 L1_U_c4_m9 mzi theta_rad=0.155860681384691 phi_rad=1.2572812051118494
MZ_L1_U_c5_r1 L1_U_c4_m1 L1_U_c4_m2 L1_U_c5_m1 L1_U_c5_m2 mzi theta_rad=1.3412581887057911 phi_rad=0.013586827797600343
MZ_L1_U_c5_r3 L1_U_c4_m3 L1_U_c4_m4 L1_U_c5_m3 L1_U_c5_m4 mzi theta_rad=0.26216086146962247 phi_rad=5.7355043460850368 phi_target_rad=-0.54768096109454945
MZ_L1_U_c5_r5 L1_U_c4_m5 L1_U_c4_m6 L1_U_c5_m5 L1_U_c5_m6 mzi theta_rad=0.89682407814126774 phi_rad=2.2121871635649573 phi_target_rad=8.4953724707445435
MZ_L1_U_c5_r7 L1_U_c4_m7 L1_U_c4_m8 L1_U_c5_m7 L1_U_c5_m8 mzi theta_rad=0.13737830044855937 phi_rad=0.85686387477666948
MZ_L1_U_c6_r0 L1_U_c4_m0 L1_U_c5_m1 L1_U_c6_m0 L1_U_c6_m1 mzi theta_rad=1.3307947050510369 phi_rad=5.3966049025351861
MZ_L1_U_c6_r2 L1_U_c5_m2 L1_U_c5_m3 L1_U_c6_m2 L1_U_c6_m3 mzi theta_rad=0.82008208742686728 phi_rad=5.1959556824669519 phi_target_rad=-1.0872296247126343
MZ_L1_U_c6_r4 L1_U_c5_m4 L1_U_c5_m5 L1_U_c6_m4 L1_U_c6_m5 mzi theta_rad=0.87812490381826969 phi_rad=5.6711114254905732
MZ_L1_U_c6_r6 L1_U_c5_m6 L1_U_c5_m7 L1_U_c6_m6 L1_U_c6_m7 mzi theta_rad=0.82898137803240468 phi_rad=0.47714098593031551 phi_target_rad=6.7603262931099017
MZ_L1_U_c6_r8 L1_U_c5_m8 L1_U_c4_m9 L1_U_c6_m8 L1_U_c6_m9 mzi theta_rad=0.58614152431071931 phi_rad=1.5021071765706164
MZ_L1_U_c7_r1 L1_U_c6_m1 L1_U_c6_m2 L1_U_c7_m1 L1_U_c7_m2 mzi theta_rad=1.0340033719326422 phi_rad=1.7990067200650741
MZ_L1_U_c7_r3 L1_U_c6_m3 L1_U_c6_m4 L1_U_c7_m3 L1_U_c7_m4 mzi theta_rad=1.4968155703769865 phi_rad=5.7001328336862747
MZ_L1_U_c7_r5 L1_U_c6_m5 L1_U_c6_m6 L1_U_c7_m5 L1_U_c7_m6 mzi theta_rad=1.3045469086714654 phi_rad=0.45256922303738278 phi_target_rad=6.735754530216969
MZ_L1_U_c7_r7 L1_U_c6_m7 L1_U_c6_m8 L1_U_c7_m7 L1_U_c7_m8 mzi theta_rad=0.42909130351605684 phi_rad=4.5222799032995677
MZ_L1_U_c8_r0 L1_U_c6_m0 L1_U_c7_m1 L1_U_c8_m0 L1_U_c8_m1 mzi theta_rad=1.3380809283550783 phi_rad=0.74521207923649868 phi_target_rad=7.0283973864160849
MZ_L1_U_c8_r2 L1_U_c7_m2 L1_U_c7_m3 L1_U_c8_m2 L1_U_c8_m3 mzi theta_rad=0.69720069525054118 phi_rad=5.9315389329084471 phi_target_rad=-0.35164637427113954
MZ_L1_U_c8_r4 L1_U_c7_m4 L1_U_c7_m5 L1_U_c8_m4 L1_U_c8_m5 mzi theta_rad=1.236182918807945 phi_rad=3.4980275457744154
MZ_L1_U_c8_r6 L1_U_c7_m6 L1_U_c7_m7 L1_U_c8_m6 L1_U_c8_m7 mzi theta_rad=1.3708489720758046 phi_rad=0.94295944713207014 phi_target_rad=7.2261447543116564
MZ_L1_U_c8_r8 L1_U_c7_m8 L1_U_c6_m9 L1_U_c8_m8 L1_U_c8_m9 mzi theta_rad=0.018756461158663029 phi_rad=1.3562506750368681
MZ_L1_U_c9_r1 L1_U_c8_m1 L1_U_c8_m2 L1_U_c9_m1 L1_U_c9_m2 mzi theta_rad=0.54943849088352925 phi_rad=2.4695061627663852
MZ_L1_U_c9_r3 L1_U_c8_m3 L1_U_c8_m4 L1_U_c9_m3 L1_U_c9_m4 mzi theta_rad=2.8956223768501967 phi_rad=3.7675186575531172
MZ_L1_U_c9_r5 L1_U_c8_m5 L1_U_c8_m6 L1_U_c9_m5 L1_U_c9_m6 mzi theta_rad=1.5418709604825021 phi_rad=4.1518851273557926
MZ_L1_U_c9_r7 L1_U_c8_m7 L1_U_c8_m8 L1_U_c9_m7 L1_U_c9_m8 mzi theta_rad=0.74114450160250245 phi_rad=0.68020441957829725 phi_target_rad=6.9633897267578835
PS_L1_U_c10_r0 L1_U_c8_m0 out0 ps phase_rad=1.4911064039206912
PS_L1_U_c10_r1 L1_U_c9_m1 out1 ps phase_rad=0.3176773225074383 phase_target_rad=-5.9655079846721479
PS_L1_U_c10_r2 L1_U_c9_m2 out2 ps phase_rad=0.3176773225074383
PS_L1_U_c10_r3 L1_U_c9_m3 out3 ps phase_rad=1.6602520291505733
PS_L1_U_c10_r4 L1_U_c9_m4 out4 ps phase_rad=4.8018446827403665 phase_target_rad=-1.4813406244392198
PS_L1_U_c10_r5 L1_U_c9_m5 out5 ps phase_rad=4.4684279171582144
PS_L1_U_c10_r6 L1_U_c9_m6 out6 ps phase_rad=1.3268352635684211
PS_L1_U_c10_r7 L1_U_c9_m7 out7 ps phase_rad=1.0469940734301235
PS_L1_U_c10_r8 L1_U_c9_m8 out8 ps phase_rad=1.0469940734301235
PS_L1_U_c10_r9 L1_U_c8_m9 out9 ps phase_rad=2.9883626510262715
.ends layer_L1

.subckt rect10x6 in0 in1 in2 in3 in4 in5 out0 out1 out2 out3 out4 out5 out6 out7 out8 out9
X_L1 in0 in1 in2 in3 in4 in5 out0 out1 out2 out3 out4 out5 out6 out7 out8 out9 layer_L1
.ends rect10x6

rect10x6 in0 in1 in2 in3 in4 in5 out0 out1 out2 out3 out4 out5 out6 out7 out8 out9 rect10x6
.end

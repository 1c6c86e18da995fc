* PNL 1.0 photonic netlist, see optinc-netlist(5)
*! generator = optinc 0.1.0
*! spec = path="specs/complex16.yaml" sha256="5dfeb49aa8f5a55dcb7c4f911edad6ea6bd12a0615595ff437ebf9d0ddee6601"
*! mzi_convention = M = B.diag(exp(i.theta_rad),1).B.diag(exp(i.phi_rad),1), B = [[1,i],[i,1]]/sqrt(2), (in0,in1) -> (out0,out1) = modes (m,m+1)
*! units = phase:rad attenuation:dB loss:dB length:um wavelength:um power:dBm
*! circuit = seed=16 wavelength_um=1.55
*! layer.L1 = rows=16 cols=16 gain=1.0000000000000004 mesh=clements attenuators=none activation=none approximation_error=0 attenuators_capped=0
*! layer.L1.mzi = insertion_loss_dB=0 phase_error_sigma_rad=0 splitter_error_sigma=0
*! layer.L1.phase_shifter = bits=0 range_lo_rad=0 range_hi_rad=6.2831853071795862 noise_sigma_rad=0 thermal_crosstalk=0
*! layer.L1.attenuator = insertion_loss_dB=0 max_attenuation_dB=60 bits=0
*! layer.L1.waveguide = loss_dB_cm=0
*! layer.L1.crossing = insertion_loss_dB=0 crosstalk_dB=0
*! layer.L1.detector = responsivity_A_W=1

.subckt layer_L1 in0 in1 in2 in3 in4 in5 in6 in7 in8 in9 in10 in11 in12 in13 in14 in15 out0 out1 out2 out3 out4 out5 out6 out7 out8 out9 out10 out11 out12 out13 out14 out15
MZ_L1_U_c0_r0 in0 in1 L1_U_c0_m0 L1_U_c0_m1 mzi theta_rad=0.43939431450461353 phi_rad=1.4313370801922534
MZ_L1_U_c0_r2 in2 in3 L1_U_c0_m2 L1_U_c0_m3 mzi theta_rad=2.2411553386909575 phi_rad=0.58680519225239536
MZ_L1_U_c0_r4 in4 in5 L1_U_c0_m4 L1_U_c0_m5 mzi theta_rad=1.5252126075128238 phi_rad=4.6152739334718458
MZ_L1_U_c0_r6 in6 in7 L1_U_c0_m6 L1_U_c0_m7 mzi theta_rad=1.4228069068149547 phi_rad=2.1403681826544156
MZ_L1_U_c0_r8 in8 in9 L1_U_c0_m8 L1_U_c0_m9 mzi theta_rad=2.359146112779964 phi_rad=3.9513500879290842
MZ_L1_U_c0_r10 in10 in11 L1_U_c0_m10 L1_U_c0_m11 mzi theta_rad=0.96160963625386353 phi_rad=2.1650122455896148
MZ_L1_U_c0_r12 in12 in13 L1_U_c0_m12 L1_U_c0_m13 mzi theta_rad=1.4097312418041492 phi_rad=6.1842228112710984
MZ_L1_U_c0_r14 in14 in15 L1_U_c0_m14 L1_U_c0_m15 mzi theta_rad=1.675818239953359 phi_rad=1.5499255128956613
MZ_L1_U_c1_r1 L1_U_c0_m1 L1_U_c0_m2 L1_U_c1_m1 L1_U_c1_m2 mzi theta_rad=1.5102619891571971 phi_rad=5.437604550669719
MZ_L1_U_c1_r3 L1_U_c0_m3 L1_U_c0_m4 L1_U_c1_m3 L1_U_c1_m4 mzi theta_rad=0.22713239257350093 phi_rad=1.8320376895256756
MZ_L1_U_c1_r5 L1_U_c0_m5 L1_U_c0_m6 L1_U_c1_m5 L1_U_c1_m6 mzi theta_rad=1.4429258392572837 phi_rad=5.5926299582106767
MZ_L1_U_c1_r7 L1_U_c0_m7 L1_U_c0_m8 L1_U_c1_m7 L1_U_c1_m8 mzi theta_rad=0.88914604770432337 phi_rad=5.6686008525969989
MZ_L1_U_c1_r9 L1_U_c0_m9 L1_U_c0_m10 L1_U_c1_m9 L1_U_c1_m10 mzi theta_rad=0.59600706342184306 phi_rad=0.44651939434974874
MZ_L1_U_c1_r11 L1_U_c0_m11 L1_U_c0_m12 L1_U_c1_m11 L1_U_c1_m12 mzi theta_rad=1.9575520355832736 phi_rad=2.2591899141720004
MZ_L1_U_c1_r13 L1_U_c0_m13 L1_U_c0_m14 L1_U_c1_m13 L1_U_c1_m14 mzi theta_rad=0.74629598589350454 phi_rad=3.7518464342388511
MZ_L1_U_c2_r0 L1_U_c0_m0 L1_U_c1_m1 L1_U_c2_m0 L1_U_c2_m1 mzi theta_rad=1.0376545406833881 phi_rad=0.51826599938318818
MZ_L1_U_c2_r2 L1_U_c1_m2 L1_U_c1_m3 L1_U_c2_m2 L1_U_c2_m3 mzi theta_rad=0.6867855537494183 phi_rad=4.9414646079498112
MZ_L1_U_c2_r4 L1_U_c1_m4 L1_U_c1_m5 L1_U_c2_m4 L1_U_c2_m5 mzi theta_rad=0.23894294688118745 phi_rad=0.91138432315778362
MZ_L1_U_c2_r6 L1_U_c1_m6 L1_U_c1_m7 L1_U_c2_m6 L1_U_c2_m7 mzi theta_rad=1.4103102259126801 phi_rad=3.9247711842262452
MZ_L1_U_c2_r8 L1_U_c1_m8 L1_U_c1_m9 L1_U_c2_m8 L1_U_c2_m9 mzi theta_rad=1.053796230957988 phi_rad=1.3536534437020362
MZ_L1_U_c2_r10 L1_U_c1_m10 L1_U_c1_m11 L1_U_c2_m10 L1_U_c2_m11 mzi theta_rad=1.0973952193493619 phi_rad=4.7413981888628669
MZ_L1_U_c2_r12 L1_U_c1_m12 L1_U_c1_m13 L1_U_c2_m12 L1_U_c2_m13 mzi theta_rad=0.74101441659349865 phi_rad=6.2433595491207861 phi_target_rad=-0.039825758058800176
MZ_L1_U_c2_r14 L1_U_c1_m14 L1_U_c0_m15 L1_U_c2_m14 L1_U_c2_m15 mzi theta_rad=1.5764481885020036 phi_rad=3.6861188558050388
MZ_L1_U_c3_r1 L1_U_c2_m1 L1_U_c2_m2 L1_U_c3_m1 L1_U_c3_m2 mzi theta_rad=0.24716421760144458 phi_rad=1.7968544122816432 phi_target_rad=8.0800397194612295
MZ_L1_U_c3_r3 L1_U_c2_m3 L1_U_c2_m4 L1_U_c3_m3 L1_U_c3_m4 mzi theta_rad=0.33389466663315082 phi_rad=0.6025422456628946
MZ_L1_U_c3_r5 L1_U_c2_m5 L1_U_c2_m6 L1_U_c3_m5 L1_U_c3_m6 mzi theta_rad=1.2418008259526525 phi_rad=5.0876783131096843 phi_target_rad=-1.1955069940699019
MZ_L1_U_c3_r7 L1_U_c2_m7 L1_U_c2_m8 L1_U_c3_m7 L1_U_c3_m8 mzi theta_rad=0.24671630617710338 phi_rad=5.574388831992211
MZ_L1_U_c3_r9 L1_U_c2_m9 L1_U_c2_m10 L1_U_c3_m9 L1_U_c3_m10 mzi theta_rad=0.43575643526717478 phi_rad=0.44081223814202675
MZ_L1_U_c3_r11 L1_U_c2_m11 L1_U_c2_m12 L1_U_c3_m11 L1_U_c3_m12 mzi theta_rad=1.089235425642705 phi_rad=6.2654990275095024 phi_target_rad=-0.017686279670083405
MZ_L1_U_c3_r13 L1_U_c2_m13 L1_U_c2_m14 L1_U_c3_m13 L1_U_c3_m14 mzi theta_rad=0.63186093380158281 phi_rad=1.4046127931805943 phi_target_rad=7.6877981003601805
MZ_L1_U_c4_r0 L1_U_c2_m0 L1_U_c3_m1 L1_U_c4_m0 L1_U_c4_m1 mzi theta_rad=0.53768651059014116 phi_rad=0.17174979214029129 phi_target_rad=6.4549350993198775
MZ_L1_U_c4_r2 L1_U_c3_m2 L1_U_c3_m3 L1_U_c4_m2 L1_U_c4_m3 mzi theta_rad=0.20356387622544325 phi_rad=3.0381384250138397
MZ_L1_U_c4_r4 L1_U_c3_m4 L1_U_c3_m5 L1_U_c4_m4 L1_U_c4_m5 mzi theta_rad=0.91091288751806854 phi_rad=0.27501706690942385 phi_target_rad=6.5582023740890101
MZ_L1_U_c4_r6 L1_U_c3_m6 L1_U_c3_m7 L1_U_c4_m6 L1_U_c4_m7 mzi theta_rad=0.46699641359417088 phi_rad=5.8880300691616148 phi_target_rad=-0.39515523801797148
MZ_L1_U_c4_r8 L1_U_c3_m8 L1_U_c3_m9 L1_U_c4_m8 L1_U_c4_m9 mzi theta_rad=0.38577471206390435 phi_rad=4.6229220839027922
MZ_L1_U_c4_r10 L1_U_c3_m10 L1_U_c3_m11 L1_U_c4_m10 L1_U_c4_m11 mzi theta_rad=0.55589182497068768 phi_rad=6.0485427683627497 phi_target_rad=-0.2346425388168365
MZ_L1_U_c4_r12 L1_U_c3_m12 L1_U_c3_m13 L1_U_c4_m12 L1_U_c4_m13 mzi theta_rad=0.50207313048738289 phi_rad=2.1107969210627795 phi_target_rad=-4.1723883861168067
MZ_L1_U_c4_r14 L1_U_c3_m14 L1_U_c2_m15 L1_U_c4_m14 L1_U_c4_m15 mzi theta_rad=0.88935595427471315 phi_rad=1.7548826287631281
MZ_L1_U_c5_r1 L1_U_c4_m1 L1_U_c4_m2 L1_U_c5_m1 L1_U_c5_m2 mzi theta_rad=0.59880266481346611 phi_rad=4.6100205735613748
MZ_L1_U_c5_r3 L1_U_c4_m3 L1_U_c4_m4 L1_U_c5_m3 L1_U_c5_m4 mzi theta_rad=1.2380059168786586 phi_rad=1.6394979003696726
MZ_L1_U_c5_r5 L1_U_c4_m5 L1_U_c4_m6 L1_U_c5_m5 L1_U_c5_m6 mzi theta_rad=0.3623957763017871 phi_rad=4.1402544818098015
MZ_L1_U_c5_r7 L1_U_c4_m7 L1_U_c4_m8 L1_U_c5_m7 L1_U_c5_m8 mzi theta_rad=0.48347844542423335 phi_rad=3.0432912373747993
MZ_L1_U_c5_r9 L1_U_c4_m9 L1_U_c4_m10 L1_U_c5_m9 L1_U_c5_m10 mzi theta_rad=0.54596330965546658 phi_rad=3.7461227951461038
MZ_L1_U_c5_r11 L1_U_c4_m11 L1_U_c4_m12 L1_U_c5_m11 L1_U_c5_m12 mzi theta_rad=1.0627798590317354 phi_rad=2.0480050456873347
MZ_L1_U_c5_r13 L1_U_c4_m13 L1_U_c4_m14 L1_U_c5_m13 L1_U_c5_m14 mzi theta_rad=1.1821360617806731 phi_rad=1.4414740285146328
MZ_L1_U_c6_r0 L1_U_c4_m0 L1_U_c5_m1 L1_U_c6_m0 L1_U_c6_m1 mzi theta_rad=0.61037455141781383 phi_rad=2.0662043469098328
MZ_L1_U_c6_r2 L1_U_c5_m2 L1_U_c5_m3 L1_U_c6_m2 L1_U_c6_m3 mzi theta_rad=0.70127360874921063 phi_rad=1.6737577381050208 phi_target_rad=7.9569430452846071
MZ_L1_U_c6_r4 L1_U_c5_m4 L1_U_c5_m5 L1_U_c6_m4 L1_U_c6_m5 mzi theta_rad=0.46831455749926887 phi_rad=5.2574713549065129 phi_target_rad=-1.0257139522730734
MZ_L1_U_c6_r6 L1_U_c5_m6 L1_U_c5_m7 L1_U_c6_m6 L1_U_c6_m7 mzi theta_rad=0.4447130075516128 phi_rad=0.75923524726529479 phi_target_rad=7.042420554444881
MZ_L1_U_c6_r8 L1_U_c5_m8 L1_U_c5_m9 L1_U_c6_m8 L1_U_c6_m9 mzi theta_rad=0.49261283128334643 phi_rad=4.6262894838038582
MZ_L1_U_c6_r10 L1_U_c5_m10 L1_U_c5_m11 L1_U_c6_m10 L1_U_c6_m11 mzi theta_rad=0.40852814396632198 phi_rad=3.8714947534681681
MZ_L1_U_c6_r12 L1_U_c5_m12 L1_U_c5_m13 L1_U_c6_m12 L1_U_c6_m13 mzi theta_rad=0.54312952286518179 phi_rad=1.8438660893558403
MZ_L1_U_c6_r14 L1_U_c5_m14 L1_U_c4_m15 L1_U_c6_m14 L1_U_c6_m15 mzi theta_rad=1.5038126331678412 phi_rad=5.6749792787031517 phi_target_rad=-0.60820602847643501
MZ_L1_U_c7_r1 L1_U_c6_m1 L1_U_c6_m2 L1_U_c7_m1 L1_U_c7_m2 mzi theta_rad=1.1379826094881307 phi_rad=4.5258724552800897
MZ_L1_U_c7_r3 L1_U_c6_m3 L1_U_c6_m4 L1_U_c7_m3 L1_U_c7_m4 mzi theta_rad=0.4080818080898676 phi_rad=1.4290824970518634
MZ_L1_U_c7_r5 L1_U_c6_m5 L1_U_c6_m6 L1_U_c7_m5 L1_U_c7_m6 mzi theta_rad=1.0689120958879523 phi_rad=2.5734344366167639
MZ_L1_U_c7_r7 L1_U_c6_m7 L1_U_c6_m8 L1_U_c7_m7 L1_U_c7_m8 mzi theta_rad=0.76471676820655299 phi_rad=2.4310069343779639
MZ_L1_U_c7_r9 L1_U_c6_m9 L1_U_c6_m10 L1_U_c7_m9 L1_U_c7_m10 mzi theta_rad=0.44014594256334449 phi_rad=2.5595780090255276
MZ_L1_U_c7_r11 L1_U_c6_m11 L1_U_c6_m12 L1_U_c7_m11 L1_U_c7_m12 mzi theta_rad=1.1041747033286047 phi_rad=2.5884119819324245
MZ_L1_U_c7_r13 L1_U_c6_m13 L1_U_c6_m14 L1_U_c7_m13 L1_U_c7_m14 mzi theta_rad=0.51150702684830573 phi_rad=1.7015423895822721
MZ_L1_U_c8_r0 L1_U_c6_m0 L1_U_c7_m1 L1_U_c8_m0 L1_U_c8_m1 mzi theta_rad=1.8501359832160127 phi_rad=4.268870087691198
MZ_L1_U_c8_r2 L1_U_c7_m2 L1_U_c7_m3 L1_U_c8_m2 L1_U_c8_m3 mzi theta_rad=1.020969560964057 phi_rad=2.3756051354115169 phi_target_rad=8.6587904425911031
MZ_L1_U_c8_r4 L1_U_c7_m4 L1_U_c7_m5 L1_U_c8_m4 L1_U_c8_m5 mzi theta_rad=0.66513243562772395 phi_rad=2.5129935519545725 phi_target_rad=-3.7701917552250137
MZ_L1_U_c8_r6 L1_U_c7_m6 L1_U_c7_m7 L1_U_c8_m6 L1_U_c8_m7 mzi theta_rad=0.43555867412960847 phi_rad=3.8671799550287269
MZ_L1_U_c8_r8 L1_U_c7_m8 L1_U_c7_m9 L1_U_c8_m8 L1_U_c8_m9 mzi theta_rad=1.0231032668038758 phi_rad=2.9403071945167234
MZ_L1_U_c8_r10 L1_U_c7_m10 L1_U_c7_m11 L1_U_c8_m10 L1_U_c8_m11 mzi theta_rad=0.62159670287133828 phi_rad=2.5488061343150106
MZ_L1_U_c8_r12 L1_U_c7_m12 L1_U_c7_m13 L1_U_c8_m12 L1_U_c8_m13 mzi theta_rad=0.58616901119884668 phi_rad=3.7597853695386689
MZ_L1_U_c8_r14 L1_U_c7_m14 L1_U_c6_m15 L1_U_c8_m14 L1_U_c8_m15 mzi theta_rad=1.248628324374822 phi_rad=1.4932710953723287
MZ_L1_U_c9_r1 L1_U_c8_m1 L1_U_c8_m2 L1_U_c9_m1 L1_U_c9_m2 mzi theta_rad=0.70862131237077275 phi_rad=1.1122892821383141 phi_target_rad=7.3954745893179004
MZ_L1_U_c9_r3 L1_U_c8_m3 L1_U_c8_m4 L1_U_c9_m3 L1_U_c9_m4 mzi theta_rad=0.46626028982104506 phi_rad=4.2311981333331783
MZ_L1_U_c9_r5 L1_U_c8_m5 L1_U_c8_m6 L1_U_c9_m5 L1_U_c9_m6 mzi theta_rad=0.16153919761199331 phi_rad=0.16469849629330646
MZ_L1_U_c9_r7 L1_U_c8_m7 L1_U_c8_m8 L1_U_c9_m7 L1_U_c9_m8 mzi theta_rad=0.37787963430100646 phi_rad=1.1480936796573147
MZ_L1_U_c9_r9 L1_U_c8_m9 L1_U_c8_m10 L1_U_c9_m9 L1_U_c9_m10 mzi theta_rad=0.28625313781977502 phi_rad=3.9205953563200704
MZ_L1_U_c9_r11 L1_U_c8_m11 L1_U_c8_m12 L1_U_c9_m11 L1_U_c9_m12 mzi theta_rad=0.38492227590351957 phi_rad=2.3024835395656238
MZ_L1_U_c9_r13 L1_U_c8_m13 L1_U_c8_m14 L1_U_c9_m13 L1_U_c9_m14 mzi theta_rad=0.82872452735941016 phi_rad=3.9555916362971217
MZ_L1_U_c10_r0 L1_U_c8_m0 L1_U_c9_m1 L1_U_c10_m0 L1_U_c10_m1 mzi theta_rad=0.94688271021171699 phi_rad=4.4838598460241288
MZ_L1_U_c10_r2 L1_U_c9_m2 L1_U_c9_m3 L1_U_c10_m2 L1_U_c10_m3 mzi theta_rad=0.73474357365833054 phi_rad=0.37213009278749176 phi_target_rad=6.655315399967078
MZ_L1_U_c10_r4 L1_U_c9_m4 L1_U_c9_m5 L1_U_c10_m4 L1_U_c10_m5 mzi theta_rad=0.51633887749674479 phi_rad=2.1046046240561807
MZ_L1_U_c10_r6 L1_U_c9_m6 L1_U_c9_m7 L1_U_c10_m6 L1_U_c10_m7 mzi theta_rad=0.19242551649480122 phi_rad=3.6228969163756481
MZ_L1_U_c10_r8 L1_U_c9_m8 L1_U_c9_m9 L1_U_c10_m8 L1_U_c10_m9 mzi theta_rad=0.95556574243666592 phi_rad=3.0033579806323125 phi_target_rad=-3.2798273265472737
MZ_L1_U_c10_r10 L1_U_c9_m10 L1_U_c9_m11 L1_U_c10_m10 L1_U_c10_m11 mzi theta_rad=0.54342477901743269 phi_rad=1.6695987834973738
MZ_L1_U_c10_r12 L1_U_c9_m12 L1_U_c9_m13 L1_U_c10_m12 L1_U_c10_m13 mzi theta_rad=0.43782911575710814 phi_rad=3.9480176684544004
MZ_L1_U_c10_r14 L1_U_c9_m14 L1_U_c8_m15 L1_U_c10_m14 L1_U_c10_m15 mzi theta_rad=1.1851621224112925 phi_rad=0.76583520406940231 phi_target_rad=7.0490205112489885
MZ_L1_U_c11_r1 L1_U_c10_m1 L1_U_c10_m2 L1_U_c11_m1 L1_U_c11_m2 mzi theta_rad=0.17484953216618759 phi_rad=3.7664009753594243
MZ_L1_U_c11_r3 L1_U_c10_m3 L1_U_c10_m4 L1_U_c11_m3 L1_U_c11_m4 mzi theta_rad=0.14037870633253524 phi_rad=5.9867427894070131 phi_target_rad=-0.29644251777257313
MZ_L1_U_c11_r5 L1_U_c10_m5 L1_U_c10_m6 L1_U_c11_m5 L1_U_c11_m6 mzi theta_rad=0.21719723927589296 phi_rad=0.66226171667865685 phi_target_rad=6.9454470238582431
MZ_L1_U_c11_r7 L1_U_c10_m7 L1_U_c10_m8 L1_U_c11_m7 L1_U_c11_m8 mzi theta_rad=0.25322067907440804 phi_rad=1.2340723647292569 phi_target_rad=7.5172576719088431
MZ_L1_U_c11_r9 L1_U_c10_m9 L1_U_c10_m10 L1_U_c11_m9 L1_U_c11_m10 mzi theta_rad=1.052913535020565 phi_rad=2.9968353145900206 phi_target_rad=-3.2863499925895656
MZ_L1_U_c11_r11 L1_U_c10_m11 L1_U_c10_m12 L1_U_c11_m11 L1_U_c11_m12 mzi theta_rad=0.9543528752096968 phi_rad=0.49478403333084842 phi_target_rad=6.7779693405104346
MZ_L1_U_c11_r13 L1_U_c10_m13 L1_U_c10_m14 L1_U_c11_m13 L1_U_c11_m14 mzi theta_rad=1.0396428670522604 phi_rad=2.0752459489632211
MZ_L1_U_c12_r0 L1_U_c10_m0 L1_U_c11_m1 L1_U_c12_m0 L1_U_c12_m1 mzi theta_rad=0.79041476235167218 phi_rad=5.5923843939007964
MZ_L1_U_c12_r2 L1_U_c11_m2 L1_U_c11_m3 L1_U_c12_m2 L1_U_c12_m3 mzi theta_rad=0.19517443834107695 phi_rad=5.4190194438151416
MZ_L1_U_c12_r4 L1_U_c11_m4 L1_U_c11_m5 L1_U_c12_m4 L1_U_c12_m5 mzi theta_rad=1.6038815377660618 phi_rad=3.3258488035394027
MZ_L1_U_c12_r6 L1_U_c11_m6 L1_U_c11_m7 L1_U_c12_m6 L1_U_c12_m7 mzi theta_rad=0.75204490571788796 phi_rad=1.8929139164385553 phi_target_rad=8.1760992236181416
MZ_L1_U_c12_r8 L1_U_c11_m8 L1_U_c11_m9 L1_U_c12_m8 L1_U_c12_m9 mzi theta_rad=0.55140164162816774 phi_rad=1.9333963629320565
MZ_L1_U_c12_r10 L1_U_c11_m10 L1_U_c11_m11 L1_U_c12_m10 L1_U_c12_m11 mzi theta_rad=0.70094706033491239 phi_rad=5.2072928394784768 phi_target_rad=-1.0758924677011095
MZ_L1_U_c12_r12 L1_U_c11_m12 L1_U_c11_m13 L1_U_c12_m12 L1_U_c12_m13 mzi theta_rad=0.46518456594510349 phi_rad=5.1291846538450425
MZ_L1_U_c12_r14 L1_U_c11_m14 L1_U_c10_m15 L1_U_c12_m14 L1_U_c12_m15 mzi theta_rad=1.140281427190025 phi_rad=4.7526483217893274
MZ_L1_U_c13_r1 L1_U_c12_m1 L1_U_c12_m2 L1_U_c13_m1 L1_U_c13_m2 mzi theta_rad=1.020713515327949 phi_rad=3.9050868253163031 phi_target_rad=10.188272132495889
MZ_L1_U_c13_r3 L1_U_c12_m3 L1_U_c12_m4 L1_U_c13_m3 L1_U_c13_m4 mzi theta_rad=0.78792915153157939 phi_rad=0.98412621779989307
MZ_L1_U_c13_r5 L1_U_c12_m5 L1_U_c12_m6 L1_U_c13_m5 L1_U_c13_m6 mzi theta_rad=0.79637588921859992 phi_rad=0.008687426216680727 phi_target_rad=6.291872733396267
MZ_L1_U_c13_r7 L1_U_c12_m7 L1_U_c12_m8 L1_U_c13_m7 L1_U_c13_m8 mzi theta_rad=0.75854132875354674 phi_rad=1.7943609701643397
MZ_L1_U_c13_r9 L1_U_c12_m9 L1_U_c12_m10 L1_U_c13_m9 L1_U_c13_m10 mzi theta_rad=1.0296828738947004 phi_rad=4.3611549416504243 phi_target_rad=-1.922030365529162
MZ_L1_U_c13_r11 L1_U_c12_m11 L1_U_c12_m12 L1_U_c13_m11 L1_U_c13_m12 mzi theta_rad=0.6478301867751064 phi_rad=4.739222807359381
MZ_L1_U_c13_r13 L1_U_c12_m13 L1_U_c12_m14 L1_U_c13_m13 L1_U_c13_m14 mzi theta_rad=0.64539874877390258 phi_rad=5.753291221690886
MZ_L1_U_c14_r0 L1_U_c12_m0 L1_U_c13_m1 L1_U_c14_m0 L1_U_c14_m1 mzi theta_rad=0.26091368584770835 phi_rad=1.1153301726113245 phi_target_rad=7.3985154797909107
MZ_L1_U_c14_r2 L1_U_c13_m2 L1_U_c13_m3 L1_U_c14_m2 L1_U_c14_m3 mzi theta_rad=1.0903634285565373 phi_rad=1.4208725198457142
MZ_L1_U_c14_r4 L1_U_c13_m4 L1_U_c13_m5 L1_U_c14_m4 L1_U_c14_m5 mzi theta_rad=0.89118441317935781 phi_rad=3.1985440433336398
MZ_L1_U_c14_r6 L1_U_c13_m6 L1_U_c13_m7 L1_U_c14_m6 L1_U_c14_m7 mzi theta_rad=0.61303902792304532 phi_rad=0.68988587053192241 phi_target_rad=6.9730711777115086
MZ_L1_U_c14_r8 L1_U_c13_m8 L1_U_c13_m9 L1_U_c14_m8 L1_U_c14_m9 mzi theta_rad=0.49054934037159548 phi_rad=5.4093141995608516
MZ_L1_U_c14_r10 L1_U_c13_m10 L1_U_c13_m11 L1_U_c14_m10 L1_U_c14_m11 mzi theta_rad=1.673248171487973 phi_rad=3.94822473468209 phi_target_rad=-2.3349605724974962
MZ_L1_U_c14_r12 L1_U_c13_m12 L1_U_c13_m13 L1_U_c14_m12 L1_U_c14_m13 mzi theta_rad=0.9052500722718424 phi_rad=1.6556450391117696
MZ_L1_U_c14_r14 L1_U_c13_m14 L1_U_c12_m15 L1_U_c14_m14 L1_U_c14_m15 mzi theta_rad=0.43428000410349377 phi_rad=5.6001189931065225
MZ_L1_U_c15_r1 L1_U_c14_m1 L1_U_c14_m2 L1_U_c15_m1 L1_U_c15_m2 mzi theta_rad=1.5350743871440915 phi_rad=6.0318248160581698
MZ_L1_U_c15_r3 L1_U_c14_m3 L1_U_c14_m4 L1_U_c15_m3 L1_U_c15_m4 mzi theta_rad=1.5865621457216601 phi_rad=3.031190829943613 phi_target_rad=-3.2519944772359732
MZ_L1_U_c15_r5 L1_U_c14_m5 L1_U_c14_m6 L1_U_c15_m5 L1_U_c15_m6 mzi theta_rad=1.9135206392764197 phi_rad=4.4150658024630189
MZ_L1_U_c15_r7 L1_U_c14_m7 L1_U_c14_m8 L1_U_c15_m7 L1_U_c15_m8 mzi theta_rad=0.61018955854775259 phi_rad=3.8139333213037263
MZ_L1_U_c15_r9 L1_U_c14_m9 L1_U_c14_m10 L1_U_c15_m9 L1_U_c15_m10 mzi theta_rad=2.2275984023028417 phi_rad=4.1423770503592916
MZ_L1_U_c15_r11 L1_U_c14_m11 L1_U_c14_m12 L1_U_c15_m11 L1_U_c15_m12 mzi theta_rad=1.4056723100370319 phi_rad=1.027817238054368 phi_target_rad=-5.2553680691252183
MZ_L1_U_c15_r13 L1_U_c14_m13 L1_U_c14_m14 L1_U_c15_m13 L1_U_c15_m14 mzi theta_rad=2.1009899024766736 phi_rad=0.0054337149762755388 phi_target_rad=6.2886190221558618
PS_L1_U_c16_r0 L1_U_c14_m0 out0 ps phase_rad=5.0770469743270645 phase_target_rad=-1.2061383328525221
PS_L1_U_c16_r1 L1_U_c15_m1 out1 ps phase_rad=5.6258710894356287 phase_target_rad=-0.65731421774395704
PS_L1_U_c16_r2 L1_U_c15_m2 out2 ps phase_rad=5.3160992825638296 phase_target_rad=-0.9670860246157571
PS_L1_U_c16_r3 L1_U_c15_m3 out3 ps phase_rad=0.75146800708248618
PS_L1_U_c16_r4 L1_U_c15_m4 out4 ps phase_rad=5.8359059019767408
PS_L1_U_c16_r5 L1_U_c15_m5 out5 ps phase_rad=2.3124533342349509
PS_L1_U_c16_r6 L1_U_c15_m6 out6 ps phase_rad=2.4853728325444862
PS_L1_U_c16_r7 L1_U_c15_m7 out7 ps phase_rad=3.216682550704796
PS_L1_U_c16_r8 L1_U_c15_m8 out8 ps phase_rad=3.427905102528392
PS_L1_U_c16_r9 L1_U_c15_m9 out9 ps phase_rad=0.066443759482719855
PS_L1_U_c16_r10 L1_U_c15_m10 out10 ps phase_rad=4.7868728991803193 phase_target_rad=-1.4963124079992669
PS_L1_U_c16_r11 L1_U_c15_m11 out11 ps phase_rad=6.0806643932929934 phase_target_rad=-0.20252091388659332
PS_L1_U_c16_r12 L1_U_c15_m12 out12 ps phase_rad=2.0996033689674256 phase_target_rad=-4.1835819382121606
PS_L1_U_c16_r13 L1_U_c15_m13 out13 ps phase_rad=4.0012990085312596
PS_L1_U_c16_r14 L1_U_c15_m14 out14 ps phase_rad=2.1877296661732037
PS_L1_U_c16_r15 L1_U_c14_m15 out15 ps phase_rad=3.7623436861581872
.ends layer_L1

.subckt complex16 in0 in1 in2 in3 in4 in5 in6 in7 in8 in9 in10 in11 in12 in13 in14 in15 out0 out1 out2 out3 out4 out5 out6 out7 out8 out9 out10 out11 out12 out13 out14 out15
X_L1 in0 in1 in2 in3 in4 in5 in6 in7 in8 in9 in10 in11 in12 in13 in14 in15 out0 out1 out2 out3 out4 out5 out6 out7 out8 out9 out10 out11 out12 out13 out14 out15 layer_L1
.ends complex16

complex16 in0 in1 in2 in3 in4 in5 in6 in7 in8 in9 in10 in11 in12 in13 in14 in15 out0 out1 out2 out3 out4 out5 out6 out7 out8 out9 out10 out11 out12 out13 out14 out15 complex16
.end

* PNL 1.0 photonic netlist, see optinc-netlist(5)
*! generator = optinc 0.1.0
*! spec = path="specs/chip16.yaml" sha256="ede084b087305dbeceb62646742fad9e863940996b78d5cbff37b0d793c60305"
*! mzi_convention = M = B.diag(exp(i.theta_rad),1).B.diag(exp(i.phi_rad),1), B = [[1,i],[i,1]]/sqrt(2), (in0,in1) -> (out0,out1) = modes (m,m+1)
*! units = phase:rad attenuation:dB loss:dB length:um wavelength:um power:dBm
*! circuit = seed=16 wavelength_um=1.55
*! layer.L1 = rows=16 cols=16 gain=1.0000000000000004 mesh=clements attenuators=none activation=none approximation_error=0 attenuators_capped=0
*! layer.L1.mzi = insertion_loss_dB=0.10000000000000001 phase_error_sigma_rad=0.01 splitter_error_sigma=0.02
*! layer.L1.phase_shifter = bits=8 range_lo_rad=0 range_hi_rad=6.2831853071795862 noise_sigma_rad=0 thermal_crosstalk=0.01
*! layer.L1.attenuator = insertion_loss_dB=0 max_attenuation_dB=60 bits=0
*! layer.L1.waveguide = loss_dB_cm=0
*! layer.L1.crossing = insertion_loss_dB=0 crosstalk_dB=0
*! layer.L1.detector = responsivity_A_W=1

.subckt layer_L1 in0 in1 in2 in3 in4 in5 in6 in7 in8 in9 in10 in11 in12 in13 in14 in15 out0 out1 out2 out3 out4 out5 out6 out7 out8 out9 out10 out11 out12 out13 out14 out15
MZ_L1_U_c0_r0 in0 in1 L1_U_c0_m0 L1_U_c0_m1 mzi theta_rad=0.44178646691106466 theta_code=18 theta_target_rad=0.43939431450461353 phi_rad=1.4235341711578751 phi_code=58 phi_target_rad=1.4313370801922534 bits=8
MZ_L1_U_c0_r2 in2 in3 L1_U_c0_m2 L1_U_c0_m3 mzi theta_rad=2.2334760271614935 theta_code=91 theta_target_rad=2.2411553386909575 phi_rad=0.58904862254808621 phi_code=24 phi_target_rad=0.58680519225239536 bits=8
MZ_L1_U_c0_r4 in4 in5 L1_U_c0_m4 L1_U_c0_m5 mzi theta_rad=1.521708941582556 theta_code=62 theta_target_rad=1.5252126075128238 phi_rad=4.614214209960009 phi_code=188 phi_target_rad=4.6152739334718458 bits=8
MZ_L1_U_c0_r6 in6 in7 L1_U_c0_m6 L1_U_c0_m7 mzi theta_rad=1.4235341711578751 theta_code=58 theta_target_rad=1.4228069068149547 phi_rad=2.1353012567368124 phi_code=87 phi_target_rad=2.1403681826544156 bits=8
MZ_L1_U_c0_r8 in8 in9 L1_U_c0_m8 L1_U_c0_m9 mzi theta_rad=2.3561944901923448 theta_code=96 theta_target_rad=2.359146112779964 phi_rad=3.9515345095934116 phi_code=161 phi_target_rad=3.9513500879290842 bits=8
MZ_L1_U_c0_r10 in10 in11 L1_U_c0_m10 L1_U_c0_m11 mzi theta_rad=0.95720401164064006 theta_code=39 theta_target_rad=0.96160963625386353 phi_rad=2.1598449493429825 phi_code=88 phi_target_rad=2.1650122455896148 bits=8
MZ_L1_U_c0_r12 in12 in13 L1_U_c0_m12 L1_U_c0_m13 mzi theta_rad=1.3989904785517047 theta_code=57 theta_target_rad=1.4097312418041492 phi_rad=6.1850105367549055 phi_code=252 phi_target_rad=6.1842228112710984 bits=8
MZ_L1_U_c0_r14 in14 in15 L1_U_c0_m14 L1_U_c0_m15 mzi theta_rad=1.6689710972195777 theta_code=68 theta_target_rad=1.675818239953359 phi_rad=1.5462526341887264 phi_code=63 phi_target_rad=1.5499255128956613 bits=8
MZ_L1_U_c1_r1 L1_U_c0_m1 L1_U_c0_m2 L1_U_c1_m1 L1_U_c1_m2 mzi theta_rad=1.521708941582556 theta_code=62 theta_target_rad=1.5102619891571971 phi_rad=5.4486997585697976 phi_code=222 phi_target_rad=5.437604550669719 bits=8
MZ_L1_U_c1_r3 L1_U_c0_m3 L1_U_c0_m4 L1_U_c1_m3 L1_U_c1_m4 mzi theta_rad=0.22089323345553233 theta_code=9 theta_target_rad=0.22713239257350093 phi_rad=1.8407769454627694 phi_code=75 phi_target_rad=1.8320376895256756 bits=8
MZ_L1_U_c1_r5 L1_U_c0_m5 L1_U_c0_m6 L1_U_c1_m5 L1_U_c1_m6 mzi theta_rad=1.4480778637640452 theta_code=59 theta_target_rad=1.4429258392572837 phi_rad=5.5959619142068187 phi_code=228 phi_target_rad=5.5926299582106767 bits=8
MZ_L1_U_c1_r7 L1_U_c0_m7 L1_U_c0_m8 L1_U_c1_m7 L1_U_c1_m8 mzi theta_rad=0.88357293382212931 theta_code=36 theta_target_rad=0.88914604770432337 phi_rad=5.6695929920253301 phi_code=231 phi_target_rad=5.6686008525969989 bits=8
MZ_L1_U_c1_r9 L1_U_c0_m9 L1_U_c0_m10 L1_U_c1_m9 L1_U_c1_m10 mzi theta_rad=0.58904862254808621 theta_code=24 theta_target_rad=0.59600706342184306 phi_rad=0.44178646691106466 phi_code=18 phi_target_rad=0.44651939434974874 bits=8
MZ_L1_U_c1_r11 L1_U_c0_m11 L1_U_c0_m12 L1_U_c1_m11 L1_U_c1_m12 mzi theta_rad=1.9634954084936207 theta_code=80 theta_target_rad=1.9575520355832736 phi_rad=2.2580197197676637 phi_code=92 phi_target_rad=2.2591899141720004 bits=8
MZ_L1_U_c1_r13 L1_U_c0_m13 L1_U_c0_m14 L1_U_c1_m13 L1_U_c1_m14 mzi theta_rad=0.73631077818510771 theta_code=30 theta_target_rad=0.74629598589350454 phi_rad=3.7551849687440497 phi_code=153 phi_target_rad=3.7518464342388511 bits=8
MZ_L1_U_c2_r0 L1_U_c0_m0 L1_U_c1_m1 L1_U_c2_m0 L1_U_c2_m1 mzi theta_rad=1.0308350894591509 theta_code=42 theta_target_rad=1.0376545406833881 phi_rad=0.51541754472957546 phi_code=21 phi_target_rad=0.51826599938318818 bits=8
MZ_L1_U_c2_r2 L1_U_c1_m2 L1_U_c1_m3 L1_U_c2_m2 L1_U_c2_m3 mzi theta_rad=0.68722339297276724 theta_code=28 theta_target_rad=0.6867855537494183 phi_rad=4.9332822138402221 phi_code=201 phi_target_rad=4.9414646079498112 bits=8
MZ_L1_U_c2_r4 L1_U_c1_m4 L1_U_c1_m5 L1_U_c2_m4 L1_U_c2_m5 mzi theta_rad=0.24543692606170259 theta_code=10 theta_target_rad=0.23894294688118745 phi_rad=0.9081166264282996 phi_code=37 phi_target_rad=0.91138432315778362 bits=8
MZ_L1_U_c2_r6 L1_U_c1_m6 L1_U_c1_m7 L1_U_c2_m6 L1_U_c2_m7 mzi theta_rad=1.3989904785517047 theta_code=57 theta_target_rad=1.4103102259126801 phi_rad=3.9269908169872414 phi_code=160 phi_target_rad=3.9247711842262452 bits=8
MZ_L1_U_c2_r8 L1_U_c1_m8 L1_U_c1_m9 L1_U_c2_m8 L1_U_c2_m9 mzi theta_rad=1.0553787820653211 theta_code=43 theta_target_rad=1.053796230957988 phi_rad=1.3499030933393643 phi_code=55 phi_target_rad=1.3536534437020362 bits=8
MZ_L1_U_c2_r10 L1_U_c1_m10 L1_U_c1_m11 L1_U_c2_m10 L1_U_c2_m11 mzi theta_rad=1.1044661672776617 theta_code=45 theta_target_rad=1.0973952193493619 phi_rad=4.7369326729908598 phi_code=193 phi_target_rad=4.7413981888628669 bits=8
MZ_L1_U_c2_r12 L1_U_c1_m12 L1_U_c1_m13 L1_U_c2_m12 L1_U_c2_m13 mzi theta_rad=0.73631077818510771 theta_code=30 theta_target_rad=0.74101441659349865 phi_rad=6.2340979219672459 phi_code=254 phi_target_rad=-0.039825758058800176 bits=8
MZ_L1_U_c2_r14 L1_U_c1_m14 L1_U_c0_m15 L1_U_c2_m14 L1_U_c2_m15 mzi theta_rad=1.5707963267948966 theta_code=64 theta_target_rad=1.5764481885020036 phi_rad=3.6815538909255388 phi_code=150 phi_target_rad=3.6861188558050388 bits=8
MZ_L1_U_c3_r1 L1_U_c2_m1 L1_U_c2_m2 L1_U_c3_m1 L1_U_c3_m2 mzi theta_rad=0.24543692606170259 theta_code=10 theta_target_rad=0.24716421760144458 phi_rad=1.7916895602504288 phi_code=73 phi_target_rad=8.0800397194612295 bits=8
MZ_L1_U_c3_r3 L1_U_c2_m3 L1_U_c2_m4 L1_U_c3_m3 L1_U_c3_m4 mzi theta_rad=0.34361169648638362 theta_code=14 theta_target_rad=0.33389466663315082 phi_rad=0.6135923151542565 phi_code=25 phi_target_rad=0.6025422456628946 bits=8
MZ_L1_U_c3_r5 L1_U_c2_m5 L1_U_c2_m6 L1_U_c3_m5 L1_U_c3_m6 mzi theta_rad=1.2517283229146832 theta_code=51 theta_target_rad=1.2418008259526525 phi_rad=5.0805443694772432 phi_code=207 phi_target_rad=-1.1955069940699019 bits=8
MZ_L1_U_c3_r7 L1_U_c2_m7 L1_U_c2_m8 L1_U_c3_m7 L1_U_c3_m8 mzi theta_rad=0.24543692606170259 theta_code=10 theta_target_rad=0.24671630617710338 phi_rad=5.5714182216006485 phi_code=227 phi_target_rad=5.574388831992211 bits=8
MZ_L1_U_c3_r9 L1_U_c2_m9 L1_U_c2_m10 L1_U_c3_m9 L1_U_c3_m10 mzi theta_rad=0.44178646691106466 theta_code=18 theta_target_rad=0.43575643526717478 phi_rad=0.44178646691106466 phi_code=18 phi_target_rad=0.44081223814202675 bits=8
MZ_L1_U_c3_r11 L1_U_c2_m11 L1_U_c2_m12 L1_U_c3_m11 L1_U_c3_m12 mzi theta_rad=1.0799224746714913 theta_code=44 theta_target_rad=1.089235425642705 phi_rad=6.2586416145734161 phi_code=255 phi_target_rad=-0.017686279670083405 bits=8
MZ_L1_U_c3_r13 L1_U_c2_m13 L1_U_c2_m14 L1_U_c3_m13 L1_U_c3_m14 mzi theta_rad=0.63813600776042678 theta_code=26 theta_target_rad=0.63186093380158281 phi_rad=1.3989904785517047 phi_code=57 phi_target_rad=7.6877981003601805 bits=8
MZ_L1_U_c4_r0 L1_U_c2_m0 L1_U_c3_m1 L1_U_c4_m0 L1_U_c4_m1 mzi theta_rad=0.53996123733574564 theta_code=22 theta_target_rad=0.53768651059014116 phi_rad=0.17180584824319181 phi_code=7 phi_target_rad=6.4549350993198775 bits=8
MZ_L1_U_c4_r2 L1_U_c3_m2 L1_U_c3_m3 L1_U_c4_m2 L1_U_c4_m3 mzi theta_rad=0.19634954084936207 theta_code=8 theta_target_rad=0.20356387622544325 phi_rad=3.043417883165112 phi_code=124 phi_target_rad=3.0381384250138397 bits=8
MZ_L1_U_c4_r4 L1_U_c3_m4 L1_U_c3_m5 L1_U_c4_m4 L1_U_c4_m5 mzi theta_rad=0.9081166264282996 theta_code=37 theta_target_rad=0.91091288751806854 phi_rad=0.26998061866787282 phi_code=11 phi_target_rad=6.5582023740890101 bits=8
MZ_L1_U_c4_r6 L1_U_c3_m6 L1_U_c3_m7 L1_U_c4_m6 L1_U_c4_m7 mzi theta_rad=0.46633015951723489 theta_code=19 theta_target_rad=0.46699641359417088 phi_rad=5.8904862254808616 phi_code=240 phi_target_rad=-0.39515523801797148 bits=8
MZ_L1_U_c4_r8 L1_U_c3_m8 L1_U_c3_m9 L1_U_c4_m8 L1_U_c4_m9 mzi theta_rad=0.39269908169872414 theta_code=16 theta_target_rad=0.38577471206390435 phi_rad=4.614214209960009 phi_code=188 phi_target_rad=4.6229220839027922 bits=8
MZ_L1_U_c4_r10 L1_U_c3_m10 L1_U_c3_m11 L1_U_c4_m10 L1_U_c4_m11 mzi theta_rad=0.56450492994191592 theta_code=23 theta_target_rad=0.55589182497068768 phi_rad=6.0377483811178836 phi_code=246 phi_target_rad=-0.2346425388168365 bits=8
MZ_L1_U_c4_r12 L1_U_c3_m12 L1_U_c3_m13 L1_U_c4_m12 L1_U_c4_m13 mzi theta_rad=0.49087385212340517 theta_code=20 theta_target_rad=0.50207313048738289 phi_rad=2.1107575641306422 phi_code=86 phi_target_rad=-4.1723883861168067 bits=8
MZ_L1_U_c4_r14 L1_U_c3_m14 L1_U_c2_m15 L1_U_c4_m14 L1_U_c4_m15 mzi theta_rad=0.88357293382212931 theta_code=36 theta_target_rad=0.88935595427471315 phi_rad=1.7671458676442586 phi_code=72 phi_target_rad=1.7548826287631281 bits=8
MZ_L1_U_c5_r1 L1_U_c4_m1 L1_U_c4_m2 L1_U_c5_m1 L1_U_c5_m2 mzi theta_rad=0.58904862254808621 theta_code=24 theta_target_rad=0.59880266481346611 phi_rad=4.614214209960009 phi_code=188 phi_target_rad=4.6100205735613748 bits=8
MZ_L1_U_c5_r3 L1_U_c4_m3 L1_U_c4_m4 L1_U_c5_m3 L1_U_c5_m4 mzi theta_rad=1.227184630308513 theta_code=50 theta_target_rad=1.2380059168786586 phi_rad=1.6444274046134073 phi_code=67 phi_target_rad=1.6394979003696726 bits=8
MZ_L1_U_c5_r5 L1_U_c4_m5 L1_U_c4_m6 L1_U_c5_m5 L1_U_c5_m6 mzi theta_rad=0.36815538909255385 theta_code=15 theta_target_rad=0.3623957763017871 phi_rad=4.1478840504427739 phi_code=169 phi_target_rad=4.1402544818098015 bits=8
MZ_L1_U_c5_r7 L1_U_c4_m7 L1_U_c4_m8 L1_U_c5_m7 L1_U_c5_m8 mzi theta_rad=0.49087385212340517 theta_code=20 theta_target_rad=0.48347844542423335 phi_rad=3.043417883165112 phi_code=124 phi_target_rad=3.0432912373747993 bits=8
MZ_L1_U_c5_r9 L1_U_c4_m9 L1_U_c4_m10 L1_U_c5_m9 L1_U_c5_m10 mzi theta_rad=0.53996123733574564 theta_code=22 theta_target_rad=0.54596330965546658 phi_rad=3.7551849687440497 phi_code=153 phi_target_rad=3.7461227951461038 bits=8
MZ_L1_U_c5_r11 L1_U_c4_m11 L1_U_c4_m12 L1_U_c5_m11 L1_U_c5_m12 mzi theta_rad=1.0553787820653211 theta_code=43 theta_target_rad=1.0627798590317354 phi_rad=2.0371264863121317 phi_code=83 phi_target_rad=2.0480050456873347 bits=8
MZ_L1_U_c5_r13 L1_U_c4_m13 L1_U_c4_m14 L1_U_c5_m13 L1_U_c5_m14 mzi theta_rad=1.1780972450961724 theta_code=48 theta_target_rad=1.1821360617806731 phi_rad=1.4480778637640452 phi_code=59 phi_target_rad=1.4414740285146328 bits=8
MZ_L1_U_c6_r0 L1_U_c4_m0 L1_U_c5_m1 L1_U_c6_m0 L1_U_c6_m1 mzi theta_rad=0.6135923151542565 theta_code=25 theta_target_rad=0.61037455141781383 phi_rad=2.0616701789183018 phi_code=84 phi_target_rad=2.0662043469098328 bits=8
MZ_L1_U_c6_r2 L1_U_c5_m2 L1_U_c5_m3 L1_U_c6_m2 L1_U_c6_m3 mzi theta_rad=0.71176708557893753 theta_code=29 theta_target_rad=0.70127360874921063 phi_rad=1.6689710972195777 phi_code=68 phi_target_rad=7.9569430452846071 bits=8
MZ_L1_U_c6_r4 L1_U_c5_m4 L1_U_c5_m5 L1_U_c6_m4 L1_U_c6_m5 mzi theta_rad=0.46633015951723489 theta_code=19 theta_target_rad=0.46831455749926887 phi_rad=5.2523502177204353 phi_code=214 phi_target_rad=-1.0257139522730734 bits=8
MZ_L1_U_c6_r6 L1_U_c5_m6 L1_U_c5_m7 L1_U_c6_m6 L1_U_c6_m7 mzi theta_rad=0.44178646691106466 theta_code=18 theta_target_rad=0.4447130075516128 phi_rad=0.76085447079127799 phi_code=31 phi_target_rad=7.042420554444881 bits=8
MZ_L1_U_c6_r8 L1_U_c5_m8 L1_U_c5_m9 L1_U_c6_m8 L1_U_c6_m9 mzi theta_rad=0.49087385212340517 theta_code=20 theta_target_rad=0.49261283128334643 phi_rad=4.614214209960009 phi_code=188 phi_target_rad=4.6262894838038582 bits=8
MZ_L1_U_c6_r10 L1_U_c5_m10 L1_U_c5_m11 L1_U_c6_m10 L1_U_c6_m11 mzi theta_rad=0.41724277430489443 theta_code=17 theta_target_rad=0.40852814396632198 phi_rad=3.877903431774901 phi_code=158 phi_target_rad=3.8714947534681681 bits=8
MZ_L1_U_c6_r12 L1_U_c5_m12 L1_U_c5_m13 L1_U_c6_m12 L1_U_c6_m13 mzi theta_rad=0.53996123733574564 theta_code=22 theta_target_rad=0.54312952286518179 phi_rad=1.8407769454627694 phi_code=75 phi_target_rad=1.8438660893558403 bits=8
MZ_L1_U_c6_r14 L1_U_c5_m14 L1_U_c4_m15 L1_U_c6_m14 L1_U_c6_m15 mzi theta_rad=1.4971652489763858 theta_code=61 theta_target_rad=1.5038126331678412 phi_rad=5.6695929920253301 phi_code=231 phi_target_rad=-0.60820602847643501 bits=8
MZ_L1_U_c7_r1 L1_U_c6_m1 L1_U_c6_m2 L1_U_c7_m1 L1_U_c7_m2 mzi theta_rad=1.1290098598838318 theta_code=46 theta_target_rad=1.1379826094881307 phi_rad=4.5160394395353274 phi_code=184 phi_target_rad=4.5258724552800897 bits=8
MZ_L1_U_c7_r3 L1_U_c6_m3 L1_U_c6_m4 L1_U_c7_m3 L1_U_c7_m4 mzi theta_rad=0.41724277430489443 theta_code=17 theta_target_rad=0.4080818080898676 phi_rad=1.4235341711578751 phi_code=58 phi_target_rad=1.4290824970518634 bits=8
MZ_L1_U_c7_r5 L1_U_c6_m5 L1_U_c6_m6 L1_U_c7_m5 L1_U_c7_m6 mzi theta_rad=1.0799224746714913 theta_code=44 theta_target_rad=1.0689120958879523 phi_rad=2.5770877236478773 phi_code=105 phi_target_rad=2.5734344366167639 bits=8
MZ_L1_U_c7_r7 L1_U_c6_m7 L1_U_c6_m8 L1_U_c7_m7 L1_U_c7_m8 mzi theta_rad=0.76085447079127799 theta_code=31 theta_target_rad=0.76471676820655299 phi_rad=2.4298255680108558 phi_code=99 phi_target_rad=2.4310069343779639 bits=8
MZ_L1_U_c7_r9 L1_U_c6_m9 L1_U_c6_m10 L1_U_c7_m9 L1_U_c7_m10 mzi theta_rad=0.44178646691106466 theta_code=18 theta_target_rad=0.44014594256334449 phi_rad=2.5525440310417071 phi_code=104 phi_target_rad=2.5595780090255276 bits=8
MZ_L1_U_c7_r11 L1_U_c6_m11 L1_U_c6_m12 L1_U_c7_m11 L1_U_c7_m12 mzi theta_rad=1.1044661672776617 theta_code=45 theta_target_rad=1.1041747033286047 phi_rad=2.5770877236478773 phi_code=105 phi_target_rad=2.5884119819324245 bits=8
MZ_L1_U_c7_r13 L1_U_c6_m13 L1_U_c6_m14 L1_U_c7_m13 L1_U_c7_m14 mzi theta_rad=0.51541754472957546 theta_code=21 theta_target_rad=0.51150702684830573 phi_rad=1.6935147898257479 phi_code=69 phi_target_rad=1.7015423895822721 bits=8
MZ_L1_U_c8_r0 L1_U_c6_m0 L1_U_c7_m1 L1_U_c8_m0 L1_U_c8_m1 mzi theta_rad=1.8407769454627694 theta_code=75 theta_target_rad=1.8501359832160127 phi_rad=4.2706025134736247 phi_code=174 phi_target_rad=4.268870087691198 bits=8
MZ_L1_U_c8_r2 L1_U_c7_m2 L1_U_c7_m3 L1_U_c8_m2 L1_U_c8_m3 mzi theta_rad=1.0308350894591509 theta_code=42 theta_target_rad=1.020969560964057 phi_rad=2.380738182798515 phi_code=97 phi_target_rad=8.6587904425911031 bits=8
MZ_L1_U_c8_r4 L1_U_c7_m4 L1_U_c7_m5 L1_U_c8_m4 L1_U_c8_m5 mzi theta_rad=0.66267970036659696 theta_code=27 theta_target_rad=0.66513243562772395 phi_rad=2.5034566458293663 phi_code=102 phi_target_rad=-3.7701917552250137 bits=8
MZ_L1_U_c8_r6 L1_U_c7_m6 L1_U_c7_m7 L1_U_c8_m6 L1_U_c8_m7 mzi theta_rad=0.44178646691106466 theta_code=18 theta_target_rad=0.43555867412960847 phi_rad=3.877903431774901 phi_code=158 phi_target_rad=3.8671799550287269 bits=8
MZ_L1_U_c8_r8 L1_U_c7_m8 L1_U_c7_m9 L1_U_c8_m8 L1_U_c8_m9 mzi theta_rad=1.0308350894591509 theta_code=42 theta_target_rad=1.0231032668038758 phi_rad=2.9452431127404308 phi_code=120 phi_target_rad=2.9403071945167234 bits=8
MZ_L1_U_c8_r10 L1_U_c7_m10 L1_U_c7_m11 L1_U_c8_m10 L1_U_c8_m11 mzi theta_rad=0.6135923151542565 theta_code=25 theta_target_rad=0.62159670287133828 phi_rad=2.5525440310417071 phi_code=104 phi_target_rad=2.5488061343150106 bits=8
MZ_L1_U_c8_r12 L1_U_c7_m12 L1_U_c7_m13 L1_U_c8_m12 L1_U_c8_m13 mzi theta_rad=0.58904862254808621 theta_code=24 theta_target_rad=0.58616901119884668 phi_rad=3.7551849687440497 phi_code=153 phi_target_rad=3.7597853695386689 bits=8
MZ_L1_U_c8_r14 L1_U_c7_m14 L1_U_c6_m15 L1_U_c8_m14 L1_U_c8_m15 mzi theta_rad=1.2517283229146832 theta_code=51 theta_target_rad=1.248628324374822 phi_rad=1.4971652489763858 phi_code=61 phi_target_rad=1.4932710953723287 bits=8
MZ_L1_U_c9_r1 L1_U_c8_m1 L1_U_c8_m2 L1_U_c9_m1 L1_U_c9_m2 mzi theta_rad=0.71176708557893753 theta_code=29 theta_target_rad=0.70862131237077275 phi_rad=1.1044661672776617 phi_code=45 phi_target_rad=7.3954745893179004 bits=8
MZ_L1_U_c9_r3 L1_U_c8_m3 L1_U_c8_m4 L1_U_c9_m3 L1_U_c9_m4 mzi theta_rad=0.46633015951723489 theta_code=19 theta_target_rad=0.46626028982104506 phi_rad=4.2215151282612844 phi_code=172 phi_target_rad=4.2311981333331783 bits=8
MZ_L1_U_c9_r5 L1_U_c8_m5 L1_U_c8_m6 L1_U_c9_m5 L1_U_c9_m6 mzi theta_rad=0.17180584824319181 theta_code=7 theta_target_rad=0.16153919761199331 phi_rad=0.17180584824319181 phi_code=7 phi_target_rad=0.16469849629330646 bits=8
MZ_L1_U_c9_r7 L1_U_c8_m7 L1_U_c8_m8 L1_U_c9_m7 L1_U_c9_m8 mzi theta_rad=0.36815538909255385 theta_code=15 theta_target_rad=0.37787963430100646 phi_rad=1.1535535524900022 phi_code=47 phi_target_rad=1.1480936796573147 bits=8
MZ_L1_U_c9_r9 L1_U_c8_m9 L1_U_c8_m10 L1_U_c9_m9 L1_U_c9_m10 mzi theta_rad=0.2945243112740431 theta_code=12 theta_target_rad=0.28625313781977502 phi_rad=3.9269908169872414 phi_code=160 phi_target_rad=3.9205953563200704 bits=8
MZ_L1_U_c9_r11 L1_U_c8_m11 L1_U_c8_m12 L1_U_c9_m11 L1_U_c9_m12 mzi theta_rad=0.39269908169872414 theta_code=16 theta_target_rad=0.38492227590351957 phi_rad=2.3071071049800045 phi_code=94 phi_target_rad=2.3024835395656238 bits=8
MZ_L1_U_c9_r13 L1_U_c8_m13 L1_U_c8_m14 L1_U_c9_m13 L1_U_c9_m14 mzi theta_rad=0.83448554860978885 theta_code=34 theta_target_rad=0.82872452735941016 phi_rad=3.9515345095934116 phi_code=161 phi_target_rad=3.9555916362971217 bits=8
MZ_L1_U_c10_r0 L1_U_c8_m0 L1_U_c9_m1 L1_U_c10_m0 L1_U_c10_m1 mzi theta_rad=0.95720401164064006 theta_code=39 theta_target_rad=0.94688271021171699 phi_rad=4.4914957469291572 phi_code=183 phi_target_rad=4.4838598460241288 bits=8
MZ_L1_U_c10_r2 L1_U_c9_m2 L1_U_c9_m3 L1_U_c10_m2 L1_U_c10_m3 mzi theta_rad=0.73631077818510771 theta_code=30 theta_target_rad=0.73474357365833054 phi_rad=0.36815538909255385 phi_code=15 phi_target_rad=6.655315399967078 bits=8
MZ_L1_U_c10_r4 L1_U_c9_m4 L1_U_c9_m5 L1_U_c10_m4 L1_U_c10_m5 mzi theta_rad=0.51541754472957546 theta_code=21 theta_target_rad=0.51633887749674479 phi_rad=2.1107575641306422 phi_code=86 phi_target_rad=2.1046046240561807 bits=8
MZ_L1_U_c10_r6 L1_U_c9_m6 L1_U_c9_m7 L1_U_c10_m6 L1_U_c10_m7 mzi theta_rad=0.19634954084936207 theta_code=8 theta_target_rad=0.19242551649480122 phi_rad=3.6324665057131984 phi_code=148 phi_target_rad=3.6228969163756481 bits=8
MZ_L1_U_c10_r8 L1_U_c9_m8 L1_U_c9_m9 L1_U_c10_m8 L1_U_c10_m9 mzi theta_rad=0.95720401164064006 theta_code=39 theta_target_rad=0.95556574243666592 phi_rad=2.9943304979527716 phi_code=122 phi_target_rad=-3.2798273265472737 bits=8
MZ_L1_U_c10_r10 L1_U_c9_m10 L1_U_c9_m11 L1_U_c10_m10 L1_U_c10_m11 mzi theta_rad=0.53996123733574564 theta_code=22 theta_target_rad=0.54342477901743269 phi_rad=1.6689710972195777 phi_code=68 phi_target_rad=1.6695987834973738 bits=8
MZ_L1_U_c10_r12 L1_U_c9_m12 L1_U_c9_m13 L1_U_c10_m12 L1_U_c10_m13 mzi theta_rad=0.44178646691106466 theta_code=18 theta_target_rad=0.43782911575710814 phi_rad=3.9515345095934116 phi_code=161 phi_target_rad=3.9480176684544004 bits=8
MZ_L1_U_c10_r14 L1_U_c9_m14 L1_U_c8_m15 L1_U_c10_m14 L1_U_c10_m15 mzi theta_rad=1.1780972450961724 theta_code=48 theta_target_rad=1.1851621224112925 phi_rad=0.76085447079127799 phi_code=31 phi_target_rad=7.0490205112489885 bits=8
MZ_L1_U_c11_r1 L1_U_c10_m1 L1_U_c10_m2 L1_U_c11_m1 L1_U_c11_m2 mzi theta_rad=0.17180584824319181 theta_code=7 theta_target_rad=0.17484953216618759 phi_rad=3.7551849687440497 phi_code=153 phi_target_rad=3.7664009753594243 bits=8
MZ_L1_U_c11_r3 L1_U_c10_m3 L1_U_c10_m4 L1_U_c11_m3 L1_U_c11_m4 mzi theta_rad=0.14726215563702155 theta_code=6 theta_target_rad=0.14037870633253524 phi_rad=5.9886609959055432 phi_code=244 phi_target_rad=-0.29644251777257313 bits=8
MZ_L1_U_c11_r5 L1_U_c10_m5 L1_U_c10_m6 L1_U_c11_m5 L1_U_c11_m6 mzi theta_rad=0.22089323345553233 theta_code=9 theta_target_rad=0.21719723927589296 phi_rad=0.66267970036659696 phi_code=27 phi_target_rad=6.9454470238582431 bits=8
MZ_L1_U_c11_r7 L1_U_c10_m7 L1_U_c10_m8 L1_U_c11_m7 L1_U_c11_m8 mzi theta_rad=0.24543692606170259 theta_code=10 theta_target_rad=0.25322067907440804 phi_rad=1.227184630308513 phi_code=50 phi_target_rad=7.5172576719088431 bits=8
MZ_L1_U_c11_r9 L1_U_c10_m9 L1_U_c10_m10 L1_U_c11_m9 L1_U_c11_m10 mzi theta_rad=1.0553787820653211 theta_code=43 theta_target_rad=1.052913535020565 phi_rad=2.9943304979527716 phi_code=122 phi_target_rad=-3.2863499925895656 bits=8
MZ_L1_U_c11_r11 L1_U_c10_m11 L1_U_c10_m12 L1_U_c11_m11 L1_U_c11_m12 mzi theta_rad=0.95720401164064006 theta_code=39 theta_target_rad=0.9543528752096968 phi_rad=0.49087385212340517 phi_code=20 phi_target_rad=6.7779693405104346 bits=8
MZ_L1_U_c11_r13 L1_U_c10_m13 L1_U_c10_m14 L1_U_c11_m13 L1_U_c11_m14 mzi theta_rad=1.0308350894591509 theta_code=42 theta_target_rad=1.0396428670522604 phi_rad=2.086213871524472 phi_code=85 phi_target_rad=2.0752459489632211 bits=8
MZ_L1_U_c12_r0 L1_U_c10_m0 L1_U_c11_m1 L1_U_c12_m0 L1_U_c12_m1 mzi theta_rad=0.78539816339744828 theta_code=32 theta_target_rad=0.79041476235167218 phi_rad=5.5959619142068187 phi_code=228 phi_target_rad=5.5923843939007964 bits=8
MZ_L1_U_c12_r2 L1_U_c11_m2 L1_U_c11_m3 L1_U_c12_m2 L1_U_c12_m3 mzi theta_rad=0.19634954084936207 theta_code=8 theta_target_rad=0.19517443834107695 phi_rad=5.4241560659636274 phi_code=221 phi_target_rad=5.4190194438151416 bits=8
MZ_L1_U_c12_r4 L1_U_c11_m4 L1_U_c11_m5 L1_U_c12_m4 L1_U_c12_m5 mzi theta_rad=1.5953400194010667 theta_code=65 theta_target_rad=1.6038815377660618 phi_rad=3.3379421944391554 phi_code=136 phi_target_rad=3.3258488035394027 bits=8
MZ_L1_U_c12_r6 L1_U_c11_m6 L1_U_c11_m7 L1_U_c12_m6 L1_U_c12_m7 mzi theta_rad=0.76085447079127799 theta_code=31 theta_target_rad=0.75204490571788796 phi_rad=1.8898643306751099 phi_code=77 phi_target_rad=8.1760992236181416 bits=8
MZ_L1_U_c12_r8 L1_U_c11_m8 L1_U_c11_m9 L1_U_c12_m8 L1_U_c12_m9 mzi theta_rad=0.53996123733574564 theta_code=22 theta_target_rad=0.55140164162816774 phi_rad=1.9389517158874505 phi_code=79 phi_target_rad=1.9333963629320565 bits=8
MZ_L1_U_c12_r10 L1_U_c11_m10 L1_U_c11_m11 L1_U_c12_m10 L1_U_c12_m11 mzi theta_rad=0.71176708557893753 theta_code=29 theta_target_rad=0.70094706033491239 phi_rad=5.203262832508095 phi_code=212 phi_target_rad=-1.0758924677011095 bits=8
MZ_L1_U_c12_r12 L1_U_c11_m12 L1_U_c11_m13 L1_U_c12_m12 L1_U_c12_m13 mzi theta_rad=0.46633015951723489 theta_code=19 theta_target_rad=0.46518456594510349 phi_rad=5.1296317546895844 phi_code=209 phi_target_rad=5.1291846538450425 bits=8
MZ_L1_U_c12_r14 L1_U_c11_m14 L1_U_c10_m15 L1_U_c12_m14 L1_U_c12_m15 mzi theta_rad=1.1290098598838318 theta_code=46 theta_target_rad=1.140281427190025 phi_rad=4.76147636559703 phi_code=194 phi_target_rad=4.7526483217893274 bits=8
MZ_L1_U_c13_r1 L1_U_c12_m1 L1_U_c12_m2 L1_U_c13_m1 L1_U_c13_m2 mzi theta_rad=1.0308350894591509 theta_code=42 theta_target_rad=1.020713515327949 phi_rad=3.9024471243810712 phi_code=159 phi_target_rad=10.188272132495889 bits=8
MZ_L1_U_c13_r3 L1_U_c12_m3 L1_U_c12_m4 L1_U_c13_m3 L1_U_c13_m4 mzi theta_rad=0.78539816339744828 theta_code=32 theta_target_rad=0.78792915153157939 phi_rad=0.98174770424681035 phi_code=40 phi_target_rad=0.98412621779989307 bits=8
MZ_L1_U_c13_r5 L1_U_c12_m5 L1_U_c12_m6 L1_U_c13_m5 L1_U_c13_m6 mzi theta_rad=0.78539816339744828 theta_code=32 theta_target_rad=0.79637588921859992 phi_rad=0 phi_code=0 phi_target_rad=6.291872733396267 bits=8
MZ_L1_U_c13_r7 L1_U_c12_m7 L1_U_c12_m8 L1_U_c13_m7 L1_U_c13_m8 mzi theta_rad=0.76085447079127799 theta_code=31 theta_target_rad=0.75854132875354674 phi_rad=1.7916895602504288 phi_code=73 phi_target_rad=1.7943609701643397 bits=8
MZ_L1_U_c13_r9 L1_U_c12_m9 L1_U_c12_m10 L1_U_c13_m9 L1_U_c13_m10 mzi theta_rad=1.0308350894591509 theta_code=42 theta_target_rad=1.0296828738947004 phi_rad=4.3687772838983063 phi_code=178 phi_target_rad=-1.922030365529162 bits=8
MZ_L1_U_c13_r11 L1_U_c12_m11 L1_U_c12_m12 L1_U_c13_m11 L1_U_c13_m12 mzi theta_rad=0.63813600776042678 theta_code=26 theta_target_rad=0.6478301867751064 phi_rad=4.7369326729908598 phi_code=193 phi_target_rad=4.739222807359381 bits=8
MZ_L1_U_c13_r13 L1_U_c12_m13 L1_U_c12_m14 L1_U_c13_m13 L1_U_c13_m14 mzi theta_rad=0.63813600776042678 theta_code=26 theta_target_rad=0.64539874877390258 phi_rad=5.7432240698438406 phi_code=234 phi_target_rad=5.753291221690886 bits=8
MZ_L1_U_c14_r0 L1_U_c12_m0 L1_U_c13_m1 L1_U_c14_m0 L1_U_c14_m1 mzi theta_rad=0.26998061866787282 theta_code=11 theta_target_rad=0.26091368584770835 phi_rad=1.1044661672776617 phi_code=45 phi_target_rad=7.3985154797909107 bits=8
MZ_L1_U_c14_r2 L1_U_c13_m2 L1_U_c13_m3 L1_U_c14_m2 L1_U_c14_m3 mzi theta_rad=1.0799224746714913 theta_code=44 theta_target_rad=1.0903634285565373 phi_rad=1.4235341711578751 phi_code=58 phi_target_rad=1.4208725198457142 bits=8
MZ_L1_U_c14_r4 L1_U_c13_m4 L1_U_c13_m5 L1_U_c14_m4 L1_U_c14_m5 mzi theta_rad=0.88357293382212931 theta_code=36 theta_target_rad=0.89118441317935781 phi_rad=3.1906800388021335 phi_code=130 phi_target_rad=3.1985440433336398 bits=8
MZ_L1_U_c14_r6 L1_U_c13_m6 L1_U_c13_m7 L1_U_c14_m6 L1_U_c14_m7 mzi theta_rad=0.6135923151542565 theta_code=25 theta_target_rad=0.61303902792304532 phi_rad=0.68722339297276724 phi_code=28 phi_target_rad=6.9730711777115086 bits=8
MZ_L1_U_c14_r8 L1_U_c13_m8 L1_U_c13_m9 L1_U_c14_m8 L1_U_c14_m9 mzi theta_rad=0.49087385212340517 theta_code=20 theta_target_rad=0.49054934037159548 phi_rad=5.3996123733574573 phi_code=220 phi_target_rad=5.4093141995608516 bits=8
MZ_L1_U_c14_r10 L1_U_c13_m10 L1_U_c13_m11 L1_U_c14_m10 L1_U_c14_m11 mzi theta_rad=1.6689710972195777 theta_code=68 theta_target_rad=1.673248171487973 phi_rad=3.9515345095934116 phi_code=161 phi_target_rad=-2.3349605724974962 bits=8
MZ_L1_U_c14_r12 L1_U_c13_m12 L1_U_c13_m13 L1_U_c14_m12 L1_U_c14_m13 mzi theta_rad=0.9081166264282996 theta_code=37 theta_target_rad=0.9052500722718424 phi_rad=1.6444274046134073 phi_code=67 phi_target_rad=1.6556450391117696 bits=8
MZ_L1_U_c14_r14 L1_U_c13_m14 L1_U_c12_m15 L1_U_c14_m14 L1_U_c14_m15 mzi theta_rad=0.44178646691106466 theta_code=18 theta_target_rad=0.43428000410349377 phi_rad=5.5959619142068187 phi_code=228 phi_target_rad=5.6001189931065225 bits=8
MZ_L1_U_c15_r1 L1_U_c14_m1 L1_U_c14_m2 L1_U_c15_m1 L1_U_c15_m2 mzi theta_rad=1.5462526341887264 theta_code=63 theta_target_rad=1.5350743871440915 phi_rad=6.0377483811178836 phi_code=246 phi_target_rad=6.0318248160581698 bits=8
MZ_L1_U_c15_r3 L1_U_c14_m3 L1_U_c14_m4 L1_U_c15_m3 L1_U_c15_m4 mzi theta_rad=1.5953400194010667 theta_code=65 theta_target_rad=1.5865621457216601 phi_rad=3.043417883165112 phi_code=124 phi_target_rad=-3.2519944772359732 bits=8
MZ_L1_U_c15_r5 L1_U_c14_m5 L1_U_c14_m6 L1_U_c15_m5 L1_U_c15_m6 mzi theta_rad=1.9144080232812801 theta_code=78 theta_target_rad=1.9135206392764197 phi_rad=4.4178646691106467 phi_code=180 phi_target_rad=4.4150658024630189 bits=8
MZ_L1_U_c15_r7 L1_U_c14_m7 L1_U_c14_m8 L1_U_c15_m7 L1_U_c15_m8 mzi theta_rad=0.6135923151542565 theta_code=25 theta_target_rad=0.61018955854775259 phi_rad=3.8042723539563901 phi_code=155 phi_target_rad=3.8139333213037263 bits=8
MZ_L1_U_c15_r9 L1_U_c14_m9 L1_U_c14_m10 L1_U_c15_m9 L1_U_c15_m10 mzi theta_rad=2.2334760271614935 theta_code=91 theta_target_rad=2.2275984023028417 phi_rad=4.1478840504427739 phi_code=169 phi_target_rad=4.1423770503592916 bits=8
MZ_L1_U_c15_r11 L1_U_c14_m11 L1_U_c14_m12 L1_U_c15_m11 L1_U_c15_m12 mzi theta_rad=1.3989904785517047 theta_code=57 theta_target_rad=1.4056723100370319 phi_rad=1.0308350894591509 phi_code=42 phi_target_rad=-5.2553680691252183 bits=8
MZ_L1_U_c15_r13 L1_U_c14_m13 L1_U_c14_m14 L1_U_c15_m13 L1_U_c15_m14 mzi theta_rad=2.1107575641306422 theta_code=86 theta_target_rad=2.1009899024766736 phi_rad=0 phi_code=0 phi_target_rad=6.2886190221558618 bits=8
PS_L1_U_c16_r0 L1_U_c14_m0 out0 ps phase_rad=5.0805443694772432 code=207 phase_target_rad=-1.2061383328525221 bits=8
PS_L1_U_c16_r1 L1_U_c15_m1 out1 ps phase_rad=5.6205056068129888 code=229 phase_target_rad=-0.65731421774395704 bits=8
PS_L1_U_c16_r2 L1_U_c15_m2 out2 ps phase_rad=5.3259812955389458 code=217 phase_target_rad=-0.9670860246157571 bits=8
PS_L1_U_c16_r3 L1_U_c15_m3 out3 ps phase_rad=0.76085447079127799 code=31 phase_target_rad=0.75146800708248618 bits=8
PS_L1_U_c16_r4 L1_U_c15_m4 out4 ps phase_rad=5.8413988402685213 code=238 phase_target_rad=5.8359059019767408 bits=8
PS_L1_U_c16_r5 L1_U_c15_m5 out5 ps phase_rad=2.3071071049800045 code=94 phase_target_rad=2.3124533342349509 bits=8
PS_L1_U_c16_r6 L1_U_c15_m6 out6 ps phase_rad=2.4789129532231962 code=101 phase_target_rad=2.4853728325444862 bits=8
PS_L1_U_c16_r7 L1_U_c15_m7 out7 ps phase_rad=3.2152237314083041 code=131 phase_target_rad=3.216682550704796 bits=8
PS_L1_U_c16_r8 L1_U_c15_m8 out8 ps phase_rad=3.4361169648638361 code=140 phase_target_rad=3.427905102528392 bits=8
PS_L1_U_c16_r9 L1_U_c15_m9 out9 ps phase_rad=0.073631077818510776 code=3 phase_target_rad=0.066443759482719855 bits=8
PS_L1_U_c16_r10 L1_U_c15_m10 out10 ps phase_rad=4.7860200582032002 code=195 phase_target_rad=-1.4963124079992669 bits=8
PS_L1_U_c16_r11 L1_U_c15_m11 out11 ps phase_rad=6.0868357663302239 code=248 phase_target_rad=-0.20252091388659332 bits=8
PS_L1_U_c16_r12 L1_U_c15_m12 out12 ps phase_rad=2.1107575641306422 code=86 phase_target_rad=-4.1835819382121606 bits=8
PS_L1_U_c16_r13 L1_U_c15_m13 out13 ps phase_rad=4.0006218948057519 code=163 phase_target_rad=4.0012990085312596 bits=8
PS_L1_U_c16_r14 L1_U_c15_m14 out14 ps phase_rad=2.1843886419491532 code=89 phase_target_rad=2.1877296661732037 bits=8
PS_L1_U_c16_r15 L1_U_c14_m15 out15 ps phase_rad=3.7551849687440497 code=153 phase_target_rad=3.7623436861581872 bits=8
.ends layer_L1

.subckt chip16 in0 in1 in2 in3 in4 in5 in6 in7 in8 in9 in10 in11 in12 in13 in14 in15 out0 out1 out2 out3 out4 out5 out6 out7 out8 out9 out10 out11 out12 out13 out14 out15
X_L1 in0 in1 in2 in3 in4 in5 in6 in7 in8 in9 in10 in11 in12 in13 in14 in15 out0 out1 out2 out3 out4 out5 out6 out7 out8 out9 out10 out11 out12 out13 out14 out15 layer_L1
.ends chip16

chip16 in0 in1 in2 in3 in4 in5 in6 in7 in8 in9 in10 in11 in12 in13 in14 in15 out0 out1 out2 out3 out4 out5 out6 out7 out8 out9 out10 out11 out12 out13 out14 out15 chip16
.end

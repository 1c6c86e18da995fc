* PNL 1.0 photonic netlist, see optinc-netlist(5)
*! generator = optinc 0.1.0
*! spec = path="specs/reck8.yaml" sha256="f1d4170365388e2c5b7018f9d18fe29f52c84b5f30cc6c6c265f927a8c8e9de0"
*! mzi_convention = M = B.diag(exp(i.theta_rad),1).B.diag(exp(i.phi_rad),1), B = [[1,i],[i,1]]/sqrt(2), (in0,in1) -> (out0,out1) = modes (m,m+1)
*! units = phase:rad attenuation:dB loss:dB length:um wavelength:um power:dBm
*! circuit = seed=8 wavelength_um=1.55
*! layer.L1 = rows=8 cols=8 gain=4.8062887826448444 mesh=reck attenuators=middle activation=none approximation_error=0 attenuators_capped=0
*! layer.L1.mzi = insertion_loss_dB=0 phase_error_sigma_rad=0 splitter_error_sigma=0
*! layer.L1.phase_shifter = bits=0 range_lo_rad=0 range_hi_rad=6.2831853071795862 noise_sigma_rad=0 thermal_crosstalk=0
*! layer.L1.attenuator = insertion_loss_dB=0 max_attenuation_dB=60 bits=0
*! layer.L1.waveguide = loss_dB_cm=0
*! layer.L1.crossing = insertion_loss_dB=0 crosstalk_dB=0
*! layer.L1.detector = responsivity_A_W=1

.subckt layer_L1 in0 in1 in2 in3 in4 in5 in6 in7 out0 out1 out2 out3 out4 out5 out6 out7
MZ_L1_V_c0_r6 in6 in7 L1_V_c0_m6 L1_V_c0_m7 mzi theta_rad=1.2088296569183175 phi_rad=6.0353572353993226
MZ_L1_V_c1_r5 in5 L1_V_c0_m6 L1_V_c1_m5 L1_V_c1_m6 mzi theta_rad=0.40476954469510895 phi_rad=2.2492790230592812
MZ_L1_V_c2_r4 in4 L1_V_c1_m5 L1_V_c2_m4 L1_V_c2_m5 mzi theta_rad=1.2206840940207608 phi_rad=0.92034895831041696
MZ_L1_V_c2_r6 L1_V_c1_m6 L1_V_c0_m7 L1_V_c2_m6 L1_V_c2_m7 mzi theta_rad=0.6351969103077808 phi_rad=3.0137151737207186
MZ_L1_V_c3_r3 in3 L1_V_c2_m4 L1_V_c3_m3 L1_V_c3_m4 mzi theta_rad=1.3471445933094865 phi_rad=3.6582385953840864
MZ_L1_V_c3_r5 L1_V_c2_m5 L1_V_c2_m6 L1_V_c3_m5 L1_V_c3_m6 mzi theta_rad=1.1911782235123305 phi_rad=4.368868268017434 phi_target_rad=-1.9143170391621522
MZ_L1_V_c4_r2 in2 L1_V_c3_m3 L1_V_c4_m2 L1_V_c4_m3 mzi theta_rad=0.43702081532514869 phi_rad=6.0293193284782394
MZ_L1_V_c4_r4 L1_V_c3_m4 L1_V_c3_m5 L1_V_c4_m4 L1_V_c4_m5 mzi theta_rad=0.56451080087274486 phi_rad=1.6032340092631947
MZ_L1_V_c4_r6 L1_V_c3_m6 L1_V_c2_m7 L1_V_c4_m6 L1_V_c4_m7 mzi theta_rad=0.89700693922445618 phi_rad=1.6194129873675038 phi_target_rad=-4.6637723198120824
MZ_L1_V_c5_r1 in1 L1_V_c4_m2 L1_V_c5_m1 L1_V_c5_m2 mzi theta_rad=1.3385027597420944 phi_rad=2.8161747109016733
MZ_L1_V_c5_r3 L1_V_c4_m3 L1_V_c4_m4 L1_V_c5_m3 L1_V_c5_m4 mzi theta_rad=1.215522292591535 phi_rad=3.0227649639882168
MZ_L1_V_c5_r5 L1_V_c4_m5 L1_V_c4_m6 L1_V_c5_m5 L1_V_c5_m6 mzi theta_rad=1.3402820240841384 phi_rad=3.4269759265710467
MZ_L1_V_c6_r0 in0 L1_V_c5_m1 L1_V_c6_m0 L1_V_c6_m1 mzi theta_rad=0.697895946078952 phi_rad=4.2997914232713637
MZ_L1_V_c6_r2 L1_V_c5_m2 L1_V_c5_m3 L1_V_c6_m2 L1_V_c6_m3 mzi theta_rad=0.46932167121521839 phi_rad=3.5947530235589897
MZ_L1_V_c6_r4 L1_V_c5_m4 L1_V_c5_m5 L1_V_c6_m4 L1_V_c6_m5 mzi theta_rad=1.1838002164439401 phi_rad=1.5357367350846238
MZ_L1_V_c6_r6 L1_V_c5_m6 L1_V_c4_m7 L1_V_c6_m6 L1_V_c6_m7 mzi theta_rad=1.4819011797884418 phi_rad=1.3133475402910237
MZ_L1_V_c7_r1 L1_V_c6_m1 L1_V_c6_m2 L1_V_c7_m1 L1_V_c7_m2 mzi theta_rad=1.7838098350118838 phi_rad=3.693234656998901
MZ_L1_V_c7_r3 L1_V_c6_m3 L1_V_c6_m4 L1_V_c7_m3 L1_V_c7_m4 mzi theta_rad=1.0910155979393541 phi_rad=2.3836700281300773
MZ_L1_V_c7_r5 L1_V_c6_m5 L1_V_c6_m6 L1_V_c7_m5 L1_V_c7_m6 mzi theta_rad=0.85302259735498476 phi_rad=2.0753364081869674
MZ_L1_V_c8_r2 L1_V_c7_m2 L1_V_c7_m3 L1_V_c8_m2 L1_V_c8_m3 mzi theta_rad=0.72999235004452512 phi_rad=3.8625537002014094
MZ_L1_V_c8_r4 L1_V_c7_m4 L1_V_c7_m5 L1_V_c8_m4 L1_V_c8_m5 mzi theta_rad=0.88731458745603753 phi_rad=4.3642874421404976
MZ_L1_V_c8_r6 L1_V_c7_m6 L1_V_c6_m7 L1_V_c8_m6 L1_V_c8_m7 mzi theta_rad=0.47384928341517751 phi_rad=3.7794943150372537
MZ_L1_V_c9_r3 L1_V_c8_m3 L1_V_c8_m4 L1_V_c9_m3 L1_V_c9_m4 mzi theta_rad=1.0068098604178122 phi_rad=1.6660477928687549
MZ_L1_V_c9_r5 L1_V_c8_m5 L1_V_c8_m6 L1_V_c9_m5 L1_V_c9_m6 mzi theta_rad=2.1280835865134495 phi_rad=5.3626555205951147
MZ_L1_V_c10_r4 L1_V_c9_m4 L1_V_c9_m5 L1_V_c10_m4 L1_V_c10_m5 mzi theta_rad=0.99415497172585532 phi_rad=3.3998751949514556
MZ_L1_V_c10_r6 L1_V_c9_m6 L1_V_c8_m7 L1_V_c10_m6 L1_V_c10_m7 mzi theta_rad=0.66496806639829931 phi_rad=2.6082694337209289
MZ_L1_V_c11_r5 L1_V_c10_m5 L1_V_c10_m6 L1_V_c11_m5 L1_V_c11_m6 mzi theta_rad=0.99561105370555492 phi_rad=3.8788064195221925
MZ_L1_V_c12_r6 L1_V_c11_m6 L1_V_c10_m7 L1_V_c12_m6 L1_V_c12_m7 mzi theta_rad=2.5541489052584474 phi_rad=0.053317251875395044 phi_target_rad=6.3365025590549813
PS_L1_V_c13_r0 L1_V_c6_m0 L1_V_c13_m0 ps phase_rad=0.063649584073849796
PS_L1_V_c13_r1 L1_V_c7_m1 L1_V_c13_m1 ps phase_rad=3.3324916435434901
PS_L1_V_c13_r2 L1_V_c8_m2 L1_V_c13_m2 ps phase_rad=3.8173307487045074
PS_L1_V_c13_r3 L1_V_c9_m3 L1_V_c13_m3 ps phase_rad=3.2186743524217434
PS_L1_V_c13_r4 L1_V_c10_m4 L1_V_c13_m4 ps phase_rad=0.89251799840225654
PS_L1_V_c13_r5 L1_V_c11_m5 L1_V_c13_m5 ps phase_rad=4.3698876860017695
PS_L1_V_c13_r6 L1_V_c12_m6 L1_V_c13_m6 ps phase_rad=4.6102923082920473 phase_target_rad=-1.6728929988875387
PS_L1_V_c13_r7 L1_V_c12_m7 L1_V_c13_m7 ps phase_rad=4.6102923082920473 phase_target_rad=-1.6728929988875387
AT_L1_r0 L1_V_c13_m0 L1_S_m0 att att_dB=0
AT_L1_r1 L1_V_c13_m1 L1_S_m1 att att_dB=2.4138238096838069
AT_L1_r2 L1_V_c13_m2 L1_S_m2 att att_dB=3.914029559931965
AT_L1_r3 L1_V_c13_m3 L1_S_m3 att att_dB=6.0809614583878657
AT_L1_r4 L1_V_c13_m4 L1_S_m4 att att_dB=8.2113023404286132 t_target=0.38853923699157
AT_L1_r5 L1_V_c13_m5 L1_S_m5 att att_dB=10.294009915840178
AT_L1_r6 L1_V_c13_m6 L1_S_m6 att att_dB=12.928996572002818
AT_L1_r7 L1_V_c13_m7 L1_S_m7 att att_dB=23.655230149826309 t_target=0.065650568696682135
MZ_L1_U_c0_r6 L1_S_m6 L1_S_m7 L1_U_c0_m6 L1_U_c0_m7 mzi theta_rad=2.879562639049785 phi_rad=3.458471028445361
MZ_L1_U_c1_r5 L1_S_m5 L1_U_c0_m6 L1_U_c1_m5 L1_U_c1_m6 mzi theta_rad=1.2642411464733647 phi_rad=1.9208568315576233
MZ_L1_U_c2_r4 L1_S_m4 L1_U_c1_m5 L1_U_c2_m4 L1_U_c2_m5 mzi theta_rad=0.64516274281620634 phi_rad=2.226384672716637
MZ_L1_U_c2_r6 L1_U_c1_m6 L1_U_c0_m7 L1_U_c2_m6 L1_U_c2_m7 mzi theta_rad=1.812951165098281 phi_rad=0.76511745362576544 phi_target_rad=7.0483027608053517
MZ_L1_U_c3_r3 L1_S_m3 L1_U_c2_m4 L1_U_c3_m3 L1_U_c3_m4 mzi theta_rad=0.93006688033396712 phi_rad=3.4345554871909756
MZ_L1_U_c3_r5 L1_U_c2_m5 L1_U_c2_m6 L1_U_c3_m5 L1_U_c3_m6 mzi theta_rad=0.64337378243407173 phi_rad=3.7344434926123564
MZ_L1_U_c4_r2 L1_S_m2 L1_U_c3_m3 L1_U_c4_m2 L1_U_c4_m3 mzi theta_rad=0.83833914742947302 phi_rad=5.5028758658835351
MZ_L1_U_c4_r4 L1_U_c3_m4 L1_U_c3_m5 L1_U_c4_m4 L1_U_c4_m5 mzi theta_rad=1.190034547119043 phi_rad=5.8916339957530743 phi_target_rad=-0.39155131142651189
MZ_L1_U_c4_r6 L1_U_c3_m6 L1_U_c2_m7 L1_U_c4_m6 L1_U_c4_m7 mzi theta_rad=0.96860055096620412 phi_rad=0.18212845203714423 phi_target_rad=6.4653137592167305
MZ_L1_U_c5_r1 L1_S_m1 L1_U_c4_m2 L1_U_c5_m1 L1_U_c5_m2 mzi theta_rad=0.78520387035639416 phi_rad=2.7756034817597941
MZ_L1_U_c5_r3 L1_U_c4_m3 L1_U_c4_m4 L1_U_c5_m3 L1_U_c5_m4 mzi theta_rad=1.0849328489997117 phi_rad=3.6269908529887473 phi_target_rad=-2.6561944541908389
MZ_L1_U_c5_r5 L1_U_c4_m5 L1_U_c4_m6 L1_U_c5_m5 L1_U_c5_m6 mzi theta_rad=1.4018657018261722 phi_rad=5.0227456996333402
MZ_L1_U_c6_r0 L1_S_m0 L1_U_c5_m1 L1_U_c6_m0 L1_U_c6_m1 mzi theta_rad=0.62055963651100843 phi_rad=1.1733195242213432
MZ_L1_U_c6_r2 L1_U_c5_m2 L1_U_c5_m3 L1_U_c6_m2 L1_U_c6_m3 mzi theta_rad=0.60610515830347156 phi_rad=5.7718130172832645
MZ_L1_U_c6_r4 L1_U_c5_m4 L1_U_c5_m5 L1_U_c6_m4 L1_U_c6_m5 mzi theta_rad=0.7165288660310134 phi_rad=5.5634602221902476 phi_target_rad=-0.71972508498933907
MZ_L1_U_c6_r6 L1_U_c5_m6 L1_U_c4_m7 L1_U_c6_m6 L1_U_c6_m7 mzi theta_rad=1.4310724452787225 phi_rad=1.5868133665749431
MZ_L1_U_c7_r1 L1_U_c6_m1 L1_U_c6_m2 L1_U_c7_m1 L1_U_c7_m2 mzi theta_rad=0.20660934835655009 phi_rad=5.5700936262040317
MZ_L1_U_c7_r3 L1_U_c6_m3 L1_U_c6_m4 L1_U_c7_m3 L1_U_c7_m4 mzi theta_rad=0.2941495959369429 phi_rad=4.1515540509353972
MZ_L1_U_c7_r5 L1_U_c6_m5 L1_U_c6_m6 L1_U_c7_m5 L1_U_c7_m6 mzi theta_rad=1.3285881128907915 phi_rad=4.064903932964846 phi_target_rad=-2.2182813742147403
MZ_L1_U_c8_r2 L1_U_c7_m2 L1_U_c7_m3 L1_U_c8_m2 L1_U_c8_m3 mzi theta_rad=0.90788038034685226 phi_rad=5.7322343278017032
MZ_L1_U_c8_r4 L1_U_c7_m4 L1_U_c7_m5 L1_U_c8_m4 L1_U_c8_m5 mzi theta_rad=0.52127700715940373 phi_rad=4.2329256140650315
MZ_L1_U_c8_r6 L1_U_c7_m6 L1_U_c6_m7 L1_U_c8_m6 L1_U_c8_m7 mzi theta_rad=2.5539046965875443 phi_rad=1.5488576630670368 phi_target_rad=-4.7343276441125495
MZ_L1_U_c9_r3 L1_U_c8_m3 L1_U_c8_m4 L1_U_c9_m3 L1_U_c9_m4 mzi theta_rad=0.98904547320592417 phi_rad=4.2675419216886592
MZ_L1_U_c9_r5 L1_U_c8_m5 L1_U_c8_m6 L1_U_c9_m5 L1_U_c9_m6 mzi theta_rad=0.71757725326374633 phi_rad=6.0303729808329596 phi_target_rad=-0.25281232634662709
MZ_L1_U_c10_r4 L1_U_c9_m4 L1_U_c9_m5 L1_U_c10_m4 L1_U_c10_m5 mzi theta_rad=0.82572920184511656 phi_rad=3.8654560289646342
MZ_L1_U_c10_r6 L1_U_c9_m6 L1_U_c8_m7 L1_U_c10_m6 L1_U_c10_m7 mzi theta_rad=1.5527108040090905 phi_rad=3.4212489781298032 phi_target_rad=-2.861936329049783
MZ_L1_U_c11_r5 L1_U_c10_m5 L1_U_c10_m6 L1_U_c11_m5 L1_U_c11_m6 mzi theta_rad=0.69673147976660843 phi_rad=0.0031781090453986138 phi_target_rad=6.2863634162249848
MZ_L1_U_c12_r6 L1_U_c11_m6 L1_U_c10_m7 L1_U_c12_m6 L1_U_c12_m7 mzi theta_rad=0.85921397299165392 phi_rad=2.2649497899106374
PS_L1_U_c13_r0 L1_U_c6_m0 out0 ps phase_rad=6.2711186208668037 phase_target_rad=-0.012066686312782293
PS_L1_U_c13_r1 L1_U_c7_m1 out1 ps phase_rad=0.33967970864523189
PS_L1_U_c13_r2 L1_U_c8_m2 out2 ps phase_rad=5.1244870999666707 phase_target_rad=-1.1586982072129155
PS_L1_U_c13_r3 L1_U_c9_m3 out3 ps phase_rad=0.95436188625512153
PS_L1_U_c13_r4 L1_U_c10_m4 out4 ps phase_rad=0.1231639191026237
PS_L1_U_c13_r5 L1_U_c11_m5 out5 ps phase_rad=0.76403590712257863
PS_L1_U_c13_r6 L1_U_c12_m6 out6 ps phase_rad=3.7475917211129337 phase_target_rad=-2.5355935860666525
PS_L1_U_c13_r7 L1_U_c12_m7 out7 ps phase_rad=2.0198987184253987 phase_target_rad=-4.2632865887541875
.ends layer_L1

.subckt reck8 in0 in1 in2 in3 in4 in5 in6 in7 out0 out1 out2 out3 out4 out5 out6 out7
X_L1 in0 in1 in2 in3 in4 in5 in6 in7 out0 out1 out2 out3 out4 out5 out6 out7 layer_L1
.ends reck8

reck8 in0 in1 in2 in3 in4 in5 in6 in7 out0 out1 out2 out3 out4 out5 out6 out7 reck8
.end

* hand-written: .param, +, .include, params, CRLF, upper case, cards
*! layer.L1 = rows=2 cols=2 gain=2.5 attenuators=none
*! layer.L1.phase_shifter = bits=4
.param ph=0.25
.include "p.inc"
.SUBCKT layer_L1 in0 in1 out0 out1 th=0.1
MZ_a in0 in1 a0 a1 mzi theta_rad=th
+ phi_rad=w
PS_a a0 out0 ps phase_rad=0.5 code=1 bits=4
PS_b a1 out1 ps phase_rad=-0.75
.ENDS
.subckt top in0 in1 out0 out1
X1 in0 in1 out0 out1 layer_L1 th=1.5
.ends top
top in0 in1 out0 out1 top
.end

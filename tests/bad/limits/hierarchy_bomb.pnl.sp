* A hierarchy bomb: 10 levels of 10 instances flatten to 10^9 phase shifters.
*! layer.L1 = rows=1 cols=1 gain=1 attenuators=none
.subckt c0 in0 out0
P in0 out0 ps phase_rad=0
.ends c0
.subckt c1 in0 out0
X0 in0 n1 c0
X1 n1 n2 c0
X2 n2 n3 c0
X3 n3 n4 c0
X4 n4 n5 c0
X5 n5 n6 c0
X6 n6 n7 c0
X7 n7 n8 c0
X8 n8 n9 c0
X9 n9 out0 c0
.ends c1
.subckt c2 in0 out0
X0 in0 n1 c1
X1 n1 n2 c1
X2 n2 n3 c1
X3 n3 n4 c1
X4 n4 n5 c1
X5 n5 n6 c1
X6 n6 n7 c1
X7 n7 n8 c1
X8 n8 n9 c1
X9 n9 out0 c1
.ends c2
.subckt c3 in0 out0
X0 in0 n1 c2
X1 n1 n2 c2
X2 n2 n3 c2
X3 n3 n4 c2
X4 n4 n5 c2
X5 n5 n6 c2
X6 n6 n7 c2
X7 n7 n8 c2
X8 n8 n9 c2
X9 n9 out0 c2
.ends c3
.subckt c4 in0 out0
X0 in0 n1 c3
X1 n1 n2 c3
X2 n2 n3 c3
X3 n3 n4 c3
X4 n4 n5 c3
X5 n5 n6 c3
X6 n6 n7 c3
X7 n7 n8 c3
X8 n8 n9 c3
X9 n9 out0 c3
.ends c4
.subckt c5 in0 out0
X0 in0 n1 c4
X1 n1 n2 c4
X2 n2 n3 c4
X3 n3 n4 c4
X4 n4 n5 c4
X5 n5 n6 c4
X6 n6 n7 c4
X7 n7 n8 c4
X8 n8 n9 c4
X9 n9 out0 c4
.ends c5
.subckt c6 in0 out0
X0 in0 n1 c5
X1 n1 n2 c5
X2 n2 n3 c5
X3 n3 n4 c5
X4 n4 n5 c5
X5 n5 n6 c5
X6 n6 n7 c5
X7 n7 n8 c5
X8 n8 n9 c5
X9 n9 out0 c5
.ends c6
.subckt c7 in0 out0
X0 in0 n1 c6
X1 n1 n2 c6
X2 n2 n3 c6
X3 n3 n4 c6
X4 n4 n5 c6
X5 n5 n6 c6
X6 n6 n7 c6
X7 n7 n8 c6
X8 n8 n9 c6
X9 n9 out0 c6
.ends c7
.subckt c8 in0 out0
X0 in0 n1 c7
X1 n1 n2 c7
X2 n2 n3 c7
X3 n3 n4 c7
X4 n4 n5 c7
X5 n5 n6 c7
X6 n6 n7 c7
X7 n7 n8 c7
X8 n8 n9 c7
X9 n9 out0 c7
.ends c8
.subckt c9 in0 out0
X0 in0 n1 c8
X1 n1 n2 c8
X2 n2 n3 c8
X3 n3 n4 c8
X4 n4 n5 c8
X5 n5 n6 c8
X6 n6 n7 c8
X7 n7 n8 c8
X8 n8 n9 c8
X9 n9 out0 c8
.ends c9
top in0 out0 c9
.end

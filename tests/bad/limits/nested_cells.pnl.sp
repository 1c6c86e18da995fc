* 70 levels of cells, each instantiating the next: deeper than the reader's
* limit of 64 (flattening recurses once per level).
*! layer.L1 = rows=1 cols=1 gain=1 attenuators=none
.subckt c0 in0 out0
X in0 out0 c1
.ends c0
.subckt c1 in0 out0
X in0 out0 c2
.ends c1
.subckt c2 in0 out0
X in0 out0 c3
.ends c2
.subckt c3 in0 out0
X in0 out0 c4
.ends c3
.subckt c4 in0 out0
X in0 out0 c5
.ends c4
.subckt c5 in0 out0
X in0 out0 c6
.ends c5
.subckt c6 in0 out0
X in0 out0 c7
.ends c6
.subckt c7 in0 out0
X in0 out0 c8
.ends c7
.subckt c8 in0 out0
X in0 out0 c9
.ends c8
.subckt c9 in0 out0
X in0 out0 c10
.ends c9
.subckt c10 in0 out0
X in0 out0 c11
.ends c10
.subckt c11 in0 out0
X in0 out0 c12
.ends c11
.subckt c12 in0 out0
X in0 out0 c13
.ends c12
.subckt c13 in0 out0
X in0 out0 c14
.ends c13
.subckt c14 in0 out0
X in0 out0 c15
.ends c14
.subckt c15 in0 out0
X in0 out0 c16
.ends c15
.subckt c16 in0 out0
X in0 out0 c17
.ends c16
.subckt c17 in0 out0
X in0 out0 c18
.ends c17
.subckt c18 in0 out0
X in0 out0 c19
.ends c18
.subckt c19 in0 out0
X in0 out0 c20
.ends c19
.subckt c20 in0 out0
X in0 out0 c21
.ends c20
.subckt c21 in0 out0
X in0 out0 c22
.ends c21
.subckt c22 in0 out0
X in0 out0 c23
.ends c22
.subckt c23 in0 out0
X in0 out0 c24
.ends c23
.subckt c24 in0 out0
X in0 out0 c25
.ends c24
.subckt c25 in0 out0
X in0 out0 c26
.ends c25
.subckt c26 in0 out0
X in0 out0 c27
.ends c26
.subckt c27 in0 out0
X in0 out0 c28
.ends c27
.subckt c28 in0 out0
X in0 out0 c29
.ends c28
.subckt c29 in0 out0
X in0 out0 c30
.ends c29
.subckt c30 in0 out0
X in0 out0 c31
.ends c30
.subckt c31 in0 out0
X in0 out0 c32
.ends c31
.subckt c32 in0 out0
X in0 out0 c33
.ends c32
.subckt c33 in0 out0
X in0 out0 c34
.ends c33
.subckt c34 in0 out0
X in0 out0 c35
.ends c34
.subckt c35 in0 out0
X in0 out0 c36
.ends c35
.subckt c36 in0 out0
X in0 out0 c37
.ends c36
.subckt c37 in0 out0
X in0 out0 c38
.ends c37
.subckt c38 in0 out0
X in0 out0 c39
.ends c38
.subckt c39 in0 out0
X in0 out0 c40
.ends c39
.subckt c40 in0 out0
X in0 out0 c41
.ends c40
.subckt c41 in0 out0
X in0 out0 c42
.ends c41
.subckt c42 in0 out0
X in0 out0 c43
.ends c42
.subckt c43 in0 out0
X in0 out0 c44
.ends c43
.subckt c44 in0 out0
X in0 out0 c45
.ends c44
.subckt c45 in0 out0
X in0 out0 c46
.ends c45
.subckt c46 in0 out0
X in0 out0 c47
.ends c46
.subckt c47 in0 out0
X in0 out0 c48
.ends c47
.subckt c48 in0 out0
X in0 out0 c49
.ends c48
.subckt c49 in0 out0
X in0 out0 c50
.ends c49
.subckt c50 in0 out0
X in0 out0 c51
.ends c50
.subckt c51 in0 out0
X in0 out0 c52
.ends c51
.subckt c52 in0 out0
X in0 out0 c53
.ends c52
.subckt c53 in0 out0
X in0 out0 c54
.ends c53
.subckt c54 in0 out0
X in0 out0 c55
.ends c54
.subckt c55 in0 out0
X in0 out0 c56
.ends c55
.subckt c56 in0 out0
X in0 out0 c57
.ends c56
.subckt c57 in0 out0
X in0 out0 c58
.ends c57
.subckt c58 in0 out0
X in0 out0 c59
.ends c58
.subckt c59 in0 out0
X in0 out0 c60
.ends c59
.subckt c60 in0 out0
X in0 out0 c61
.ends c60
.subckt c61 in0 out0
X in0 out0 c62
.ends c61
.subckt c62 in0 out0
X in0 out0 c63
.ends c62
.subckt c63 in0 out0
X in0 out0 c64
.ends c63
.subckt c64 in0 out0
X in0 out0 c65
.ends c64
.subckt c65 in0 out0
X in0 out0 c66
.ends c65
.subckt c66 in0 out0
X in0 out0 c67
.ends c66
.subckt c67 in0 out0
X in0 out0 c68
.ends c67
.subckt c68 in0 out0
X in0 out0 c69
.ends c68
.subckt c69 in0 out0
P in0 out0 ps phase_rad=0
.ends c69
top in0 out0 c0
.end

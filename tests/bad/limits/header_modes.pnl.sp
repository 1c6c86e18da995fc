* A layer header asking for 100000 modes (the format allows 65536, the
* default limit is 1024).
*! layer.L1 = rows=100000 cols=100000 gain=1 attenuators=none
.subckt t in0 out0
P in0 out0 ps phase_rad=0
.ends t
t in0 out0 t
.end

"""optinc from Python: the OptINC optical all-reduce of liboptinc over ctypes.

    import numpy, optinc
    table = optinc.AggTable.onn("netlists/onn4x8.pnl.sp", servers=4, bits=8)
    plan = optinc.Plan("optinc", servers=4, table=table)
    grads = numpy.random.default_rng(0).standard_normal((4, 1000), dtype=numpy.float32)
    plan.run(grads)              # every row now holds the aggregated average
    plan.stats.bytes_sent        # per server, in the modelled network

optinc.torch holds the DistributedDataParallel communication hook;
optinc.compile(W) compiles a NumPy matrix into a Circuit, optinc.decompose
decomposes unitaries, and optinc.compat.strawberryfields is a drop-in for
Strawberry Fields' decompositions.  The manual page is optinc-python(7).
"""
from ._clib import path as library
from ._core import (Algorithm, AggTable, Chip, Error, ErrorHistogram, Plan, Report, Stats,
                    algorithm, algorithms)
from .circuit import Circuit, compile, read_netlist
from . import decompose

__all__ = ["Algorithm", "AggTable", "Chip", "Error", "ErrorHistogram", "Plan", "Report",
           "Stats", "algorithm", "algorithms", "library",
           "Circuit", "compile", "decompose", "read_netlist"]

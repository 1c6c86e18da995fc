"""The optical all-reduce as a DistributedDataParallel communication hook.

    state = optinc.torch.OptincHookState(algorithm="optinc")
    ddp_model.register_comm_hook(state, optinc.torch.optinc_hook)

DDP hands the hook each gradient bucket (a flat float32, float16 or
bfloat16 tensor: each rank's own gradient).  The hook starts an
asynchronous all_gather of the bucket of every rank over the process group
(gloo, on the host) and returns its Future chained with .then to the
decode, as DDP's allreduce_hook does, so the exchange overlaps the backward
pass of the next bucket.  The decode stacks the buckets in rank order as
the servers 0..N-1 of the library's in-process all-reduce, runs the plan on
them in float32 and writes the row of its rank into the bucket (rounded to
its dtype).  Every rank runs the same plan on the same bytes, so every rank
gets the same bits: the same arithmetic as `optinc train`, whose in-process
and MPI backends agree bit for bit.  The emulation moves whole buckets; the
bytes the modelled network would carry are the plan's counters
(state.stats).

Randomness.  Injected output errors are drawn by the library from the
stream of (seed, plan step, chunk); the hook's plan step is
state.step * 2^20 + bucket.index(), so each bucket of each step draws its
own errors and every rank draws the same ones.  state.step counts backward
passes (it advances after the last bucket of each).  A chip's phase errors
are drawn once, when the state builds the ONN's table.

Buckets may have any length, and DDP rebuilds its buckets after the first
step: the plan takes whatever length it is given (its last scale block is
partial), and the rebuild happens alike on every rank.

Error feedback keeps each server's residual per bucket (state.residuals,
by bucket index, a row per server, on every rank alike); a bucket whose
length changes (the rebuild) starts again from zero residuals.  Stochastic
rounding draws from (seed, plan step, server, element).
"""
import threading

import torch
import torch.distributed as dist

from . import _core

# The plan step of bucket i of step s is s * BUCKET_STREAMS + i.
BUCKET_STREAMS = 1 << 20

# What a bucket may hold: its values are exact in float32, which the plan runs on.
BUCKET_DTYPES = (torch.float32, torch.float16, torch.bfloat16)

# The OptINC units the package ships (8-bit codes), by number of servers:
# what a hook given None or a process group as its state aggregates through.
SHIPPED_UNITS = {4: "netlists/onn4x8.pnl.sp"}

# AggTable.onn's errors in the state's words: its servers are the group's.
_WORDS = {"--servers": "a process group of that size", "--bits": "bits=", "--onn": "onn="}


class OptincHookState:
    """What optinc_hook keeps between buckets: the plan, the step counter and
    the counters of the modelled network.

    algorithm: "optinc", "quantized", "exact" or "ring" (optinc.algorithms()).
    onn: the ONN netlist or spec that optinc aggregates through ("exact": the
    exact table, what a perfect ONN computes); a relative path that names no
    file here is taken from the package's data root (optinc.AggTable.onn
    finds it alike).  bits, block_size: the gradient
    codes of the quantizing algorithms.  chip: the devices the ONN is
    simulated on (None: ideal; see optinc.Chip.of), its errors drawn from
    seed unless it has its own.  seed: of the chip and of injected errors
    (`optinc train` draws its chip from --chip-seed, by default its --seed,
    1: seed=1 gives the chip of a run with the defaults).
    inject: output errors to inject (a histogram path, an
    optinc.ErrorHistogram, or "onn" for the errors the ONN's chip makes).
    process_group: the group to reduce over (None: the default group, which
    must be initialized).  error_feedback: each server adds the residual of
    its last quantization of a bucket to its next gradient of that bucket;
    stochastic_rounding: servers round their codes up with probability the
    fraction (both for the quantizing algorithms, off by default, as in
    `optinc train`).  Bad input raises optinc.Error here, on every rank,
    before training starts.

    A state pickles (torch.save of a checkpoint) as torch's PowerSGDState
    does: its settings, step, residuals and counters; unpickled, it makes
    its table and plan again on the default process group and continues
    bit for bit."""

    def __init__(self, algorithm="optinc", onn="netlists/onn4x8.pnl.sp", bits=8,
                 block_size=1024, chip=None, seed=0, inject=None, process_group=None,
                 error_feedback=False, stochastic_rounding=False):
        # What a checkpoint keeps (__getstate__) to make the state again.
        self._settings = dict(algorithm=algorithm, onn=onn, bits=bits, block_size=block_size,
                              chip=chip, seed=seed, inject=inject,
                              error_feedback=error_feedback,
                              stochastic_rounding=stochastic_rounding)
        self._build(process_group, **self._settings)

    def _build(self, process_group, algorithm, onn, bits, block_size, chip, seed, inject,
               error_feedback, stochastic_rounding):
        if not dist.is_initialized():
            raise RuntimeError("torch.distributed is not initialized: call "
                               "init_process_group before making an OptincHookState")
        alg = _core.algorithm(algorithm)
        self.process_group = process_group
        self.world_size = dist.get_world_size(process_group)
        self.rank = dist.get_rank(process_group)
        self.seed, self.step = seed, 0
        self._exchanges = {}
        self._lock = threading.Lock()
        self.table = None
        if alg.onn or inject == "onn":
            if onn == "exact":
                if inject == "onn":
                    raise ValueError("inject=\"onn\" measures a compiled ONN: give onn=PATH")
                self.table = _core.AggTable.exact(self.world_size, bits)
            else:
                self.table = _core.AggTable.onn(onn, self.world_size, bits, chip, seed,
                                                _words=_WORDS, _what="onn")
        if inject == "onn":
            inject = _core.ErrorHistogram.from_table(self.table)
        self.plan = _core.Plan(algorithm, self.world_size, bits, block_size,
                               self.table if alg.onn else None, inject, seed,
                               error_feedback, stochastic_rounding)
        self.residuals = {}

    def __getstate__(self):
        # As torch's PowerSGDState: the settings and the counters (the step,
        # the residuals, the modelled network's counts); the C objects, the
        # process group and the last exchange's tensors are made again.
        return dict(settings=self._settings, step=self.step, residuals=self.residuals,
                    stats=self.plan.stats)

    def __setstate__(self, saved):
        # The process group is the default one, as PowerSGDState takes it: a
        # group object does not outlive its processes.
        self._settings = saved["settings"]
        self._build(None, **self._settings)
        self.step = saved["step"]
        stats = saved["stats"]
        # in a group of another size, the counters and residuals start again
        if stats.servers == self.world_size:
            self.residuals = saved["residuals"]
            self.plan._set_stats(stats)

    def __repr__(self):
        return ("<optinc.torch.OptincHookState %s onn=%r world_size=%d rank=%d step=%d "
                "closed=%s>" % (self.plan._describe(), self._settings["onn"] if self.table
                                else None, self.world_size, self.rank, self.step,
                                self.plan.closed))

    @property
    def stats(self):
        """The plan's counters (optinc.Stats), per server = per rank."""
        return self.plan.stats

    @property
    def bytes_sent(self):
        """Bytes this rank's server has sent in the modelled network so far."""
        return self.plan.stats.bytes_sent[self.rank]


def _check_bucket(buf):
    # Before any collective, so a bad bucket fails alike on every rank.
    if buf.dtype not in BUCKET_DTYPES:
        raise TypeError("optinc_hook: the gradient bucket is %s: the optical all-reduce "
                        "reduces float32, float16 and bfloat16 gradients; train the model "
                        "in one of them (model.float())" % buf.dtype)


# The states of hooks registered with None or a process group, by group (the
# default group under its own object, which None stands for).
_group_states = {}


def _shipped_unit(servers):
    """The shipped unit for a group of `servers`: its own, or a unit of F
    servers with F^L = servers, which the plan runs as a cascade of L levels
    (optinc-onn(7), "Cascades of any depth"); None when there is neither."""
    for fan_in, path in sorted(SHIPPED_UNITS.items()):
        slots = fan_in
        while slots < servers:
            slots *= fan_in
        if slots == servers:
            return path
    return None


def _group_state(group):
    """The state of a hook registered with group (None or a ProcessGroup), as
    DDP's own hooks take theirs: made on the first bucket, the same on every
    rank, with the shipped unit for the group's world size (or its cascade)."""
    key = group if group is not None else dist.group.WORLD
    state = _group_states.get(key)
    if state is None:
        servers = dist.get_world_size(group)
        unit = _shipped_unit(servers)
        if unit is None:
            raise TypeError("pass an optinc.torch.OptincHookState(...) as the hook's state: "
                            "no shipped OptINC unit for %d servers (the package ships units "
                            "for %s)" % (servers, ", ".join(map(str, sorted(SHIPPED_UNITS)))))
        state = _group_states[key] = OptincHookState(onn=unit,
                                                     process_group=group)
    return state


def _state_of(state):
    if isinstance(state, OptincHookState):
        return state
    if state is None or isinstance(state, dist.ProcessGroup):
        return _group_state(state)
    raise TypeError("optinc_hook's state is a %s: pass an optinc.torch.OptincHookState(...), "
                    "None or a process group" % type(state).__name__)


def optinc_hook(state, bucket):
    """A DDP communication hook (register_comm_hook(state, optinc_hook)):
    every rank's bucket through state's plan.  Returns at once the Future of
    an asynchronous all_gather chained (.then) to the plan's run, as DDP's
    allreduce_hook does, so the exchange of one bucket overlaps the backward
    pass of the next; its value is the bucket, which then holds the average
    every rank shares.  state is an OptincHookState, or None (the default
    group) or a process group, for the state of optinc on the group's
    shipped unit."""
    state = _state_of(state)
    buf = bucket.buffer()
    _check_bucket(buf)
    # the bucket as this rank's row, on the host (a view when it is there)
    flat = buf.detach().reshape(-1).to("cpu")
    gathered = torch.empty((state.world_size, flat.numel()), dtype=flat.dtype)
    # gloo moves no bfloat16: its bits travel as float16's, unchanged (a copy)
    wire = (lambda t: t.view(torch.float16)) if flat.dtype == torch.bfloat16 else (lambda t: t)
    flat = wire(flat)
    rows = [wire(row) for row in gathered.unbind(0)]
    work = dist.all_gather(rows, flat, group=state.process_group, async_op=True)
    # gloo's worker thread lets go of the tensors of an exchange only after
    # the exchange has completed.  Were its reference the last, it would
    # free their Python objects and wait for the GIL, which a process
    # tearing DDP down holds while it joins that thread: torch 1.13
    # deadlocks.  So the state keeps them until the bucket's next exchange.
    state._exchanges[bucket.index()] = (flat, rows, gathered)
    plan_step = state.step * BUCKET_STREAMS + bucket.index()
    index = bucket.index()
    if bucket.is_last():
        state.step += 1

    def decode(fut):
        fut.wait()                  # raises what the exchange raised
        grads = gathered.float()    # float16 and bfloat16 are exact in float32
        # decodes of several buckets may run at once on gloo's threads; the
        # plan's scratch and counters are one
        with state._lock:
            residual = None
            if state.plan.error_feedback:
                residual = state.residuals.get(index)
                if residual is None or residual.shape != grads.shape:
                    residual = state.residuals[index] = torch.zeros_like(grads)
            state.plan.run(grads, step=plan_step, residuals=residual)
        buf.copy_(grads[state.rank].view_as(buf))    # rounded to the bucket's dtype
        return buf

    return work.get_future().then(decode)

"""One rank of the DDP tests (test_hook.py spawns them): trains the same small
model with the built-in allreduce_hook and with optinc_hook under each
algorithm, and saves what the test compares to OUT/rank<R>.pt."""
import io
import os

import torch
import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP

import optinc
import optinc.torch as ot

STEPS = 5
BLOCK = 64            # small blocks: several per bucket, the last one partial
BUCKET_MB = 0.001     # ~260 floats: a bucket per layer after the rebuild, of odd lengths
# DDP's first step runs one bucket; the rebuild after it starts with a bucket
# of this many bytes (1 MB by default, more than the model).
FIRST_BUCKET_BYTES = 600


def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(20, 33), torch.nn.ReLU(),
                               torch.nn.Linear(33, 7))


def batch(rank, step):
    g = torch.Generator().manual_seed(1000 * step + rank)
    return torch.randn(16, 20, generator=g), torch.randint(0, 7, (16,), generator=g)


def flat_grads(net):
    return torch.cat([p.grad.detach().reshape(-1).clone() for p in net.parameters()])


def train(rank, hook, state):
    """STEPS steps of SGD; the reduced gradients of each step and the final
    parameters."""
    net = DDP(model(), bucket_cap_mb=BUCKET_MB)
    net.register_comm_hook(state, hook)
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    grads = []
    for step in range(STEPS):
        x, y = batch(rank, step)
        opt.zero_grad()
        torch.nn.functional.cross_entropy(net(x), y).backward()
        grads.append(flat_grads(net))
        opt.step()
    params = torch.cat([p.detach().reshape(-1).clone() for p in net.parameters()])
    return grads, params


def train_checkpointed(rank, state, restore_at, fresh=None):
    """train() with a hook that can change states: after restore_at steps its
    state goes through torch.save and torch.load, as in a checkpoint (or,
    with fresh, is replaced by fresh()), the old one closed.  The final
    parameters and the last state."""
    holder = [state]

    def hook(held, bucket):
        return ot.optinc_hook(held[0], bucket)

    net = DDP(model(), bucket_cap_mb=BUCKET_MB)
    net.register_comm_hook(holder, hook)
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    for step in range(STEPS):
        if step == restore_at:
            old = holder[0]
            saved = io.BytesIO()
            torch.save(old, saved)
            holder[0] = fresh() if fresh else torch.load(io.BytesIO(saved.getvalue()))
            for x in (old.plan, old.table):
                x.close()
        x, y = batch(rank, step)
        opt.zero_grad()
        torch.nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
    return torch.cat([p.detach().reshape(-1).clone() for p in net.parameters()]), holder[0]


def recording(calls):
    """optinc_hook that also keeps each bucket's plan step, input and output."""
    def hook(state, bucket):
        before = bucket.buffer().clone()
        step = state.step * ot.BUCKET_STREAMS + bucket.index()
        fut = ot.optinc_hook(state, bucket)
        calls.append((step, before, fut.wait().clone()))
        return fut
    return hook


# The element of rank 1's own bucket that becomes NaN, inf or an outlier.
NONFINITE_AT = 1500


def own_bucket(rank):
    """A bucket of 3,000 values of rank's own, in blocks of 1024: rank r's are
    (r + 1) 1e-2 times normal draws, so rank 3's scale is every block's."""
    g = torch.Generator().manual_seed(7 + rank)
    return torch.randn(3000, generator=g) * 1e-2 * (rank + 1)


class FakeBucket:
    def __init__(self, t):
        self.t = t

    def buffer(self):
        return self.t

    def index(self):
        return 0

    def is_last(self):
        return True


def main(rank, world, port, out):
    torch.set_num_threads(1)
    dist._DEFAULT_FIRST_BUCKET_BYTES = FIRST_BUCKET_BYTES
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=world)
    res = {}
    res["builtin"] = train(rank, default_hooks.allreduce_hook, None)
    for alg in ("exact", "quantized", "ring"):
        st = ot.OptincHookState(alg, block_size=BLOCK)
        res[alg] = train(rank, ot.optinc_hook, st)
        res[alg + "_bytes"] = st.stats._asdict()
    # error feedback and stochastic rounding: through the ideal unit, the
    # quantized algorithm's bits
    for alg in ("optinc", "quantized"):
        st = ot.OptincHookState(alg, block_size=BLOCK, error_feedback=True,
                                stochastic_rounding=True)
        res[alg + "_feedback"] = train(rank, ot.optinc_hook, st)
        res[alg + "_residuals"] = len(st.residuals)
    # optinc through the shipped ideal unit, every bucket recorded
    st = ot.OptincHookState("optinc", block_size=BLOCK)
    calls = []
    res["optinc"] = train(rank, recording(calls), st)
    res["optinc_bytes"] = st.stats._asdict()
    res["table"] = (st.table.source, st.table.report._asdict())
    # the library's plan on the same stacked inputs, byte for byte
    plan = optinc.Plan("optinc", world, block_size=BLOCK, table=st.table)
    same = []
    for step, before, after in calls:
        rows = torch.empty((world, before.numel()))
        dist.all_gather(list(rows.unbind(0)), before)
        plan.run(rows, step=step)
        same.append(rows[rank].numpy().tobytes() == after.numpy().tobytes())
    res["plan_same"] = same
    # bad input: a missing netlist, a float64 bucket
    try:
        ot.OptincHookState("optinc", onn="no/such/onn.pnl.sp")
        res["bad_onn"] = None
    except optinc.Error as e:
        res["bad_onn"] = (e.status, e.file, str(e))
    try:
        ot.optinc_hook(st, FakeBucket(torch.zeros(10, dtype=torch.float64)))
        res["bad_bucket"] = None
    except TypeError as e:
        res["bad_bucket"] = str(e)
    # None and the default group as the state, as DDP's own hooks take them:
    # one state for both, optinc on the shipped unit, the bits of the
    # state's defaults
    res["state_defaults"] = train(rank, ot.optinc_hook, ot.OptincHookState())
    res["state_none"] = train(rank, ot.optinc_hook, None)
    res["state_world"] = train(rank, ot.optinc_hook, dist.group.WORLD)
    res["group_states"] = [repr(s) for s in ot._group_states.values()]
    try:
        ot.optinc_hook("a state", FakeBucket(torch.zeros(10)))
        res["bad_state"] = None
    except TypeError as e:
        res["bad_state"] = str(e)
    # a checkpoint of the state: a chip's errors injected and fed back,
    # stochastic rounding, so the step and the residuals count
    def noisy():
        return ot.OptincHookState("optinc", block_size=BLOCK, chip=optinc.Chip(phase_sigma=0.01),
                                  seed=1, inject="onn", error_feedback=True,
                                  stochastic_rounding=True)
    whole, st = train_checkpointed(rank, noisy(), None)
    resumed, rst = train_checkpointed(rank, noisy(), 2)
    restarted, _ = train_checkpointed(rank, noisy(), 2, fresh=noisy)
    res["checkpoint"] = dict(whole=whole, resumed=resumed, restarted=restarted,
                             stats=(st.stats, rst.stats), steps=(st.step, rst.step),
                             residuals=(sorted(st.residuals), sorted(rst.residuals)),
                             repr=repr(rst))
    # the hook called on buckets of our own on every rank (so the
    # collectives match): one rank's NaN, inf or outlier at NONFINITE_AT,
    # and half-precision buckets
    st = ot.OptincHookState("optinc")
    mine = own_bucket(rank)
    res["own"] = {}
    for what, value in (("as_is", None), ("nan", float("nan")), ("inf", float("inf")),
                        ("outlier", 1e38)):
        t = mine.clone()
        if value is not None and rank == 1:
            t[NONFINITE_AT] = value
        res["own"][what] = ot.optinc_hook(st, FakeBucket(t)).wait().clone()
    for dtype in (torch.float16, torch.bfloat16):
        res["own"][dtype] = ot.optinc_hook(st, FakeBucket(mine.to(dtype))).wait().clone()
    torch.save(res, os.path.join(out, "rank%d.pt" % rank))
    dist.barrier()
    dist.destroy_process_group()

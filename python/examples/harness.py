"""What the two workload examples (resnet_fmnist.py, llama_text.py) share:
the command line, the N gloo processes on 127.0.0.1, the all-reduce under
test as a DistributedDataParallel hook, the byte counts of the modelled
network, the check that every rank holds the same parameters, and the
outputs (a per-epoch table on stdout, progress on a terminal only, a CSV
and, with --plot, a matplotlib figure through plot_runs.py).

A workload is an object with
    name               its script's name (resnet_fmnist, llama_text)
    columns            the metric columns it adds to the table and the CSV,
                       the last one its final metric
    setup(args, rank)  loads its data and returns (model, optimizer, scheduler)
    batches(epoch)     this rank's training batches of an epoch
    loss(model, batch) the training loss of one batch
    evaluate(model)    a dict of its columns, summed over every rank's shard
Everything random is drawn from --seed: the model from the same stream on
every rank, each rank's share of the data from (seed, epoch) as
DistributedSampler draws it, so a run repeats bit for bit.

ring is PyTorch's own allreduce (the built-in allreduce_hook); optinc,
quantized and exact run optinc.torch.optinc_hook.  The bytes a server sends
are the library's byte model in both cases: for ring, the ring plan's count
for each bucket's length (learned once per length from a plan run on
zeros), so the two are counted alike.
"""
import argparse
import csv
import hashlib
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel

try:
    import optinc
except ImportError:          # run from a checkout without PYTHONPATH=python
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
    import optinc
import optinc.torch

BASE_COLUMNS = ["allreduce", "servers", "seed", "epoch", "steps", "train_loss"]
TAIL_COLUMNS = ["bytes_per_server_step", "ranks_agree", "seconds"]


def parser(description, epochs, train_subset, lr, batch_size):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--servers", type=int, default=4,
                   help="gloo processes on 127.0.0.1 (default %(default)s)")
    p.add_argument("--allreduce", default="optinc",
                   choices=["ring", "optinc", "quantized", "exact"],
                   help="ring: PyTorch's own allreduce (allreduce_hook), the baseline; "
                        "optinc, quantized, exact: optinc.torch.optinc_hook with that "
                        "algorithm (default %(default)s)")
    p.add_argument("--epochs", type=int, default=epochs,
                   help="passes over the training subset (default %(default)s)")
    p.add_argument("--seed", type=int, default=1,
                   help="seed of the model, the data order and optinc's errors "
                        "(default %(default)s)")
    p.add_argument("--train-subset", type=int, default=train_subset, metavar="M",
                   help="train on the first M examples (default %(default)s)")
    p.add_argument("--batch-size", type=int, default=batch_size,
                   help="examples per server and step (default %(default)s)")
    p.add_argument("--lr", type=float, default=lr,
                   help="peak learning rate (default %(default)s)")
    p.add_argument("--onn", default=None, metavar="PATH",
                   help="the ONN optinc aggregates through, or exact (default: the shipped "
                        "4-server unit netlists/onn4x8.pnl.sp with 4 servers, exact otherwise)")
    p.add_argument("--chip", default=None, metavar="CHIP.yaml",
                   help="a chip file: every device error of the ONN's chip (optinc-onn(1)); "
                        "default: ideal devices")
    p.add_argument("--calibrate", action="store_true",
                   help="with --chip: recompile the chip's drivers from its measurement")
    p.add_argument("--inject", default=None, metavar="HIST",
                   help="output errors to inject into optinc (a histogram file, or onn; "
                        "default none)")
    p.add_argument("--csv", default=None,
                   help="the per-epoch metrics file (default NAME-ALLREDUCE-sSEED.csv in the "
                        "current folder)")
    p.add_argument("--plot", default=None, metavar="PNG",
                   help="plot this run with the runs of --compare (plot_runs.py)")
    p.add_argument("--compare", nargs="*", default=[], metavar="CSV",
                   help="other runs' CSVs for --plot (default none)")
    return p


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RingBytes:
    """PyTorch's allreduce, counted with the library's ring byte model."""

    def __init__(self, servers):
        self.plan = optinc.Plan("ring", servers)
        self.per_length, self.sent = {}, 0

    def bytes_for(self, n):
        if n not in self.per_length:
            before = self.plan.stats.bytes_sent[0]
            self.plan.run(torch.zeros(self.plan.servers, n))
            self.per_length[n] = self.plan.stats.bytes_sent[0] - before
        return self.per_length[n]


def ring_hook(counter, bucket):
    counter.sent += counter.bytes_for(bucket.buffer().numel())
    return default_hooks.allreduce_hook(None, bucket)


def attach_hook(model, args, rank):
    """Registers the all-reduce under test; returns two functions: the bytes
    this rank's server has sent so far, and what ring would have sent for
    the same buckets."""
    ring = RingBytes(args.servers)
    if args.allreduce == "ring":
        model.register_comm_hook(ring, ring_hook)
        return (lambda: ring.sent), (lambda: ring.sent)
    onn = args.onn or ("netlists/onn4x8.pnl.sp" if args.servers == 4 else "exact")
    chip = dict(file=args.chip, calibrate=args.calibrate) if args.chip else None
    state = optinc.torch.OptincHookState(algorithm=args.allreduce, onn=onn, seed=args.seed,
                                         chip=chip, inject=args.inject)

    def hook(state, bucket):
        ring.sent += ring.bytes_for(bucket.buffer().numel())
        return optinc.torch.optinc_hook(state, bucket)

    model.register_comm_hook(state, hook)
    return (lambda: state.bytes_sent), (lambda: ring.sent)


# gloo's worker thread drops its references to a collective's tensors after
# the call has returned; were its reference the last, it would need the GIL
# to free them, which a process tearing DDP down holds while it joins that
# thread (torch 1.13 then hangs at exit).  So everything this file hands to
# a collective stays referenced here until the process ends.
_HELD = []


def ranks_agree(model):
    """1 when every rank holds bit-identical parameters and buffers."""
    h = hashlib.sha256()
    for t in list(model.parameters()) + list(model.buffers()):
        h.update(t.detach().contiguous().numpy().tobytes())
    mine = torch.tensor([int.from_bytes(h.digest()[:7], "little")], dtype=torch.int64)
    every = [torch.zeros_like(mine) for _ in range(dist.get_world_size())]
    dist.all_gather(every, mine)
    _HELD.append((mine, every))
    return int(all(int(e) == int(mine) for e in every))


def sum_over_ranks(values):
    """The sums over every rank of a list of floats."""
    t = torch.tensor(values, dtype=torch.float64)
    dist.all_reduce(t)
    _HELD.append(t)
    return t.tolist()


def batches(n, args, rank, epoch):
    """This rank's batches of indices into n examples in epoch: its share of
    the epoch's order (as DistributedSampler with drop_last draws it, every
    rank the same number), cut into --batch-size, the last partial one
    dropped."""
    g = torch.Generator().manual_seed(args.seed * 100003 + epoch)
    order = torch.randperm(n, generator=g)
    per = n // args.servers
    mine = order[rank * per:(rank + 1) * per]
    k = len(mine) // args.batch_size * args.batch_size
    return [mine[i:i + args.batch_size] for i in range(0, k, args.batch_size)]


def progress(rank, text):
    if rank == 0 and sys.stderr.isatty():
        sys.stderr.write("\r" + text + "\033[K")
        sys.stderr.flush()


def worker(rank, workload, args, port):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=args.servers)
    torch.manual_seed(args.seed)        # the same initial model on every rank
    net, opt, sched = workload.setup(args, rank)
    model = DistributedDataParallel(net)
    sent, ring_sent = attach_hook(model, args, rank)
    columns = BASE_COLUMNS + workload.columns + TAIL_COLUMNS
    shown = columns[3:]
    rows, steps, start = [], 0, time.monotonic()
    if rank == 0:
        print(" ".join("%*s" % (width(c), c) for c in shown), flush=True)
    for epoch in range(1, args.epochs + 1):
        model.train()
        total, count = 0.0, 0
        batches = workload.batches(epoch)
        for i, batch in enumerate(batches):
            loss = workload.loss(model, batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total, count, steps = total + loss.item(), count + 1, steps + 1
            progress(rank, "epoch %d  batch %d/%d  loss %.4f" % (epoch, i + 1, len(batches),
                                                                 total / count))
        progress(rank, "epoch %d  evaluating" % epoch)
        # batch norm's running statistics are rank 0's, as DDP's forward
        # makes them, so every rank evaluates the same model on its shard
        for b in net.buffers():
            dist.broadcast(b, 0)
        net.eval()
        with torch.no_grad():
            metrics = workload.evaluate(net)
        train_loss = sum_over_ranks([total / max(count, 1)])[0] / args.servers
        row = dict(allreduce=args.allreduce, servers=args.servers, seed=args.seed,
                   epoch=epoch, steps=steps, train_loss=train_loss, **metrics,
                   bytes_per_server_step=sent() // max(steps, 1),
                   ranks_agree=ranks_agree(net),
                   seconds=round(time.monotonic() - start, 1))
        rows.append(row)
        if rank == 0:
            progress(rank, "")
            print(" ".join(cell(c, row[c]) for c in shown), flush=True)
    if rank == 0:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, columns)
            w.writeheader()
            w.writerows(rows)
        print("CSV: %s" % os.path.abspath(args.csv))
        last, metric = rows[-1], workload.columns[-1]
        print("%s: %s on %d servers, %d epoch%s: %s %.4f; %d bytes per server and step, "
              "%.3f of ring's %d; replicas %s"
              % (workload.name, args.allreduce, args.servers, args.epochs,
                 "s" if args.epochs != 1 else "", metric, last[metric],
                 last["bytes_per_server_step"], sent() / max(ring_sent(), 1),
                 ring_sent() // max(steps, 1),
                 "agree bit for bit" if last["ranks_agree"] else "DIFFER"), flush=True)
    _HELD.append((model, net))
    dist.barrier()
    dist.destroy_process_group()


def width(column):
    """A column of the table: as wide as its name, 10 at least."""
    return max(len(column), 10)


def cell(column, v):
    """v in its column: seconds to a tenth, other floats to 4 decimals."""
    text = ("%.1f" if column == "seconds" else "%.4f") % v if isinstance(v, float) else str(v)
    return "%*s" % (width(column), text)


def run(workload, args, name):
    """Trains workload on args.servers processes; writes the CSV (and the plot)."""
    if args.calibrate and not args.chip:
        sys.exit("%s: --calibrate recompiles a chip from its measurement; give the chip with "
                 "--chip CHIP.yaml" % name)
    if args.chip and args.allreduce != "optinc":
        sys.exit("%s: --chip is the chip of the ONN that optinc aggregates through; use it "
                 "with --allreduce optinc" % name)
    if args.csv is None:
        args.csv = "%s-%s-s%d.csv" % (name, args.allreduce, args.seed)
    mp.spawn(worker, args=(workload, args, free_port()), nprocs=args.servers)
    if args.plot:
        import plot_runs
        for drawn in plot_runs.plot([args.csv] + args.compare, args.plot):
            print("plot: %s" % os.path.abspath(drawn["path"]))

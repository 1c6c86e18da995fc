"""What optinc_hook costs a training step, and what its overlap gains: the
residual CNN of python/examples/resnet_fmnist.py on 4 gloo processes, three
DDP replicas timed in the same processes in rotating rounds so all see the
same machine: PyTorch's allreduce_hook (the reference), optinc_hook (the
shipped 4-server unit; its exchange overlaps the backward pass) and the
hook's blocking form (the same hook waited for before DDP goes on, which
is what it was before it returned the exchange's Future).  The machine is
shared, so a form's step time is its fastest round (the least disturbed);
the overhead is (optinc_hook's / allreduce_hook's - 1).

    OPTINC_LIBRARY=build/liboptinc.so PYTHONPATH=python /usr/bin/python3 bench/bench_hook.py

Prints the step times (fastest and median rounds) and the closing-table line
TARGET|hook step overhead, CNN 4 procs|PCT|<=|10|%.
"""
import os
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "python", "examples")]
import optinc.torch  # noqa: E402
from resnet_fmnist import ResNet  # noqa: E402

SERVERS, BATCH = 4, 32
WARMUP, ROUNDS, STEPS = 3, 12, 4      # steps before timing; rounds of STEPS steps each
TARGET_PCT = 10
FORMS = ("allreduce_hook", "optinc_hook", "blocking optinc_hook")


def blocking_hook(state, bucket):
    """optinc_hook waited for: DDP gets a Future that has already completed."""
    fut = torch.futures.Future()
    fut.set_result(optinc.torch.optinc_hook(state, bucket).wait())
    return fut


def replica(hook, state):
    torch.manual_seed(0)
    model = DistributedDataParallel(ResNet())
    model.register_comm_hook(state, hook)
    return model, torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)


def steps(model, opt, data, n):
    """Seconds of n training steps, from the slowest rank's view, and this
    process's CPU seconds in them (every thread's: gloo's too)."""
    dist.barrier()
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(n):
        x, y = data
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    cpu = time.process_time() - cpu
    dist.barrier()
    return time.perf_counter() - start, cpu


def worker(rank, port, results):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=SERVERS)
    g = torch.Generator().manual_seed(rank)
    data = torch.randn(BATCH, 1, 28, 28, generator=g), torch.randint(0, 10, (BATCH,), generator=g)
    states = optinc.torch.OptincHookState("optinc"), optinc.torch.OptincHookState("optinc")
    models = (replica(default_hooks.allreduce_hook, None),
              replica(optinc.torch.optinc_hook, states[0]),
              replica(blocking_hook, states[1]))
    for m in models:
        steps(*m, data, WARMUP)
    times = []
    for r in range(ROUNDS):     # which goes first rotates, so none is favoured
        t = [None] * len(models)
        for k in range(len(models)):
            m = (r + k) % len(models)
            t[m] = [x / STEPS for x in steps(*models[m], data, STEPS)]
        times.append(t)
    results.put(times)
    dist.barrier()
    # keep the replicas (and the hook's exchanges) alive past the teardown
    # of the process group, as the examples' harness does
    worker.held = (models, states)
    dist.destroy_process_group()


def main():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = mp.get_context("spawn")
    results = ctx.SimpleQueue()
    mp.spawn(worker, args=(port, results), nprocs=SERVERS)
    ranks = [results.get() for _ in range(SERVERS)]
    times = ranks[0]            # wall time: every rank's is the slowest's (the barriers)
    fastest = [min(t[k][0] for t in times) for k in range(len(FORMS))]
    # CPU time of a step, summed over the ranks, in the round where it was least
    cpu = [min(sum(r[i][k][1] for r in ranks) for i in range(ROUNDS))
           for k in range(len(FORMS))]
    print("CNN step, %d procs, batch %d each, %d rounds of %d steps: wall time of the "
          "fastest (median) round; CPU time of the 4 processes in the least round"
          % (SERVERS, BATCH, ROUNDS, STEPS))
    for k, form in enumerate(FORMS):
        print("  %-22s wall %6.1f ms (%6.1f ms) %+6.1f%%   CPU %6.1f ms %+6.1f%%"
              % (form, 1e3 * fastest[k], 1e3 * statistics.median(t[k][0] for t in times),
                 100.0 * (fastest[k] / fastest[0] - 1), 1e3 * cpu[k],
                 100.0 * (cpu[k] / cpu[0] - 1)))
    print("TARGET|hook step overhead, CNN %d procs|%.1f|<=|%d|%%"
          % (SERVERS, 100.0 * (fastest[1] / fastest[0] - 1), TARGET_PCT))


if __name__ == "__main__":
    main()

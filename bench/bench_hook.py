"""What optinc_hook costs a training step: the residual CNN of
python/examples/resnet_fmnist.py on 4 gloo processes, one DDP replica under
PyTorch's allreduce_hook and one under optinc_hook (the shipped 4-server
unit), timed in the same processes in alternating rounds so both see the
same machine.  The overhead is the median over rounds of
(optinc step time / allreduce step time - 1).

    OPTINC_LIBRARY=build/liboptinc.so PYTHONPATH=python /usr/bin/python3 bench/bench_hook.py

Prints the step times and the closing-table line
TARGET|hook step overhead, CNN 4 procs|PCT|<=|25|%.
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
WARMUP, ROUNDS, STEPS = 3, 7, 4      # steps before timing; rounds of STEPS steps each
TARGET_PCT = 25


def replica(hook, state):
    torch.manual_seed(0)
    model = DistributedDataParallel(ResNet())
    model.register_comm_hook(state, hook)
    return model, torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)


def steps(model, opt, data, n):
    """Seconds of n training steps, from the slowest rank's view."""
    dist.barrier()
    start = time.perf_counter()
    for _ in range(n):
        x, y = data
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    dist.barrier()
    return time.perf_counter() - start


def worker(rank, port, results):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=SERVERS)
    g = torch.Generator().manual_seed(rank)
    data = torch.randn(BATCH, 1, 28, 28, generator=g), torch.randint(0, 10, (BATCH,), generator=g)
    base = replica(default_hooks.allreduce_hook, None)
    state = optinc.torch.OptincHookState("optinc")
    hooked = replica(optinc.torch.optinc_hook, state)
    for m in (base, hooked):
        steps(*m, data, WARMUP)
    times = []
    for r in range(ROUNDS):     # which goes first alternates, so neither is favoured
        first, second = (base, hooked) if r % 2 == 0 else (hooked, base)
        t = steps(*first, data, STEPS) / STEPS, steps(*second, data, STEPS) / STEPS
        times.append(t if r % 2 == 0 else t[::-1])
    if rank == 0:
        results.put(times)
    dist.barrier()
    # keep the replicas (and the hook's exchange) alive past the teardown
    # of the process group, as the examples' harness does
    worker.held = (base, hooked, state)
    dist.destroy_process_group()


def main():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = mp.get_context("spawn")
    results = ctx.SimpleQueue()
    mp.spawn(worker, args=(port, results), nprocs=SERVERS)
    times = results.get()
    base = statistics.median(t[0] for t in times)
    hooked = statistics.median(t[1] for t in times)
    pct = 100.0 * statistics.median(t[1] / t[0] - 1 for t in times)
    print("CNN step, %d procs, batch %d each: allreduce_hook %.1f ms, optinc_hook %.1f ms "
          "(medians of %d rounds of %d steps)" % (SERVERS, BATCH, 1e3 * base, 1e3 * hooked,
                                                  ROUNDS, STEPS))
    print("TARGET|hook step overhead, CNN %d procs|%.1f|<=|%d|%%" % (SERVERS, pct, TARGET_PCT))


if __name__ == "__main__":
    main()

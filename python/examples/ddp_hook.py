# Data-parallel training of a small classifier with the OptINC all-reduce:
# N gloo processes on 127.0.0.1, each its own data, DistributedDataParallel
# with optinc_hook under the algorithm of --allreduce (all of them the
# library's, through the hook: its ring is optinc's ring emulation, not
# PyTorch's allreduce).  Prints the loss and the bytes a server sends, then
# a summary: the algorithm, the final loss, the bytes against the library's
# ring on the same gradients, and whether the replicas agree bit for bit.
#   PYTHONPATH=python /usr/bin/python3 python/examples/ddp_hook.py --allreduce optinc
import argparse
import hashlib
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel

import optinc.torch


def worker(rank, args, port):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=args.servers)
    torch.manual_seed(args.seed)      # the same model and teacher on every rank
    teacher = torch.randn(32, 10)
    model = DistributedDataParallel(torch.nn.Sequential(
        torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10)))
    state = optinc.torch.OptincHookState(algorithm=args.allreduce, seed=args.seed)
    model.register_comm_hook(state, optinc.torch.optinc_hook)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    data = torch.Generator().manual_seed(args.seed * 1000 + rank)   # this rank's data
    for step in range(1, args.steps + 1):
        x = torch.randn(64, 32, generator=data)
        loss = torch.nn.functional.cross_entropy(model(x), (x @ teacher).argmax(1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if rank == 0 and step % max(1, args.steps // 5) == 0:
            print("step %4d  loss %.4f  bytes/server %d"
                  % (step, loss.item(), state.bytes_sent))
    # every rank's digest of its parameters, compared on rank 0
    h = hashlib.sha256(b"".join(p.detach().numpy().tobytes() for p in model.parameters()))
    mine = torch.tensor(list(h.digest()[:8]), dtype=torch.uint8)
    every = [torch.empty_like(mine) for _ in range(args.servers)]
    dist.all_gather(every, mine)
    if rank == 0:
        # the library's ring on the same gradient (one bucket: the model is small)
        ring = optinc.Plan("ring", args.servers)
        ring.run(torch.zeros(args.servers, sum(p.numel() for p in model.parameters())))
        ring_sent = ring.stats.bytes_sent[0] * args.steps
        print("%s through optinc_hook on %d servers, %d steps: loss %.4f; %d bytes per "
              "server, %.3f of the library's ring (%d); replicas %s"
              % (args.allreduce, args.servers, args.steps, loss.item(), state.bytes_sent,
                 state.bytes_sent / ring_sent, ring_sent,
                 "agree bit for bit" if all(torch.equal(e, mine) for e in every)
                 else "DIFFER"))
    worker.held = (model, state, mine, every)   # past the teardown, as gloo wants
    dist.barrier()                    # every rank done before any leaves
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description="data-parallel training of a small classifier "
                                            "with optinc.torch.optinc_hook")
    p.add_argument("--servers", type=int, default=4,
                   help="gloo processes on 127.0.0.1 (default %(default)s)")
    p.add_argument("--allreduce", default="optinc",
                   choices=[a.name for a in optinc.algorithms()],
                   help="the library's algorithm the hook runs; its ring is optinc's ring "
                        "emulation, not PyTorch's allreduce (default %(default)s)")
    p.add_argument("--steps", type=int, default=300,
                   help="training steps (default %(default)s)")
    p.add_argument("--seed", type=int, default=1,
                   help="seed of the model, the data and injected errors "
                        "(default %(default)s)")
    args = p.parse_args()
    with socket.socket() as s:        # a free port for the rendezvous
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(args, port), nprocs=args.servers)


if __name__ == "__main__":
    main()

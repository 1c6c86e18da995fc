# Data-parallel training of a small classifier with the OptINC all-reduce:
# N gloo processes on 127.0.0.1, each its own data, DistributedDataParallel
# with optinc_hook; prints the loss and the bytes a server sends.
#   PYTHONPATH=python /usr/bin/python3 python/examples/ddp_hook.py --allreduce optinc
import argparse
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
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description="data-parallel training with the OptINC all-reduce")
    p.add_argument("--servers", type=int, default=4)
    p.add_argument("--allreduce", default="optinc",
                   choices=[a.name for a in optinc.algorithms()])
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    with socket.socket() as s:        # a free port for the rendezvous
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(args, port), nprocs=args.servers)


if __name__ == "__main__":
    main()

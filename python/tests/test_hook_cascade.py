"""optinc.torch.optinc_hook through a cascade: 16 gloo processes on 127.0.0.1
register the hook with the default group as its state, which takes the
shipped 4-server unit in a two-level cascade; each saves its own gradient
and what the hook made of it, and this process checks that every rank got
the same bits and that they are the in-process plan's on the same 16
gradients (the ideal unit's table is exact, so both are the hierarchical
average of optinc-onn(7))."""
import os
import sys
import tempfile
import unittest

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import optinc
import optinc.torch as ot

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_hook import run_workers  # noqa: E402

WORLD = 16
TIMEOUT_S = 300      # 16 processes importing torch: 39 s measured on 2 shared cores


def local_grad(rank):
    """Rank's gradient of a tiny model on its own batch."""
    torch.manual_seed(0)
    net = torch.nn.Linear(6, 3)
    g = torch.Generator().manual_seed(rank)
    x, y = torch.randn(4, 6, generator=g), torch.randint(0, 3, (4,), generator=g)
    return net, x, y


def worker(rank, world, port, out):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    net, x, y = local_grad(rank)
    torch.nn.functional.cross_entropy(net(x), y).backward()
    own = torch.cat([p.grad.reshape(-1).clone() for p in net.parameters()])
    net, x, y = local_grad(rank)
    ddp = DDP(net)
    ddp.register_comm_hook(None, ot.optinc_hook)
    torch.nn.functional.cross_entropy(ddp(x), y).backward()
    reduced = torch.cat([p.grad.reshape(-1).clone() for p in net.parameters()])
    torch.save({"own": own, "reduced": reduced}, os.path.join(out, "rank%d.pt" % rank))
    # every rank done before any leaves: a rank that tears gloo down while a
    # peer's exchange is still in flight can end in std::terminate (SIGABRT)
    dist.barrier()
    dist.destroy_process_group()


class TestHookCascade(unittest.TestCase):
    def test_sixteen_ranks_through_the_cascade(self):
        with tempfile.TemporaryDirectory() as out:
            run_workers(out, worker, WORLD, TIMEOUT_S)
            res = [torch.load(os.path.join(out, "rank%d.pt" % r)) for r in range(WORLD)]
        for r in range(1, WORLD):
            self.assertTrue(torch.equal(res[r]["reduced"], res[0]["reduced"]), "rank %d" % r)
        # DDP's bucket holds the parameters in reverse order of registration
        grads = torch.stack([torch.cat([x["own"][18:], x["own"][:18]]) for x in res])
        table = optinc.AggTable.onn("netlists/onn4x8.pnl.sp", servers=WORLD)
        self.assertEqual(table.servers, 4)
        optinc.Plan("optinc", WORLD, table=table).run(grads)
        want = torch.cat([grads[0][3:], grads[0][:3]])
        self.assertTrue(torch.equal(res[0]["reduced"], want),
                        "%s\n%s" % (res[0]["reduced"], want))


if __name__ == "__main__":
    unittest.main()

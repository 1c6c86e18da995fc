# A residual CNN on Fashion-MNIST, data-parallel over N gloo processes with
# the all-reduce under test: the vision workload of the OptINC comparison
# (ResNet on CIFAR there; Debian ships Fashion-MNIST), scaled to a small CPU.
# A ResNet-20-style network: a 3x3 stem, 3 stages of basic blocks (two 3x3
# convolutions with batch norm and an identity or 1x1 shortcut), the 2nd and
# 3rd stages halving the resolution, global average pooling, a linear head;
# widths 8/16/32 and --blocks per stage (3 is ResNet-20's depth).
#   PYTHONPATH=python /usr/bin/python3 python/examples/resnet_fmnist.py \
#       --servers 4 --allreduce optinc --epochs 3 --seed 1 --train-subset 8000
# Prints a table per epoch, writes resnet_fmnist-ALLREDUCE-sSEED.csv;
# plot_runs.py draws several runs.
import gzip
import math
import os

import numpy
import torch
import torch.nn as nn
import torch.nn.functional as F

import harness

DATA = "/usr/share/datasets/fashion-mnist"   # the Debian package dataset-fashion-mnist
MEAN, STD = 0.2860, 0.3530                   # of the training images


def idx(path, offset):
    """The array of a gzipped IDX file past its header."""
    try:
        with gzip.open(path) as f:
            raw = f.read()
    except FileNotFoundError:
        raise SystemExit("%s: no such file: apt-get install dataset-fashion-mnist" % path)
    return numpy.frombuffer(raw, numpy.uint8, offset=offset)


def fashion_mnist(split, limit):
    """(images N x 1 x 28 x 28 normalized, labels) of the first limit examples."""
    prefix = "train" if split == "train" else "t10k"
    x = idx(os.path.join(DATA, prefix + "-images-idx3-ubyte.gz"), 16).reshape(-1, 1, 28, 28)
    y = idx(os.path.join(DATA, prefix + "-labels-idx1-ubyte.gz"), 8)
    x, y = x[:limit], y[:limit]
    x = (torch.from_numpy(x.astype(numpy.float32)) / 255.0 - MEAN) / STD
    return x, torch.from_numpy(y.astype(numpy.int64))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, blocks=1, widths=(8, 16, 32), classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, widths[0], 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(widths[0]), nn.ReLU())
        layers, cin = [], widths[0]
        for stage, w in enumerate(widths):
            for b in range(blocks):
                layers.append(BasicBlock(cin, w, 2 if stage and not b else 1))
                cin = w
        self.stages = nn.Sequential(*layers)
        self.head = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.stages(self.stem(x))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


class FashionWorkload:
    name = "resnet_fmnist"
    columns = ["test_loss", "test_accuracy"]

    def setup(self, args, rank):
        self.args, self.rank = args, rank
        self.x, self.y = fashion_mnist("train", args.train_subset)
        tx, ty = fashion_mnist("test", args.test_subset)
        # every rank evaluates its share of the test set
        per = math.ceil(len(ty) / args.servers)
        self.tx, self.ty = tx[rank * per:(rank + 1) * per], ty[rank * per:(rank + 1) * per]
        self.test_n = len(ty)
        net = ResNet(blocks=args.blocks)
        opt = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4,
                              nesterov=True)
        total = args.epochs * (len(self.y) // args.servers // args.batch_size)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, total) / max(total, 1))))
        return net, opt, sched

    def batches(self, epoch):
        return harness.batches(len(self.y), self.args, self.rank, epoch)

    def loss(self, model, batch):
        x = self.x[batch]
        if self.args.augment:   # a random horizontal flip, from the seeded stream
            flip = torch.rand(len(batch)) < 0.5
            x = torch.where(flip[:, None, None, None], x.flip(3), x)
        return F.cross_entropy(model(x), self.y[batch])

    def evaluate(self, net):
        loss, correct = 0.0, 0
        for i in range(0, len(self.ty), 500):
            out = net(self.tx[i:i + 500])
            loss += F.cross_entropy(out, self.ty[i:i + 500], reduction="sum").item()
            correct += (out.argmax(1) == self.ty[i:i + 500]).sum().item()
        loss, correct = harness.sum_over_ranks([loss, correct])
        return dict(test_loss=loss / self.test_n, test_accuracy=100.0 * correct / self.test_n)


def main():
    p = harness.parser("a residual CNN on Fashion-MNIST with the OptINC all-reduce",
                       epochs=3, train_subset=60000, lr=0.05, batch_size=32)
    p.add_argument("--test-subset", type=int, default=10000, metavar="M",
                   help="evaluate on the first M test images (default 10000)")
    p.add_argument("--blocks", type=int, default=1, help="basic blocks per stage (default 1)")
    p.add_argument("--no-augment", dest="augment", action="store_false",
                   help="no random horizontal flips")
    args = p.parse_args()
    harness.run(FashionWorkload(), args, "resnet_fmnist")


if __name__ == "__main__":
    main()

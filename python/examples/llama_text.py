# A LLaMA-style byte-level language model on English text, data-parallel
# over N gloo processes with the all-reduce under test: the language
# workload of the OptINC comparison (a LLaMA-based model on Wikipedia
# there), scaled to a small CPU.  A decoder of pre-norm blocks: RMSNorm,
# causal multi-head attention with rotary position embeddings, a SwiGLU
# feed-forward layer; no biases, an untied output head; 256 byte tokens.
# The default 128 wide, 5 blocks, 4 heads has about 1.05 M parameters.
# The corpus is the fortune cookies of the Debian package fortunes
# (/usr/share/games/fortunes, about 2.5 MB of English): every tenth fortune,
# in the files' sorted order, is validation, the rest is training.
#   PYTHONPATH=python /usr/bin/python3 python/examples/llama_text.py \
#       --servers 4 --allreduce optinc --epochs 2 --seed 1 --train-subset 4096
# Prints a table per epoch (validation loss in nats per byte and its
# perplexity), writes llama_text-ALLREDUCE-sSEED.csv.
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

import harness

CORPUS = "/usr/share/games/fortunes"       # the Debian package fortunes


def fortunes():
    """(training bytes, validation bytes): the fortunes of every file of the
    corpus (records between lines "%"), every tenth one for validation."""
    if not os.path.isdir(CORPUS):
        raise SystemExit("%s: no such folder: apt-get install fortunes" % CORPUS)
    records = []
    for name in sorted(os.listdir(CORPUS)):
        path = os.path.join(CORPUS, name)
        if name.endswith(".dat") or os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            records += [r.strip(b"\n") + b"\n%\n" for r in f.read().split(b"\n%\n") if r.strip()]
    train = b"".join(r for i, r in enumerate(records) if i % 10)
    val = b"".join(r for i, r in enumerate(records) if i % 10 == 0)
    return train, val


def windows(data, length, limit):
    """The first limit non-overlapping windows of length+1 bytes (input and
    the next byte as target), as a tensor of int64."""
    t = torch.frombuffer(bytearray(data), dtype=torch.uint8).long()
    n = min(limit, (len(t) - 1) // length)
    return t[:n * length + 1].unfold(0, length + 1, length)[:n]


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps, self.weight = eps, nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotary(length, head_dim, base=10000.0):
    """cos and sin of the rotary embedding, length x head_dim/2."""
    freq = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim)
    angle = torch.arange(length, dtype=torch.float32)[:, None] * freq[None, :]
    return angle.cos(), angle.sin()


def rotate(x, cos, sin):
    """Rotates each (even, odd) pair of x (batch, heads, length, head_dim)."""
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), -1).flatten(-2)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, x, cos, sin, mask):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(d // self.heads)
        att = att.masked_fill(mask, float("-inf")).softmax(-1)
        return self.out((att @ v).transpose(1, 2).reshape(b, n, d))


class SwiGLU(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1, self.attn = RMSNorm(dim), Attention(dim, heads)
        # LLaMA's hidden width: 2/3 of 4*dim, rounded up to a multiple of 8
        self.norm2, self.ffn = RMSNorm(dim), SwiGLU(dim, (8 * dim // 3 + 7) // 8 * 8)

    def forward(self, x, cos, sin, mask):
        x = x + self.attn(self.norm1(x), cos, sin, mask)
        return x + self.ffn(self.norm2(x))


class Llama(nn.Module):
    def __init__(self, dim=128, layers=5, heads=4, context=64, vocab=256):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.norm, self.head = RMSNorm(dim), nn.Linear(dim, vocab, bias=False)
        # constants, not buffers: nothing for DDP to broadcast
        self.cos, self.sin = rotary(context, dim // heads)
        self.mask = torch.ones(context, context, dtype=torch.bool).triu(1)

    def forward(self, tokens):
        n = tokens.shape[1]
        x = self.embed(tokens)
        cos, sin, mask = self.cos[:n], self.sin[:n], self.mask[:n, :n]
        for block in self.blocks:
            x = block(x, cos, sin, mask)
        return self.head(self.norm(x))


class TextWorkload:
    name = "llama_text"
    columns = ["val_loss", "val_perplexity"]

    def setup(self, args, rank):
        self.args, self.rank = args, rank
        train, val = fortunes()
        self.train = windows(train, args.context, args.train_subset)
        vw = windows(val, args.context, args.val_subset)
        per = math.ceil(len(vw) / args.servers)    # every rank its share of validation
        self.val, self.val_n = vw[rank * per:(rank + 1) * per], len(vw)
        net = Llama(args.dim, args.layers, args.heads, args.context)
        decay = [p for p in net.parameters() if p.dim() >= 2]
        rest = [p for p in net.parameters() if p.dim() < 2]
        opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                 {"params": rest, "weight_decay": 0.0}],
                                lr=args.lr, betas=(0.9, 0.95))
        total = args.epochs * (len(self.train) // args.servers // args.batch_size)
        warm = max(1, total // 10)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: min(1.0, (s + 1) / warm)
            * 0.5 * (1 + math.cos(math.pi * min(s, total) / max(total, 1))))
        return net, opt, sched

    def batches(self, epoch):
        return harness.batches(len(self.train), self.args, self.rank, epoch)

    def loss(self, model, batch):
        w = self.train[batch]
        logits = model(w[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), w[:, 1:].reshape(-1))

    def evaluate(self, net):
        loss = 0.0
        for i in range(0, len(self.val), 64):
            w = self.val[i:i + 64]
            logits = net(w[:, :-1])
            loss += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), w[:, 1:].reshape(-1),
                                    reduction="sum").item()
        loss = harness.sum_over_ranks([loss])[0] / (self.val_n * self.args.context)
        return dict(val_loss=loss, val_perplexity=math.exp(loss))


def main():
    p = harness.parser("a LLaMA-style byte-level language model with the OptINC all-reduce",
                       epochs=2, train_subset=4096, lr=3e-3, batch_size=8)
    p.add_argument("--val-subset", type=int, default=512, metavar="M",
                   help="validate on the first M validation windows (default 512)")
    p.add_argument("--context", type=int, default=64, help="bytes per window (default 64)")
    p.add_argument("--dim", type=int, default=128,
                   help="model width (default %(default)s)")
    p.add_argument("--layers", type=int, default=5,
                   help="decoder blocks (default %(default)s)")
    p.add_argument("--heads", type=int, default=4,
                   help="attention heads (default %(default)s)")
    args = p.parse_args()
    harness.run(TextWorkload(), args, "llama_text")


if __name__ == "__main__":
    main()

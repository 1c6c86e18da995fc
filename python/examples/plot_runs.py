# Draws the CSVs of resnet_fmnist.py or llama_text.py runs in one figure:
# the metric per epoch (test accuracy, or validation perplexity) on the
# left, the training loss on the right, a line per run labelled by its
# all-reduce and seed, ring and optinc in two colours.
#   /usr/bin/python3 python/examples/plot_runs.py -o runs.png *.csv
import argparse
import csv

import matplotlib

matplotlib.use("Agg")          # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

METRICS = ("test_accuracy", "val_perplexity")
MARKERS = "os^Dv<>p*h"        # one per seed, in the order seeds first appear
COLOURS = {"ring": "tab:blue", "optinc": "tab:red", "quantized": "tab:green",
           "exact": "tab:grey"}


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def plot(paths, out):
    """Writes the figure of the runs in paths to out (PNG, or what the
    file name's extension says)."""
    runs = [(p, read(p)) for p in paths]
    metric = next(m for m in METRICS if m in runs[0][1][0])
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    seeds = []
    for path, rows in runs:
        alg, seed = rows[0]["allreduce"], rows[0]["seed"]
        if seed not in seeds:
            seeds.append(seed)
        epochs = [int(r["epoch"]) for r in rows]
        kw = dict(color=COLOURS.get(alg, "black"), marker=MARKERS[seeds.index(seed) % len(MARKERS)],
                  label="%s, seed %s" % (alg, seed), alpha=0.8)
        left.plot(epochs, [float(r[metric]) for r in rows], **kw)
        right.plot(epochs, [float(r["train_loss"]) for r in rows], **kw)
    for ax in (left, right):
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    left.set(xlabel="epoch", ylabel=metric.replace("_", " "))
    right.set(xlabel="epoch", ylabel="training loss")
    servers = runs[0][1][0]["servers"]
    fig.suptitle("%d runs, %s servers: ring all-reduce vs OptINC" % (len(runs), servers))
    left.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def main():
    p = argparse.ArgumentParser(description="plot training runs' CSVs")
    p.add_argument("csv", nargs="+")
    p.add_argument("-o", "--output", default="runs.png")
    args = p.parse_args()
    plot(args.csv, args.output)


if __name__ == "__main__":
    main()

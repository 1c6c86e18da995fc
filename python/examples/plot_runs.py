# Draws the CSVs of resnet_fmnist.py and llama_text.py runs: a figure per
# workload, titled with it, of three panels: the metric per epoch (test
# accuracy, or validation perplexity), the training loss per epoch (a line
# per run, labelled by its all-reduce and seed, each all-reduce in its
# colour), and the bytes a server sends per step against ring's.
#   /usr/bin/python3 python/examples/plot_runs.py -o runs.png *.csv
# With runs of one workload the figure is runs.png; with several, one file
# per workload, runs-resnet_fmnist.png and runs-llama_text.png.  Prints
# the files it wrote.
import argparse
import csv
import os

import matplotlib

matplotlib.use("Agg")          # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

# A workload by its final metric: its script, its title, the metric's label.
WORKLOADS = {
    "test_accuracy": ("resnet_fmnist", "ResNet on Fashion-MNIST (resnet_fmnist.py)",
                      "test accuracy (%)"),
    "val_perplexity": ("llama_text", "LLaMA-style decoder on fortunes (llama_text.py)",
                       "validation perplexity"),
}
MARKERS = "os^Dv<>p*h"        # one per seed, in the order seeds first appear
COLOURS = {"ring": "tab:blue", "optinc": "tab:red", "quantized": "tab:green",
           "exact": "tab:grey"}
SIZE, DPI = (15, 4.5), 100    # inches, dots per inch: 1500 x 450 pixels


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def workload(path, rows):
    for metric in WORKLOADS:
        if rows and metric in rows[0]:
            return metric
    raise SystemExit("%s: not the CSV of a workload example (no %s column)"
                     % (path, " or ".join(WORKLOADS)))


def draw(metric, runs, out):
    """One workload's figure of runs [(path, rows)] to out; what it drew."""
    name, title, label = WORKLOADS[metric]
    fig, (left, mid, right) = plt.subplots(1, 3, figsize=SIZE)
    seeds, epochs, sent = [], set(), {}
    for path, rows in runs:
        alg, seed = rows[0]["allreduce"], rows[0]["seed"]
        if seed not in seeds:
            seeds.append(seed)
        x = [int(r["epoch"]) for r in rows]
        epochs.update(x)
        kw = dict(color=COLOURS.get(alg, "black"), marker=MARKERS[seeds.index(seed) % len(MARKERS)],
                  label="%s, seed %s" % (alg, seed), alpha=0.8)
        left.plot(x, [float(r[metric]) for r in rows], **kw)
        mid.plot(x, [float(r["train_loss"]) for r in rows], **kw)
        sent.setdefault(alg, []).append(int(rows[-1]["bytes_per_server_step"]))
    ticks = sorted(epochs)
    for ax in (left, mid):      # the epochs themselves, even a single one
        ax.set_xticks(ticks)
        ax.set_xlim(ticks[0] - 0.5, ticks[-1] + 0.5)
        ax.ticklabel_format(axis="y", useOffset=False)
    left.set(xlabel="epoch", ylabel=label, title=label)
    mid.set(xlabel="epoch", ylabel="training loss", title="training loss")
    left.legend(fontsize="small")
    # bytes per server and step, each all-reduce's mean over its runs
    algs = sorted(sent, key=lambda a: (a != "ring", a))
    mean = [sum(sent[a]) / len(sent[a]) for a in algs]
    bars = right.bar(algs, mean, color=[COLOURS.get(a, "black") for a in algs])
    ring = mean[0] if algs[0] == "ring" else None
    if ring:
        right.bar_label(bars, ["%.2f of ring" % (m / ring) for m in mean], fontsize="small")
    right.set(ylabel="bytes per server and step", title="bytes per server and step"
              + (" against ring" if ring else " (no ring run)"))
    servers = runs[0][1][0]["servers"]
    heading = "%s: %d runs, %s servers" % (title, len(runs), servers)
    fig.suptitle(heading)
    fig.tight_layout()
    fig.savefig(out, dpi=DPI)
    plt.close(fig)
    return dict(path=out, workload=name, title=heading,
                panels=[ax.get_title() for ax in (left, mid, right)], epochs=ticks)


def plot(paths, out):
    """Draws the runs of the CSVs in paths, a figure per workload, to out
    (PNG, or what the file name's extension says), or with several
    workloads to out's name with -WORKLOAD before the extension; returns
    what each figure drew (path, workload, title, panels, epochs)."""
    groups = {}
    for p in paths:
        rows = read(p)
        groups.setdefault(workload(p, rows), []).append((p, rows))
    stem, ext = os.path.splitext(out)
    return [draw(metric, runs, out if len(groups) == 1 else
                 "%s-%s%s" % (stem, WORKLOADS[metric][0], ext))
            for metric, runs in groups.items()]


def main():
    p = argparse.ArgumentParser(description="plot the CSVs of resnet_fmnist.py and "
                                            "llama_text.py runs, a figure per workload")
    p.add_argument("csv", nargs="+", help="the runs' CSV files, of one workload or both")
    p.add_argument("-o", "--output", default="runs.png",
                   help="the figure (default %(default)s); with both workloads, "
                        "NAME-resnet_fmnist.png and NAME-llama_text.png")
    args = p.parse_args()
    for drawn in plot(args.csv, args.output):
        print("%s: %s" % (drawn["workload"], os.path.abspath(drawn["path"])))


if __name__ == "__main__":
    main()

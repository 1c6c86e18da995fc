"""A photonic designer's first hour with optinc, on NumPy arrays.

Compiles a 64-mode Haar unitary (one Clements mesh) and a real 64 x 32
weight matrix (SVD: two meshes and an attenuator column), draws the phase
heat maps with matplotlib, simulates 20 chips per phase error sigma with and
without calibrating their couplers, plots fidelity against sigma, and
exports both circuits to SAX.

    PYTHONPATH=python /usr/bin/python3 python/examples/mesh_tour.py -o tour

writes tour/phases.png, tour/fidelity.png, tour/haar64.json and
tour/dense64x32.json (with their SAX models beside them), and prints the
fidelity table.  Runs in well under a minute (optinc-python(7)).
"""
import argparse
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import optinc  # noqa: E402

SIGMAS = [0.0, 0.005, 0.01, 0.02, 0.05, 0.1]   # static phase error per shifter, rad
CHIPS = 20
SPLITTER_SIGMA = 0.02                           # every coupler's deviation from 50:50


def haar(n, rng):
    """A Haar-random unitary (QR of a complex Gaussian matrix, Mezzadri 2007)."""
    q, r = np.linalg.qr((rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n)))
                        / np.sqrt(2))
    return q * (np.diag(r) / np.abs(np.diag(r)))


def heat_map(ax, mesh, title):
    """theta of every MZI at (column, upper mode): the mesh as it sits on chip."""
    grid = np.full((mesh.modes - 1, mesh.columns), np.nan)
    grid[mesh.row, mesh.column] = mesh.theta
    im = ax.imshow(grid, aspect="auto", cmap="twilight", vmin=0, vmax=2 * np.pi,
                   interpolation="nearest")
    ax.set_title(title)
    ax.set_xlabel("column")
    ax.set_ylabel("mode")
    return im


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", default="mesh-tour", help="folder of the outputs")
    args = ap.parse_args()
    os.makedirs(args.output, exist_ok=True)
    rng = np.random.default_rng(2026)

    # Compile: a unitary needs no attenuators; a dense layer is W = U S V^H.
    chip_table = {"mzi": {"splitter_error_sigma": SPLITTER_SIGMA}}
    U = haar(64, rng)
    haar64 = optinc.compile(U, attenuators="none", components=chip_table, name="haar64")
    W = rng.standard_normal((64, 32))
    dense = optinc.compile(W, components=chip_table, name="dense64x32")
    for c, target in ((haar64, U), (dense, W)):
        L = c.layers[0]
        print("%-11s %d x %d: %d MZIs in %d meshes, gain %.3f, max|matrix - W| %.2e"
              % (c.name, L.rows, L.cols, sum(len(m.theta) for m in L.meshes),
                 len(L.meshes), L.gain, np.abs(c.matrix() - target).max()))

    # The phase heat maps.
    meshes = [("haar64: U", haar64.layers[0].meshes[0])] + \
        [("dense64x32: " + m.tag, m) for m in dense.layers[0].meshes]
    fig, axes = plt.subplots(1, len(meshes), figsize=(5 * len(meshes), 4.5),
                             constrained_layout=True)
    for ax, (title, mesh) in zip(axes, meshes):
        im = heat_map(ax, mesh, title + " (theta, rad)")
    fig.colorbar(im, ax=axes, shrink=0.8)
    fig.savefig(os.path.join(args.output, "phases.png"), dpi=110)
    plt.close(fig)

    # Fidelity against phase error, 20 chips a point, as measured and with
    # each chip's couplers calibrated (optinc simulate --monte-carlo --calibrate).
    print("%8s %14s %14s %14s %14s" % ("sigma", "haar64", "calibrated", "dense64x32",
                                        "calibrated"))
    curves = {}
    for sigma in SIGMAS:
        row = []
        for c in (haar64, dense):
            chip = optinc.Chip(phase_sigma=sigma) if sigma else None
            r = c.monte_carlo(CHIPS, seed=1, chip=chip, calibrate=True)
            for key, f in (("", r.mean[0]), (" calibrated", r.after_mean[0])):
                curves.setdefault(c.name + key, []).append(f.fidelity)
                row.append(f.fidelity)
        print("%8.3f %14.6f %14.6f %14.6f %14.6f" % (sigma, *row))
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for name, values in curves.items():
        ax.plot(SIGMAS, values, "o-" if "calibrated" in name else "s--", label=name)
    ax.set_xscale("symlog", linthresh=0.005)
    ax.set_xlabel("phase error sigma (rad), couplers 50:50 +- %.2f" % SPLITTER_SIGMA)
    ax.set_ylabel("fidelity, mean of %d chips" % CHIPS)
    ax.set_title("Fidelity against phase error")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.savefig(os.path.join(args.output, "fidelity.png"), dpi=110)
    plt.close(fig)

    # SAX: the netlist and models a circuit simulator takes next.
    for c in (haar64, dense):
        c.export("sax", os.path.join(args.output, c.name + ".json"))
    print("wrote", ", ".join(sorted(os.listdir(args.output))))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""`make bench`'s pictures from what a bench command measured.

    bench-plots.py latency LATENCY.tsv OUT.png   # "quiet|busy<TAB>seconds" per command heard
    bench-plots.py memory MEMORY.tsv OUT.png     # "seconds<TAB>MB" sampled over one dictation
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def latency(source, out):
    runs = {}
    for line in open(source, encoding="utf-8"):
        name, seconds = line.split("\t")
        runs.setdefault(name, []).append(float(seconds))
    figure, axes = plt.subplots(figsize=(7, 3.6))
    for name, values in runs.items():
        values.sort()
        share = [(index + 1) / len(values) for index in range(len(values))]
        axes.step(values, share, where="post", label=f"{name} ({len(values)} heard)")
    axes.axvline(1.0, color="grey", linestyle=":", linewidth=1)
    axes.axvline(2.0, color="grey", linestyle="--", linewidth=1)
    axes.set_xlabel("seconds from the end of the command's speech to the dictation")
    axes.set_ylabel("share of the commands heard")
    axes.set_title("Command latency (dotted: median aim, dashed: 95th percentile aim)", fontsize=10)
    axes.grid(alpha=0.3)
    axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(out, dpi=110)


def memory(source, out):
    seconds, megabytes = [], []
    for line in open(source, encoding="utf-8"):
        time, size = line.split("\t")
        seconds.append(float(time) / 60)
        megabytes.append(float(size))
    figure, axes = plt.subplots(figsize=(7, 3.2))
    axes.plot(seconds, megabytes)
    axes.set_ylim(bottom=0)
    axes.set_xlabel("minutes into the run (the recording fed as fast as the live path takes it)")
    axes.set_ylabel("resident MB")
    axes.set_title("Resident memory of boxvoice dictate over the longest recording", fontsize=10)
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(out, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("latency", "memory"):
        sys.exit(__doc__)
    {"latency": latency, "memory": memory}[sys.argv[1]](sys.argv[2], sys.argv[3])

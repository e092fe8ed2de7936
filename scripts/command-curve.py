#!/usr/bin/python3
"""Draws the command decision's curve from `boxvoice-bench hearing-probe --verbose` logs: false actions per hour of
keyword-free speech against missed commands, one point per act line, and prints the table behind it.

Usage: scripts/command-curve.py OUT.png --clips LOG [LOG ...] --streams LOG:MINUTES [LOG:MINUTES ...]
A clip log holds lines `command in CLIP at T s ..., score S, the clip's|another: TEXT`, per condition (a line
`NAME: n/16, ...` closes each); a stream log holds `command at T s ..., score S: TEXT` for every command Whisper wrote
in speech that holds none. Uses Debian's python3-matplotlib (apt), hence /usr/bin/python3.
"""
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plot  # noqa: E402

SCORE = re.compile(r"score (-?[0-9.]+|-)")


def clip_outcomes(paths):
    """Per clip and condition: the scores of its commands in order, each marked the clip's or another."""
    outcomes = []
    for path in paths:
        current = {}
        order = []
        for line in open(path, encoding="utf-8"):
            line = line.strip()
            if line.startswith("command in "):
                clip = line.split()[2]
                score = SCORE.search(line).group(1)
                mine = ", the clip's:" in line
                if clip not in current:
                    current[clip] = []
                    order.append(clip)
                current[clip].append((None if score == "-" else float(score), mine))
            elif re.match(r"^[a-z].*: \d+/\d+, ", line):
                total = int(re.search(r": \d+/(\d+),", line).group(1))
                heard = [current[clip] for clip in order]
                outcomes += heard + [[]] * (total - len(heard))
                current, order = {}, []
    return outcomes


def stream_scores(specs):
    scores, minutes = [], 0.0
    for spec in specs:
        path, length = spec.rsplit(":", 1)
        minutes += float(length)
        for line in open(path, encoding="utf-8"):
            line = line.strip()
            if line.startswith("command at "):
                score = SCORE.search(line).group(1)
                scores.append(None if score == "-" else float(score))
    return scores, minutes


def judged(outcomes, line):
    """Clips whose first command acting at this line is theirs, and those where another acted first."""
    right = wrong = 0
    for commands in outcomes:
        acting = [mine for score, mine in commands if score is not None and score >= line]
        if acting and acting[0]:
            right += 1
        elif acting:
            wrong += 1
    return right, wrong


def main(argv):
    out = argv[1]
    clips = argv[argv.index("--clips") + 1 : argv.index("--streams")]
    streams = argv[argv.index("--streams") + 1 :]
    outcomes = clip_outcomes(clips)
    false, minutes = stream_scores(streams)
    lines = [x / 20 for x in range(0, -81, -1)]
    points = []
    print(f"{len(outcomes)} clips; {len(false)} commands written in {minutes:.1f} min of keyword-free speech")
    print("| act line | missed commands | wrong actions | false actions per hour |")
    print("|---|---|---|---|")
    for line in lines:
        right, wrong = judged(outcomes, line)
        per_hour = sum(1 for s in false if s is not None and s >= line) * 60 / minutes
        missed = 1 - right / len(outcomes)
        points.append((line, missed, per_hour))
        if round(line * 20) % 5 == 0:
            print(f"| {line:.2f} | {100 * missed:.1f} % | {wrong} | {per_hour:.2f} |")
    figure, axes = plot.subplots(figsize=(6.4, 4.2), dpi=100)
    axes.plot([p[2] for p in points], [100 * p[1] for p in points], marker=".", linewidth=1)
    for line, missed, per_hour in points:
        if round(line * 20) % 10 == 0:
            axes.annotate(f"{line:.1f}", (per_hour, 100 * missed), textcoords="offset points", xytext=(4, 4), fontsize=7)
    axes.set_xlabel("false actions per hour of keyword-free speech")
    axes.set_ylabel("missed commands (%)")
    axes.set_title("The score alone, one act line a point (language checks not applied)", fontsize=10)
    axes.grid(True, alpha=0.3)
    figure.tight_layout()
    figure.savefig(out)


if __name__ == "__main__":
    main(sys.argv)

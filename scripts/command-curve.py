#!/usr/bin/python3
"""Draws the command decision's curves from `boxvoice-bench hearing-probe --verbose` logs: false actions per hour of
keyword-free speech against missed commands, one point per act line, for the prompt-free score alone and for the
evidence the product uses (`CommandDecision.evidence`: the score plus WEIGHT times the log of the prompted
sureness), and prints the table behind the chosen curve.

Usage: scripts/command-curve.py OUT.png [--weight W] [--act LINE] --clips LOG [LOG ...] --streams LOG:MINUTES [...]
A clip log holds lines `command in CLIP at T s ..., weighed S/P/E score X, the clip's|another: TEXT`, per condition
(a line `NAME: n/16, ...` closes each); a stream log holds `command at T s ..., weighed S/P/E score X: TEXT` for
every command Whisper wrote in speech that holds none. The language checks, which run after the decision, are not
applied: the curve is what the decision alone lets through. Uses Debian's python3-matplotlib (apt), hence
/usr/bin/python3.
"""
import math
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plot  # noqa: E402

WEIGHED = re.compile(r"weighed ([0-9.]+)/[^ ]* score (-?[0-9.]+|-)")


def weighed(line):
    """The prompted sureness and the prompt-free score of a probe line's command (score None: not weighed)."""
    found = WEIGHED.search(line)
    score = found.group(2)
    return float(found.group(1)), None if score == "-" else float(score)


def clip_outcomes(paths):
    """Per clip and condition: its commands in order as (sureness, score, the clip's own)."""
    outcomes = []
    for path in paths:
        current, order = {}, []
        for line in open(path, encoding="utf-8"):
            line = line.strip()
            if line.startswith("command in "):
                clip = line.split()[2]
                if clip not in current:
                    current[clip] = []
                    order.append(clip)
                current[clip].append((*weighed(line), ", the clip's:" in line))
            elif re.match(r"^[a-z].*: \d+/\d+, ", line):
                total = int(re.search(r": \d+/(\d+),", line).group(1))
                heard = [current[clip] for clip in order]
                outcomes += heard + [[]] * (total - len(heard))
                current, order = {}, []
    return outcomes


def stream_commands(specs):
    commands, minutes = [], 0.0
    for spec in specs:
        path, length = spec.rsplit(":", 1)
        minutes += float(length)
        commands += [weighed(line) for line in open(path, encoding="utf-8") if line.strip().startswith("command at ")]
    return commands, minutes


def evidence(sureness, score, weight):
    """-inf for a command not weighed: no act line lets it act alone."""
    return -math.inf if score is None else score + weight * math.log(max(sureness, 1e-6))


def curve(outcomes, false, minutes, weight, lines):
    """(line, missed share, wrong actions, false actions per hour) for each act line."""
    points = []
    for line in lines:
        right = wrong = 0
        for commands in outcomes:
            acting = [mine for sure, score, mine in commands if evidence(sure, score, weight) >= line]
            right += 1 if acting and acting[0] else 0
            wrong += 1 if acting and not acting[0] else 0
        passed = sum(1 for sure, score in false if evidence(sure, score, weight) >= line)
        points.append((line, 1 - right / len(outcomes), wrong, passed * 60 / minutes))
    return points


def main(argv):
    out = argv[1]
    weight = float(argv[argv.index("--weight") + 1]) if "--weight" in argv else 0.5
    act = float(argv[argv.index("--act") + 1]) if "--act" in argv else -2.5
    clips = argv[argv.index("--clips") + 1 : argv.index("--streams")]
    streams = [a for a in argv[argv.index("--streams") + 1 :] if ":" in a]
    outcomes = clip_outcomes(clips)
    false, minutes = stream_commands(streams)
    lines = [x / 20 for x in range(0, -101, -1)]
    chosen = curve(outcomes, false, minutes, weight, lines)
    point = next(p for p in chosen if p[0] == act)
    print(
        f"<!-- headline: act line {act:.1f}: {100 * point[1]:.1f} % of {len(outcomes)} development commands missed, "
        f"{point[2]} wrong, {point[3]:.1f} false actions an hour of foreign speech before the language checks -->")
    print()
    print(f"{len(outcomes)} clips; {len(false)} commands written in {minutes:.1f} min of keyword-free speech")
    print()
    print(f"| act line | missed commands | wrong actions | false actions per hour (weight {weight}) |")
    print("|---|---|---|---|")
    for line, missed, wrong, per_hour in chosen:
        if line == act:
            print(f"| **{line:.2f}** | **{100 * missed:.1f} %** | **{wrong}** | **{per_hour:.2f}** |")
        elif round(line * 20) % 10 == 0:
            print(f"| {line:.2f} | {100 * missed:.1f} % | {wrong} | {per_hour:.2f} |")
    figure, axes = plot.subplots(figsize=(6.4, 4.2), dpi=100)
    alone = curve(outcomes, false, minutes, 0, lines)
    axes.plot([p[3] for p in alone], [100 * p[1] for p in alone], marker=".", linewidth=1, label="score alone")
    axes.plot(
        [p[3] for p in chosen], [100 * p[1] for p in chosen], marker=".", linewidth=1,
        label=f"score + {weight} ln(sureness)")
    for line, missed, _, per_hour in chosen:
        if round(line * 20) % 20 == 0:
            axes.annotate(f"{line:.0f}", (per_hour, 100 * missed), textcoords="offset points", xytext=(4, 4), fontsize=7)
    axes.plot([point[3]], [100 * point[1]], marker="o", markersize=9, fillstyle="none", color="black",
              label=f"act line {act}")
    axes.set_xlabel("false actions per hour of keyword-free speech, before the language checks")
    axes.set_ylabel("missed commands (%)")
    axes.set_title("Command decision on development data: one act line a point", fontsize=10)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(out)


if __name__ == "__main__":
    main(sys.argv)

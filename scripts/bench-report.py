#!/usr/bin/env python3
"""Writes BENCHMARKS.md from the areas' reports that `make bench` left in docs/bench/.

    bench-report.py REPORTS_DIR OUT.md AREA...

Each report starts with a stamp line, `<!-- made by: make bench AREAS=<area> | <commit> | <date> | <machine> -->`,
and holds one `<!-- headline: ... -->` line per figure that belongs on the first screen. Nothing here measures or
rewrites a figure: the first screen is the headlines as the benches wrote them, beside the commit that made them.
"""
import os
import re
import sys

# Areas whose report is long detail for one setting rather than where the product stands: linked, not inlined.
LINKED = {"pocketsphinx"}
TITLES = {
    "capture": "Capture to disk",
    "keywords": "Keywords",
    "curve": "The command decision's operating point",
    "hearing": "Hearing",
    "latency": "Latency and memory",
    "wire": "The wire: upload, Opus, retranscription",
    "durability": "Durability and faults",
    "pocketsphinx": "The pocketsphinx road (`recognizer pocketsphinx`, `calibrate`)",
    "suite": "The test suite",
}
STAMP = re.compile(r"<!-- made by: (.*?) -->")
HEADLINE = re.compile(r"<!-- headline: (.*?) -->", re.S)
# A relative link in an area's report is relative to docs/bench/; BENCHMARKS.md sits at the root.
LINK = re.compile(r"\]\((?!https?:|#|/)([^)]+)\)")


def main(folder, out, areas):
    rows, bodies, machines = [], [], set()
    for area in areas:
        path = os.path.join(folder, area + ".md")
        title = TITLES.get(area, area)
        if not os.path.exists(path):
            rows.append(f"| {title} | not measured yet: `make bench AREAS={area}` | |")
            continue
        text = open(path, encoding="utf-8").read()
        stamp = STAMP.search(text)
        made = "unstamped"
        if stamp:
            _, commit, date, machine = [part.strip() for part in stamp.group(1).split("|")]
            made = f"{commit}, {date}"
            machines.add(machine)
        headlines = [" ".join(h.split()) for h in HEADLINE.findall(text)] or ["(no headline)"]
        where = f"[docs/bench/{area}.md](docs/bench/{area}.md)" if area in LINKED else ""
        rows.append(f"| {title} | " + "<br>".join(headlines) + (f" ({where})" if where else "") + f" | {made} |")
        if area not in LINKED:
            body = STAMP.sub("", text).strip()
            body = LINK.sub(lambda m: "](" + os.path.normpath(os.path.join("docs/bench", m.group(1))) + ")", body)
            bodies.append(body + f"\n\n*Made by `make bench AREAS={area}` at {made}.*")
    with open(out, "w", encoding="utf-8") as report:
        report.write(
            "# Benchmarks\n\n"
            "What boxvoice costs and how well it hears, measured by `make bench` against named baselines that run in\n"
            "the same invocation. Each area is remade alone by `make bench AREAS=<area>` and says which commit made\n"
            "it; git keeps every earlier report. Machine: " + ("; ".join(sorted(machines)) or "none yet") + ".\n\n"
            "| area | where it stands | made at |\n|---|---|---|\n" + "\n".join(rows) + "\n\n"
            + "\n\n".join(bodies) + "\n"
        )


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])

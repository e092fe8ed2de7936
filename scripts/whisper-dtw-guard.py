#!/usr/bin/env python3
"""Mends a read past the end in whisper.cpp 1.8.5's word timing (src/whisper.cpp, the DTW token timestamps).

When the timestamps are placed, the loop steps to the next segment after a segment's last token, and then reads
that segment's tokens even when there is none: one past the end of the results. Most of the time the bytes there
are mapped and unused, so nothing shows; when the results end at a page boundary the read faults and the process
dies (seen in boxvoice's live path about once in a few hundred decodes of short utterances). The mend stops
placing when the segments are used up, which is all the loop had left to do.

Usage: whisper-dtw-guard.py path/to/whisper.cpp/src/whisper.cpp (edited in place; fails unless both places are
found exactly as expected, so a different whisper.cpp is never half-mended).
"""
import re
import sys

path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    source = f.read()

step = re.compile(r"(\n(?P<indent>[ ]+)\+\+seg_i;\n)(?P=indent)tok_i = seg_i->tokens\.begin\(\);")
found = step.findall(source)
if len(found) != 2:
    sys.exit(f"whisper-dtw-guard: expected 2 segment steps in {path}, found {len(found)}")


def guarded(match):
    indent = match.group("indent")
    return (
        match.group(1)
        + f"{indent}if (seg_i == state->result_all.end()) {{ goto boxvoice_dtw_placed; }}\n"
        + f"{indent}tok_i = seg_i->tokens.begin();"
    )


source = step.sub(guarded, source)
# The label goes right after the placing loop, before the (commented-out) printout that follows it.
marker = "\n    // Print DTW timestamps\n"
if source.count(marker) != 1:
    sys.exit(f"whisper-dtw-guard: the end of the placing loop was not found in {path}")
source = source.replace(marker, "\nboxvoice_dtw_placed:\n" + marker, 1)
with open(path, "w", encoding="utf-8") as f:
    f.write(source)

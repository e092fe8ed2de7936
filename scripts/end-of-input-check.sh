#!/usr/bin/env bash
# Issue "end of input": dictates every clip scripts/end-of-input-clips.sh makes (each ends exactly at its command, in
# voices no tuning used) with `boxvoice dictate --input CLIP --json` to the embedded local box, one throwaway data
# folder per clip, and prints the commands acted on against those expected, the wrong actions, and the frames each
# mic-off draft kept. Usage: scripts/end-of-input-check.sh BIN_DIR [CLIP_DIR]
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
clips=${2:-$(mktemp -d /tmp/boxvoice-eoi.XXXXXX)}
[ -s "$clips/clips.tsv" ] || "$here/end-of-input-clips.sh" "$clips" >/dev/null
right=0; expected_total=0; wrong=0
while IFS=$'\t' read -r file expected sentence; do
    data=$(mktemp -d /tmp/boxvoice-eoi-run.XXXXXX)
    export XDG_DATA_HOME=$data/data XDG_CONFIG_HOME=$data/config XDG_CACHE_HOME=$data/cache XDG_RUNTIME_DIR=$data/run
    "$bin/boxvoice" dictate --input "$clips/$file" --json </dev/null >"$data/events.json" 2>"$data/stderr" || true
    acted=$(python3 -c '
import json, sys
out = []
for line in open(sys.argv[1]):
    try: event = json.loads(line)
    except ValueError: continue
    if event.get("event") == "keyword": out.append(event.get("action", "?"))
print(",".join(out))' "$data/events.json")
    IFS=, read -r -a want <<<"$expected"
    IFS=, read -r -a got <<<"$acted"
    expected_total=$((expected_total + ${#want[@]}))
    for i in "${!want[@]}"; do
        if [ "${got[$i]:-}" = "${want[$i]}" ]; then right=$((right + 1)); elif [ -n "${got[$i]:-}" ]; then wrong=$((wrong + 1)); fi
    done
    [ ${#got[@]} -gt ${#want[@]} ] && wrong=$((wrong + ${#got[@]} - ${#want[@]}))
    drafts=""
    if [[ ",$expected," == *",micOff,"* ]]; then
        for wav in $(find "$data/data" -path '*recordings*' -name 'seg-*.wav' 2>/dev/null); do
            drafts="$drafts $(soxi -s "$wav" 2>/dev/null) of $(soxi -s "$clips/$file" 2>/dev/null) frames"
        done
        drafts=" draft audio:${drafts:- none}"
    fi
    printf '%s\texpected %s\tacted %s%s\n' "$file" "$expected" "${acted:--}" "$drafts"
    rm -rf "$data"
done <"$clips/clips.tsv"
echo "commands acted on as themselves: $right/$expected_total, wrong actions: $wrong"

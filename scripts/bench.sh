#!/usr/bin/env bash
# `make bench [AREAS="capture latency"]`: measures boxvoice against named baselines on this machine, one area at a
# time (all by default). Each area's report goes to docs/bench/<area>.md, stamped with the commit and machine that
# made it; scripts/bench-report.py then writes BENCHMARKS.md from every area's report. An area that fails leaves its
# previous report in place (and its stamp says how old it is).
# Usage: scripts/bench.sh BIN_DIR [AREA...]
#   areas: capture keywords curve hearing latency wire durability pocketsphinx suite
set -euo pipefail
bin_dir=$1; shift
root=$(cd "$(dirname "$0")/.." && pwd)
all_areas=(capture keywords curve hearing latency wire durability pocketsphinx suite)
areas=("$@"); [ ${#areas[@]} -gt 0 ] || areas=("${all_areas[@]}")
for area in "${areas[@]}"; do
    [[ " ${all_areas[*]} " == *" $area "* ]] || { echo "bench.sh: no area '$area' (areas: ${all_areas[*]})" >&2; exit 2; }
done
work=$(mktemp -d /tmp/boxvoice-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
runs=${BENCH_RUNS:-7}
bench=("$bin_dir/boxvoice-bench")
reports=$root/docs/bench
mkdir -p "$reports"

cpu() { # prints user+sys CPU seconds of the command
    local TIMEFORMAT='%3U %3S'
    { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ printf "%.3f\n", $1 + $2 }'
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

# Real recorded speech (Debian's Asterisk prompts) and the command clips, fetched or made once per run.
real() { [ -d "$work/real" ] || "$root/scripts/real-speech.sh" "$work/real" >&2; }
# Held-out sets i and j in one folder (32 clips: 16 voices and sentences each, none a setting was chosen on).
held_out_ij() {
    [ -d "$work/held-out-ij" ] && return
    mkdir -p "$work/held-out-ij"
    for set in i j; do
        "$root/scripts/held-out-commands.sh" "$work/held-out-$set" "$set" >/dev/null
        for clip in "$work/held-out-$set"/*.wav; do cp "$clip" "$work/held-out-ij/$set-$(basename "$clip")"; done
        sed "s/^/$set-/" "$work/held-out-$set/commands.tsv" >>"$work/held-out-ij/commands.tsv"
    done
}

# --- capture: boxvoice record against arecord, same ALSA file PCM, same frames; the first words' pre-roll ----------
area_capture() {
    "$bin_dir/boxvoice" devices file-pcm "$root/Samples/long-meeting-notes.wav" --dir "$work" --name bench_mic \
        >"$work/made.txt"
    local frames seconds
    frames=$(sed -n 's/.*plays \([0-9]*\) frames.*/\1/p' "$work/made.txt")
    seconds=$(sed -n 's/.*--max-seconds \([0-9.]*\).*/\1/p' "$work/made.txt")
    : >"$work/boxvoice.cpu"; : >"$work/arecord.cpu"; : >"$work/arecord20.cpu"
    for _ in $(seq "$runs"); do
        rm -rf "$work/rec" "$work/arecord.wav" "$work/arecord20.wav"
        ALSA_CONFIG_PATH="/usr/share/alsa/alsa.conf:$work/bench_mic.asound.conf" cpu "$bin_dir/boxvoice" record \
            --device bench_mic --max-seconds "$seconds" --out "$work/rec" >>"$work/boxvoice.cpu"
        ALSA_CONFIG_PATH="/usr/share/alsa/alsa.conf:$work/bench_mic.asound.conf" cpu arecord -q -D bench_mic \
            -f FLOAT_LE -r 48000 -c 1 -t wav -s "$frames" "$work/arecord.wav" >>"$work/arecord.cpu"
        ALSA_CONFIG_PATH="/usr/share/alsa/alsa.conf:$work/bench_mic.asound.conf" cpu arecord -q -D bench_mic \
            -f FLOAT_LE -r 48000 -c 1 -t wav -s "$frames" --period-size=960 --buffer-size=7680 \
            "$work/arecord20.wav" >>"$work/arecord20.cpu"
    done
    local bv ar ar20
    bv=$(median <"$work/boxvoice.cpu"); ar=$(median <"$work/arecord.cpu"); ar20=$(median <"$work/arecord20.cpu")
    echo "## Capture to disk"
    echo
    echo "<!-- headline: \`boxvoice record\` $bv CPU s for ${seconds%.*} s of audio, arecord $ar s: $(ratio "$bv" "$ar")× -->"
    echo
    echo "\`Samples/long-meeting-notes.wav\` (${seconds%.*} s) recorded from one ALSA \`file\`-plugin PCM, which delivers as"
    echo "fast as it is read: the figure is CPU, not wall time. boxvoice converts, plans cuts and writes segments with a"
    echo "header refresh every second; arecord writes one WAV. Median of $runs interleaved runs, user + sys CPU seconds."
    echo
    echo "| what | CPU s | bytes written | ratio |"
    echo "|---|---|---|---|"
    echo "| \`boxvoice record\` (20 ms periods) | $bv | $(cat "$work"/rec/seg-*.wav | wc -c) | |"
    echo "| baseline: \`arecord -f FLOAT_LE -r 48000 -c 1 -t wav\` (125 ms periods) | $ar | $(wc -c <"$work/arecord.wav") | **$(ratio "$bv" "$ar")×** |"
    echo "| baseline: arecord at 20 ms periods, as boxvoice | $ar20 | | $(ratio "$bv" "$ar20")× |"
    echo
    "${bench[@]}" preroll --trials 10
}

# --- keywords: the compiled matcher against naive expansion; pocketsphinx's live keywords on Samples/ -------------
area_keywords() {
    "${bench[@]}" keywords --models "$root/Models"
    echo
    "${bench[@]}" live --models "$root/Models" --samples "$root/Samples"
}

# --- hearing: Whisper at utterance ends against pocketsphinx on the real streams and held-out sets; the curve -------
area_hearing() {
    real
    "$root/scripts/held-out-commands.sh" "$work/held-out" j >/dev/null
    # Dictation using command words inside its sentences, each half a list the hearing table reads as a stream.
    "$root/scripts/mid-sentence-clips.sh" "$work/real/mid-sentence" 2>/dev/null
    for half in development held-out; do
        awk -F'\t' -v half="$half" '$2 == half { print "mid-sentence/" $1 "\t" $3 }' \
            "$work/real/mid-sentence/sentences.tsv" >"$work/real/mid-sentence-$half.tsv"
    done
    mkdir -p "$work/hearing-work"
    echo "## Hearing"
    echo
    echo "Whisper at each utterance's end (Silero VAD cutting) beside pocketsphinx's live path (the baseline), on the"
    echo "same audio in one run. What each stream and command set is for: [hearing-bench.md](../hearing-bench.md)."
    echo
    "${bench[@]}" hearing --models "$root/Models" --real "$work/real" --work "$work/hearing-work" \
        --hearing "$root/.build/hearing/models" --held-out "$work/held-out"
}

# --- curve: the command decision's curve and operating point, on the development data its numbers were chosen on ---
area_curve() {
    real
    command_curve
}

# The command decision's curve, redrawn from the data its three numbers were chosen on (docs/command-decision.md):
# development sets l and m for the misses, the Spanish and French real streams for the false actions. Writes
# docs/command-decision-curve.png and prints the table behind it, the operating point marked.
command_curve() {
    local probe=("${bench[@]}" hearing-probe --models "$root/Models" --real "$work/real"
        --hearing "$root/.build/hearing/models" --work "$work/curve-work")
    mkdir -p "$work/curve-work" "$work/no-clips"
    "$root/scripts/held-out-commands.sh" "$work/curve-l" l >/dev/null
    "$root/scripts/held-out-commands.sh" "$work/curve-m" m >/dev/null
    "${probe[@]}" --verbose --held-out "$work/curve-l" --conditions "clean;pink;babble, 20;laptop" >"$work/curve-l.log" 2>&1
    "${probe[@]}" --verbose --held-out "$work/curve-m" \
        --conditions "clean;white noise, 20;pink;babble, 20;white noise, 10;reverb;telephone;laptop;babble, 10" \
        >"$work/curve-m.log" 2>&1
    local streams=()
    for language in es fr; do
        "${probe[@]}" --held-out "$work/no-clips" --list "$work/real/$language.tsv" >"$work/curve-$language.log" 2>&1
        streams+=("$work/curve-$language.log:$(list_minutes "$work/real/$language.tsv")")
    done
    echo "## The command decision's curve"
    echo
    echo "Missed commands on development sets l and m against false actions per hour of the Spanish and French real"
    echo "streams, before the language checks; the operating point in bold (docs/command-decision.md says how it was"
    echo "chosen)."
    echo
    echo "![missed commands against false actions per hour](../command-decision-curve.png)"
    echo
    /usr/bin/python3 "$root/scripts/command-curve.py" "$root/docs/command-decision-curve.png" \
        --clips "$work/curve-l.log" "$work/curve-m.log" --streams "${streams[@]}"
    echo
    echo "At the operating point, as shipped (language checks included), each set's commands acted on alone and with"
    echo "boxsim's Whisper HQ asked about those left for the box:"
    echo
    echo "| development set | acted on | wrong | with the box asked | wrong |"
    echo "|---|---|---|---|---|"
    for set in l m; do
        awk -v set="$set" '/^[a-z].*: [0-9]+\/[0-9]+, [0-9]+ wrong/ {
            split($0, parts, /: /); split(parts[2], n, /[\/, ]+/); right += n[1]; total += n[2]; wrong += n[3]
            match($0, /opinion [0-9]+\/[0-9]+, [0-9]+ wrong/); split(substr($0, RSTART + 8, RLENGTH - 8), b, /[\/, ]+/)
            boxRight += b[1]; boxWrong += b[3]
        } END {
            printf "| %s (%d clips) | %d (%.1f %%) | %d | %d (%.1f %%) | %d |\n", set, total, right, 100 * right / total,
                wrong, boxRight, 100 * boxRight / total, boxWrong
        }' "$work/curve-$set.log"
    done
}

# Minutes of audio a prompt list (`PATH\tTEXT` lines, paths under its folder) holds.
list_minutes() {
    python3 - "$1" <<'PY'
import os, sys, wave
folder, total = os.path.dirname(sys.argv[1]), 0.0
for line in open(sys.argv[1], encoding="utf-8"):
    with wave.open(os.path.join(folder, line.split("\t")[0])) as audio:
        total += audio.getnframes() / audio.getframerate()
print(f"{total / 60:.1f}")
PY
}

# --- latency: a spoken command to the dictation (quiet and busy), the send to the box's 200, memory -------------------
area_latency() {
    real
    held_out_ij
    mkdir -p "$work/latency-work"
    "${bench[@]}" latency --models "$root/Models" --real "$work/real" --work "$work/latency-work" \
        --hearing "$root/.build/hearing/models" --held-out "$work/held-out-ij" --boxvoice "$bin_dir/boxvoice" \
        --plot "$work/latency.tsv"
    /usr/bin/python3 "$root/scripts/bench-plots.py" latency "$work/latency.tsv" "$reports/latency.png"
    echo
    "${bench[@]}" dictation --models "$root/Models" --samples "$root/Samples" \
        --lengths "${BENCH_DICTATION_SECONDS:-20,180,600}"
    echo
    "${bench[@]}" memory --boxvoice "$bin_dir/boxvoice" --samples "$root/Samples" \
        --minutes "${BENCH_MEMORY_MINUTES:-1,10,60}" --plot "$work/memory.tsv"
    /usr/bin/python3 "$root/scripts/bench-plots.py" memory "$work/memory.tsv" "$reports/memory.png"
}

# --- wire: the upload against curl, Opus against WAV, the answer to a retranscription request --------------------------
area_wire() {
    echo "## The wire: upload, Opus, retranscription"
    echo
    "$bin_dir/boxsim" serve --data "$work/boxsim" --hq fixed:x >"$work/boxsim.log" 2>&1 &
    local boxsim_pid=$!
    for _ in $(seq 50); do [ -s "$work/boxsim/boxsim.url" ] && break; sleep 0.1; done
    "${bench[@]}" upload --link "$("$bin_dir/boxsim" pair-link --data "$work/boxsim")" --runs "$runs"
    kill "$boxsim_pid"; wait "$boxsim_pid" 2>/dev/null || true
    echo
    "${bench[@]}" codec --models "$root/Models" --samples "$root/Samples" --minutes "${BENCH_CODEC_MINUTES:-10}"
    echo
    "${bench[@]}" retranscribe --boxvoice "$bin_dir/boxvoice" --samples "$root/Samples" --runs "$runs"
}

# --- durability: kill -9 in every phase, the commit at the command; a hostile box, a busy machine, a lost microphone --
area_durability() {
    echo "## Durability and faults"
    echo
    "${bench[@]}" durability --boxvoice "$bin_dir/boxvoice" --trials "${BENCH_KILL_TRIALS:-120}"
    echo
    "$root/scripts/sound-server-packages.sh" >&2
    "${bench[@]}" faults --boxvoice "$bin_dir/boxvoice" --models "$root/Models" --samples "$root/Samples" \
        --busy-minutes "${BENCH_BUSY_MINUTES:-10}" --watchdog-trials "${BENCH_WATCHDOG_TRIALS:-10}"
}

# --- pocketsphinx: the road `recognizer pocketsphinx` takes (language model and spotter), `calibrate`, the box's
# second opinion on a weak command ------------------------------------------------------------------------------------
area_pocketsphinx() {
    real
    mkdir -p "$work/real-work"
    echo "## The pocketsphinx road"
    echo
    "${bench[@]}" realspeech --models "$root/Models" --samples "$root/Samples" --real "$work/real" \
        --work "$work/real-work" --landed "$root/scripts/command-spotter.landed.en.txt"
    echo
    "${bench[@]}" calibration --boxvoice "$bin_dir/boxvoice" --models "$root/Models" --real "$work/real" \
        --work "$work/real-work"
    echo
    "${bench[@]}" second-opinion --models "$root/Models" --samples "$root/Samples" --runs "$runs"
}

# --- suite: the test suite's CPU time, this commit against a named baseline commit, back to back ----------------------
area_suite() {
    "$root/scripts/suite-cost.sh" "${BENCH_SUITE_BASELINE:-8fa6084}" "$work/suite"
}

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo " (with changes not committed)" || true)
machine="$(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
failed=()
for area in "${areas[@]}"; do
    echo "bench: $area…" >&2
    if "area_$area" >"$work/$area.md"; then
        {
            echo "<!-- made by: make bench AREAS=$area | $commit$dirty | $(date -u +%Y-%m-%d) | $machine -->"
            cat "$work/$area.md"
        } >"$reports/$area.md"
    else
        failed+=("$area")
        echo "bench: $area failed; docs/bench/$area.md keeps its previous report" >&2
    fi
done
/usr/bin/python3 "$root/scripts/bench-report.py" "$reports" "$root/BENCHMARKS.md" "${all_areas[@]}"
[ ${#failed[@]} -eq 0 ] || { echo "bench: failed: ${failed[*]}" >&2; exit 1; }

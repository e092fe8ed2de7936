#!/usr/bin/env bash
# `make bench`: measures boxvoice against named baselines on this machine, in one run, and writes BENCHMARKS.md.
set -euo pipefail
bin_dir=$1
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/boxvoice-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
runs=${BENCH_RUNS:-7}

# --- Capture to disk: boxvoice record vs arecord, same ALSA file PCM, same frames -------------------------
"$bin_dir/boxvoice" devices file-pcm "$root/Samples/long-meeting-notes.wav" --dir "$work" --name bench_mic >"$work/made.txt"
frames=$(sed -n 's/.*plays \([0-9]*\) frames.*/\1/p' "$work/made.txt")
seconds=$(sed -n 's/.*--max-seconds \([0-9.]*\).*/\1/p' "$work/made.txt")
export ALSA_CONFIG_PATH="/usr/share/alsa/alsa.conf:$work/bench_mic.asound.conf"

cpu() { # prints user+sys CPU seconds of the command
    local TIMEFORMAT='%3U %3S'
    { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ printf "%.3f\n", $1 + $2 }'
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

: >"$work/boxvoice.cpu"; : >"$work/arecord.cpu"; : >"$work/arecord20.cpu"
for i in $(seq "$runs"); do
    rm -rf "$work/rec" "$work/arecord.wav" "$work/arecord20.wav"
    cpu "$bin_dir/boxvoice" record --device bench_mic --max-seconds "$seconds" --out "$work/rec" >>"$work/boxvoice.cpu"
    cpu arecord -q -D bench_mic -f FLOAT_LE -r 48000 -c 1 -t wav -s "$frames" "$work/arecord.wav" >>"$work/arecord.cpu"
    cpu arecord -q -D bench_mic -f FLOAT_LE -r 48000 -c 1 -t wav -s "$frames" --period-size=960 --buffer-size=7680 \
        "$work/arecord20.wav" >>"$work/arecord20.cpu"
done
bv=$(median <"$work/boxvoice.cpu")
ar=$(median <"$work/arecord.cpu")
ar20=$(median <"$work/arecord20.cpu")
ratio20=$(awk -v a="$bv" -v b="$ar20" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
# Same work done? Compare what each wrote.
bv_bytes=$(cat "$work"/rec/seg-*.wav | wc -c)
ar_bytes=$(wc -c <"$work/arecord.wav")
ratio=$(awk -v a="$bv" -v b="$ar" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')

# --- Keyword detection: compiled matcher vs naive expansion -------------------------------------------------
keyword_table=""
if [ -x "$bin_dir/boxvoice-bench" ]; then
    keyword_table=$("$bin_dir/boxvoice-bench" keywords --models "$root/Models")
fi

# --- Live keyword recognition: language model, spotter, both -------------------------------------------------
live_table=""
if [ -x "$bin_dir/boxvoice-bench" ]; then
    live_table=$("$bin_dir/boxvoice-bench" live --models "$root/Models" --samples "$root/Samples")
fi

# --- Upload to the HQ endpoint: BoxClient vs curl -F against boxsim ------------------------------------------
upload_table=""
if [ -x "$bin_dir/boxsim" ]; then
    "$bin_dir/boxsim" serve --data "$work/boxsim" --hq fixed:x >"$work/boxsim.log" 2>&1 &
    boxsim_pid=$!
    for _ in $(seq 50); do [ -s "$work/boxsim/boxsim.url" ] && break; sleep 0.1; done
    upload_table=$("$bin_dir/boxvoice-bench" upload --link "$("$bin_dir/boxsim" pair-link --data "$work/boxsim")" --runs "$runs")
    kill "$boxsim_pid"; wait "$boxsim_pid" 2>/dev/null || true
fi

# --- Dictation: latency of the send (pipelined HQ vs all HQ at the send), peak memory, retranscription answer ----
dictation_table=""; memory_table=""; retranscribe_table=""; faults_table=""; durability_table=""; codec_table=""; preroll_table=""
if [ -x "$bin_dir/boxvoice-bench" ]; then
    dictation_table=$("$bin_dir/boxvoice-bench" dictation --models "$root/Models" --samples "$root/Samples" --lengths "${BENCH_DICTATION_SECONDS:-20,180,600}")
    memory_table=$("$bin_dir/boxvoice-bench" memory --boxvoice "$bin_dir/boxvoice" --samples "$root/Samples" --minutes "${BENCH_MEMORY_MINUTES:-1,10,60}")
    durability_table=$("$bin_dir/boxvoice-bench" durability --boxvoice "$bin_dir/boxvoice" --trials "${BENCH_KILL_TRIALS:-120}")
    preroll_table=$("$bin_dir/boxvoice-bench" preroll --trials 10)
    codec_table=$("$bin_dir/boxvoice-bench" codec --models "$root/Models" --samples "$root/Samples" --minutes "${BENCH_CODEC_MINUTES:-10}")
    retranscribe_table=$("$bin_dir/boxvoice-bench" retranscribe --boxvoice "$bin_dir/boxvoice" --samples "$root/Samples" --runs "$runs")
    "$root/scripts/sound-server-packages.sh"
    faults_table=$("$bin_dir/boxvoice-bench" faults --boxvoice "$bin_dir/boxvoice" --models "$root/Models" --samples "$root/Samples" \
        --busy-minutes "${BENCH_BUSY_MINUTES:-10}" --watchdog-trials "${BENCH_WATCHDOG_TRIALS:-10}")
fi

# --- Spoken commands on real recorded speech and degraded clips (fetched now, never committed) -------------------
real_table=""; calibration_table=""; second_opinion_table=""; hearing_table=""; curve_table=""

# The command decision's curve, redrawn from the data its three numbers were chosen on (docs/command-decision.md):
# development sets l and m for the misses, the Spanish and French real streams for the false actions. Writes
# docs/command-decision-curve.png and prints the table behind it, the operating point marked.
command_curve() {
    local probe=("$bin_dir/boxvoice-bench" hearing-probe --models "$root/Models" --real "$work/real"
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
    echo "## The command decision's curve (issue: command decision)"
    echo
    echo "Missed commands on development sets l and m against false actions per hour of the Spanish and French real"
    echo "streams, before the language checks; the operating point in bold (docs/command-decision.md says how it was"
    echo "chosen)."
    echo
    echo "![missed commands against false actions per hour](docs/command-decision-curve.png)"
    echo
    /usr/bin/python3 "$root/scripts/command-curve.py" "$root/docs/command-decision-curve.png" \
        --clips "$work/curve-l.log" "$work/curve-m.log" --streams "${streams[@]}"
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
if [ -x "$bin_dir/boxvoice-bench" ]; then
    "$root/scripts/real-speech.sh" "$work/real"
    mkdir -p "$work/real-work"
    real_table=$("$bin_dir/boxvoice-bench" realspeech --models "$root/Models" --samples "$root/Samples" --real "$work/real" --work "$work/real-work" \
        --landed "$root/scripts/command-spotter.landed.en.txt")
    calibration_table=$("$bin_dir/boxvoice-bench" calibration --boxvoice "$bin_dir/boxvoice" --models "$root/Models" --real "$work/real" --work "$work/real-work")
    "$root/scripts/held-out-commands.sh" "$work/held-out" j >/dev/null
    # Dictation using command words inside its sentences, each half a list the hearing table reads as a stream.
    "$root/scripts/mid-sentence-clips.sh" "$work/real/mid-sentence" 2>/dev/null
    for half in development held-out; do
        awk -F'\t' -v half="$half" '$2 == half { print "mid-sentence/" $1 "\t" $3 }' \
            "$work/real/mid-sentence/sentences.tsv" >"$work/real/mid-sentence-$half.tsv"
    done
    mkdir -p "$work/hearing-work"
    hearing_table=$("$bin_dir/boxvoice-bench" hearing --models "$root/Models" --real "$work/real" --work "$work/hearing-work" \
        --hearing "$root/.build/hearing/models" --held-out "$work/held-out" --boxvoice "$bin_dir/boxvoice")
    second_opinion_table=$("$bin_dir/boxvoice-bench" second-opinion --models "$root/Models" --samples "$root/Samples" --runs "$runs")
    curve_table=$(command_curve)
fi

cpu_model=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
{
    echo "# Benchmarks"
    echo
    echo "Written by \`make bench\` on $(date -u +%Y-%m-%d) — $(nproc) cores, ${cpu_model:-unknown CPU}. Every baseline runs in the same invocation as what it is compared with."
    echo
    echo "## Capture to disk (issue: foundation)"
    echo
    echo "Records \`Samples/long-meeting-notes.wav\` (${seconds} s, ${frames} frames) from one ALSA \`file\`-plugin capture PCM,"
    echo "which delivers as fast as it is read, so the figure is CPU cost, not wall time. boxvoice converts, plans cuts and writes"
    echo "three segments with header refreshes every second; arecord writes one WAV. Median of ${runs} runs each, interleaved, user+sys CPU seconds."
    echo
    echo "| what | CPU s (median) | bytes written |"
    echo "|---|---|---|"
    echo "| \`boxvoice record\` (20 ms periods) | $bv | $bv_bytes |"
    echo "| baseline: \`arecord -f FLOAT_LE -r 48000 -c 1 -t wav\` (its default 125 ms periods) | $ar | $ar_bytes |"
    echo "| same-period baseline: arecord with \`--period-size=960 --buffer-size=7680\` (20 ms, as boxvoice) | $ar20 | |"
    echo "| **ratio boxvoice / arecord (named baseline)** | **$ratio×** (aim ≤ 1.5×) | |"
    echo "| ratio boxvoice / arecord at 20 ms periods | $ratio20× | |"
    echo
    echo "Per run, CPU s — boxvoice: $(paste -sd' ' "$work/boxvoice.cpu"); arecord: $(paste -sd' ' "$work/arecord.cpu"); arecord 20 ms: $(paste -sd' ' "$work/arecord20.cpu")"
    echo
    echo "Where the difference goes: boxvoice reads 20 ms periods (6.25× the reads and /dev/null writes of the file plugin"
    echo "at arecord's default: the same-period row shows that share), hands each period to a writer thread over a bounded"
    echo "queue, keeps per-window levels for the cut search, and starts the Swift runtime and Foundation (~5 ms, statically linked)."
    if [ -n "$keyword_table" ]; then
        echo
        echo "$keyword_table"
    fi
    if [ -n "$live_table" ]; then
        echo
        echo "$live_table"
    fi
    if [ -n "$upload_table" ]; then
        echo
        echo "$upload_table"
    fi
    if [ -n "$dictation_table" ]; then
        echo
        echo "## Dictation: from the spoken send to the box's 200 (issue: dictation)"
        echo
        echo "A recording of keyword-free sample speech ending in a spoken send, fed at real-time pace through the capture path into"
        echo "\`DictationSession\` (pocketsphinx live path, boxsim over loopback with \`--hq slow:2\`: every HQ call takes 2 s). Measured from"
        echo "the audio time the utterance holding the send ended (mapped to the wall clock of the real-time feed) to the box's 200 for"
        echo "the message. boxvoice uploads each 60 s segment the moment it closes (≤ 3 at once); the baseline is the same session with"
        echo "every upload held until the send (\`--no-pipelining\`). Aim: per-segment HQ does not grow with length, ≤ one segment's"
        echo "HQ time + 1 s (3 s here)."
        echo
        echo "$dictation_table"
    fi
    if [ -n "$memory_table" ]; then
        echo
        echo "## Dictation: peak memory (issue: dictation)"
        echo
        echo "\`boxvoice dictate --input\` over recordings of keyword-free sample speech (a spoken send at the end), fed as fast as the"
        echo "live recognizer takes them, into boxsim with instant HQ; peak resident set of the process alone, from GNU \`time\`. Aim: ≤ 100 MB,"
        echo "flat in length. Where it goes (pocketsphinx measured in C right after \`ps_init\`; Models/README.md): the live decoder with"
        echo "Debian's en-us language model 81 MB (94 MB before its dictionary was cut to the model's own words; the model and its"
        echo "search alone take ≈ 45 MB whatever the vocabulary), each of the command spotter's two decoders ≈ 7 MB (the acoustic"
        echo "model, mapped once per decoder), the Swift runtime, Foundation and the C libraries ≈ 30 MB, then SQLite, libcurl and"
        echo "buffers (a file input gets a 1 s capture queue: it waits for the recognizer rather than dropping, so more would only hold memory)."
        echo
        echo "$memory_table"
    fi
    if [ -n "$retranscribe_table" ]; then
        echo
        echo "$retranscribe_table"
    fi
    if [ -n "$hearing_table" ]; then
        echo
        echo "## Hearing: Whisper at utterance ends, Silero VAD (issue: hearing)"
        echo
        cat "$root/docs/hearing-bench.md"
        echo
        echo "$hearing_table"
    fi
    if [ -n "$curve_table" ]; then
        echo
        echo "$curve_table"
    fi
    if [ -n "$real_table" ]; then
        echo
        echo "$real_table"
    fi
    if [ -n "$calibration_table" ]; then
        echo
        echo "$calibration_table"
    fi
    if [ -n "$second_opinion_table" ]; then
        echo
        echo "$second_opinion_table"
    fi
    if [ -n "$codec_table" ]; then
        echo
        echo "$codec_table"
    fi
    if [ -n "$preroll_table" ]; then
        echo
        echo "$preroll_table"
    fi
    if [ -n "$durability_table" ]; then
        echo
        echo "$durability_table"
    fi
    if [ -n "$faults_table" ]; then
        echo
        echo "$faults_table"
    fi
} >"$root/BENCHMARKS.md"
cat "$root/BENCHMARKS.md"

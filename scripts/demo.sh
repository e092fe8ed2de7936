#!/usr/bin/env bash
# `make demo`: plays the committed 150 s sample through a real ALSA capture PCM (alsa-lib's file plugin,
# since a fresh machine has no microphone) and records it with `boxvoice record`, printing each segment.
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/boxvoice-demo.XXXXXX)
made=$("$bin" devices file-pcm "$root/Samples/long-meeting-notes.wav" --dir "$work" --name demo_mic)
seconds=$(sed -n 's/.*--max-seconds \([0-9.]*\).*/\1/p' <<<"$made")
echo "== boxvoice record: Samples/long-meeting-notes.wav (${seconds} s) through ALSA PCM 'demo_mic'"
"$bin" record --alsa-config "$work/demo_mic.asound.conf" --device demo_mic --max-seconds "$seconds" --out "$work/recording"
echo "== segments are in $work/recording"

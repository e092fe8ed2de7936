#!/usr/bin/env bash
# `make demo`: the main job on the embedded default. `boxvoice dictate` plays a committed sample through the capture
# path (a fresh machine has no microphone), recognizes it live, hears "send message", uploads the recording for HQ to
# the embedded local box (boxsim in-process, Whisper HQ) and prints the delivered message (as said; `--raw` shows
# its <speech …> framing as the box receives it).
# Its data goes to a throwaway folder, removed afterwards, so the demo never touches your own boxes or outbox.
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/boxvoice-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "== boxvoice dictate --input Samples/send-buy-milk.wav (embedded local box; throwaway data folder)"
XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache" XDG_RUNTIME_DIR="$work/run" \
    "$bin" dictate --input "$root/Samples/send-buy-milk.wav"

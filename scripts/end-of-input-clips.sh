#!/usr/bin/env bash
# Issue "end of input": command clips that end exactly where their command's last word ends (no trailing silence),
# in voices no tuning step used (espeak-ng's Scottish English voice and its Received Pronunciation voice with a female
# variant), made into $1 as 48 kHz mono Float32 WAV with the actions expected, in order, in $1/clips.tsv.
# Keep these out of every tuning step: they check that the end of the input settles the last command.
set -euo pipefail
out=$1
mkdir -p "$out"
: >"$out/clips.tsv"
i=0
while IFS='|' read -r voice actions sentence; do
    i=$((i + 1))
    espeak-ng -v "$voice" -s 155 -w "$out/e$i.raw.wav" "$sentence"
    # The file ends with the command: trailing silence trimmed (reverse, cut the leading quiet, reverse back).
    sox "$out/e$i.raw.wav" -r 48000 -c 1 -e floating-point -b 32 "$out/e$i.wav" pad 0.5 0 \
        reverse silence 1 0.005 0.5% reverse
    rm -f "$out/e$i.raw.wav"
    printf 'e%s.wav\t%s\t%s\n' "$i" "$actions" "$sentence" >>"$out/clips.tsv"
done <<'LIST'
en-gb-scotland|send|Add milk and eggs to the shopping list, send message
en-gb-scotland|sendCheckpoint|We still have to migrate the database, send checkpoint
en-gb-scotland|sendClose|That covers the agenda for tomorrow, over and out
en-gb-scotland|sendClose|Tell Sam the keys are under the mat, send and close the mic
en-gb-x-rp+f4|sendHq|Move the dentist appointment to Friday afternoon, clean up and send
en-gb-x-rp+f4|micOff|Let me look up the flight number first, stop listening
en-gb-x-rp+f4|cancel|Actually the shop is closed today, cancel message
en-gb-x-rp+f4|erase|I said that all wrong, start over
en-gb-x-rp+f4|erase,send,sendCheckpoint,send,sendClose|Buy the wrong bread, start over. Buy rye bread for lunch, send message. The first draft of the letter is done, send checkpoint. Call the plumber about the leak, send message. That is everything for today, send and close the mic
LIST
echo "$i clips in $out"

#!/usr/bin/env bash
# `make bench` (hearing): command clips no step of any tuning ever used, made into $1 (never committed), with their
# expected action in $1/commands.tsv. New sentences, in two voices the project never heard elsewhere: espeak-ng's
# formant voice (en-us, a male and a female variant) and festival's ked voice saying sentences of its own.
# Keep these out of every tuning step: they exist to say how boxvoice hears the next user.
set -euo pipefail
out=$1
mkdir -p "$out"
: >"$out/commands.tsv"
i=0
while IFS='|' read -r voice action sentence; do
    i=$((i + 1))
    file="h$i.wav"
    case "$voice" in
        ked) printf '%s\n' "$sentence" >"$out/h$i.txt"
             text2wave -eval "(voice_ked_diphone)" "$out/h$i.txt" -o "$out/h$i.raw.wav" ;;
        *)   espeak-ng -v "$voice" -s 150 -w "$out/h$i.raw.wav" "$sentence" ;;
    esac
    sox "$out/h$i.raw.wav" -r 16000 -c 1 -b 16 "$out/$file"
    rm -f "$out/h$i.raw.wav" "$out/h$i.txt"
    printf '%s\t%s\n' "$file" "$action" >>"$out/commands.tsv"
done <<'LIST'
ked|send|The package came this afternoon and it looks fine. Send message.
ked|sendClose|I think we covered everything for the launch. Over and out.
ked|sendCheckpoint|The first chapter is written and saved. Send checkpoint.
ked|sendHq|Ask the landlord about the broken heater in the kitchen. Clean up and send.
ked|micOff|I have to answer the door for a moment. Stop listening.
ked|cancel|No, that is the wrong address entirely. Cancel message.
ked|erase|That was a muddle, let me start over.
ked|sendClose|Tell the team the server is back up. Send and close.
en-us+m3|send|Please move our call with the bank to Thursday morning. Send message.
en-us+m3|sendClose|The garden needs water twice a week in summer. Over and out.
en-us+m3|sendCheckpoint|Here are my notes on the budget so far. Send checkpoint.
en-us+m3|sendHq|Book two seats on the early train to the coast. Clean up and send.
en-us+f2|micOff|Someone is calling me from the other room. Stop listening.
en-us+f2|cancel|I changed my mind about the whole thing. Cancel message.
en-us+f2|erase|Sorry, I lost my train of thought, start over.
en-us+f2|send|The printer on the third floor is out of paper again. Send message.
LIST
echo "$i held-out clips in $out"

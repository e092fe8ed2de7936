#!/usr/bin/env bash
# `make bench` (spoken commands): fetches real recorded speech from Debian packages into $1 (never committed) and
# decodes it to 16 kHz WAV, with a list per language ("file<TAB>text"); makes command clips in a voice the spotter was
# never tuned on (festival's ked voice) with their expected action in commands.tsv.
# Licences: asterisk-core-sounds-* are CC-BY-SA 3.0 (Digium; voices of Allison Smith, June Wallack, Carlo and the
# Russian IVR voice).
set -euo pipefail
out=$1
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/debs" "$out/x"
cd "$out/debs"
packages=(asterisk-core-sounds-en asterisk-core-sounds-en-g722 asterisk-core-sounds-es-g722 asterisk-core-sounds-fr-g722
          asterisk-core-sounds-it-g722 asterisk-core-sounds-ru-g722)
apt-get download "${packages[@]}" >/dev/null 2>&1 || { apt-get update -qq && apt-get download "${packages[@]}" >/dev/null; }
for deb in *.deb; do dpkg -x "$deb" "$out/x"; done
sounds=$out/x/usr/share/asterisk/sounds

decode() { # voice-folder name -> out/<lang>/<name>.wav
    local from=$1 name=$2 lang=$3 file
    file="$lang/${name//\//__}.wav"
    ffmpeg -nostdin -hide_banner -loglevel error -y -f g722 -i "$from/$name.g722" -ar 16000 -ac 1 "$out/$file" && echo "$file"
}
mkdir -p "$out/en" "$out/es" "$out/fr" "$out/it" "$out/ru"
# English, with the prompts' texts (bracketed texts are tones, not speech).
: >"$out/en.tsv"
zcat "$out/x/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz" | grep -v '^;' | grep ': ' | grep -v ': \[' | sort |
while IFS= read -r line; do
    name=${line%%: *}; text=${line#*: }
    [ -f "$sounds/en_US_f_Allison/$name.g722" ] || continue
    case "$name" in silence/*) continue ;; esac
    file=$(decode "$sounds/en_US_f_Allison" "$name" en) && printf '%s\t%s\n' "$file" "$text" >>"$out/en.tsv"
done
# Spanish and French: more speakers (no texts needed: every command heard in them is false). Italian (a man's voice)
# and Russian: two more, held out — the spotter's thresholds were retuned on en, es and fr, never on these.
for pair in es:es_MX_f_Allison fr:fr_CA_f_June it:it_IT_m_Carlo ru:ru_RU_f_IvrvoiceRU; do
    lang=${pair%%:*}; voice=${pair#*:}
    : >"$out/$lang.tsv"
    (cd "$sounds/$voice" && find . -name '*.g722' ! -path './silence/*' | sed 's|^\./||; s|\.g722$||' | sort) |
    while IFS= read -r name; do
        file=$(decode "$sounds/$voice" "$name" "$lang") && printf '%s\t\n' "$file" >>"$out/$lang.tsv"
    done
done
# Two more voices, held out from every tuning step (false commands only: no texts): Armelle Desjardins's French and
# Colombian Spanish, GPL-2 prompt packages recorded over the telephone (GSM, 8 kHz). Never committed.
heldout=(asterisk-prompt-fr-armelle asterisk-prompt-es-co)
apt-get download "${heldout[@]}" >/dev/null 2>&1 || { apt-get update -qq && apt-get download "${heldout[@]}" >/dev/null; }
mkdir -p "$out/y"
for name in "${heldout[@]}"; do dpkg -x "$name"_*.deb "$out/y"; done
for lang in fr es; do
    : >"$out/${lang}2.tsv"
    mkdir -p "$out/${lang}2"
    (cd "$out/y/usr/share/asterisk/sounds/$lang" && find . -name '*.gsm' | sed 's|^\./||; s|\.gsm$||' | sort) |
    while IFS= read -r name; do
        file="${lang}2/${name//\//__}.wav"
        ffmpeg -nostdin -hide_banner -loglevel error -y -f gsm -ar 8000 \
            -i "$out/y/usr/share/asterisk/sounds/$lang/$name.gsm" -ar 16000 -ac 1 "$out/$file" &&
            printf '%s\t\n' "$file" >>"$out/${lang}2.tsv"
    done
done
# Command clips in a voice and sentences the project's tuning never saw: festival's ked diphone voice (US English,
# built from a real speaker's recordings; espeak-ng's formant voices are not understood by pocketsphinx at all).
mkdir -p "$out/commands"
: >"$out/commands.tsv"
i=0
while IFS='|' read -r action sentence; do
    i=$((i + 1))
    printf '%s\n' "$sentence" >"$out/commands/c$i.txt"
    text2wave -eval "(voice_ked_diphone)" "$out/commands/c$i.txt" -o "$out/commands/c$i.wav"
    printf 'commands/c%s.wav\t%s\n' "$i" "$action" >>"$out/commands.tsv"
done <<'LIST'
send|I will be late for the meeting, start without me. Send message.
sendClose|Book a table for four at seven tonight. Over and out.
sendCheckpoint|The draft is ready for review. Send a checkpoint.
sendHq|Remind me to call the plumber tomorrow. Clean up and send.
micOff|Pick up the dry cleaning on Friday. Stop listening.
cancel|Forget what I just said. Cancel message.
erase|That came out wrong, let me start over.
send|Tell Sam the package arrived this morning. Send now.
LIST
# Calibration, as a user would give it, in the same ked voice: each spotter phrase said three times (each take a little
# slower or faster and higher or lower, as people vary), about 30 s of ordinary talk, and held-out sentences ending in
# a command (the eight clips above and eight more) that the calibration never hears.
cal=$out/calibration
mkdir -p "$cal/takes" "$cal/heldout"
phrases=$here/../Models/command-spotter.en.txt
say() { # text, stretch, out.wav
    printf '%s\n' "$1" >"$cal/say.txt"
    text2wave -eval "(voice_ked_diphone)" -eval "(Parameter.set 'Duration_Stretch $2)" "$cal/say.txt" -o "$3"
}
sed 's/#.*//; s|/.*||; s/[[:space:]]*$//' "$phrases" | grep . | while IFS= read -r phrase; do
    stem=${phrase// /-}
    n=0
    for variant in "0.9 -100" "1.0 0" "1.2 120"; do
        n=$((n + 1)); set -- $variant
        say "$phrase." "$1" "$cal/plain.wav"
        # 3 s, as `boxvoice calibrate` records each take: the phrase 0.5 s in, then the room. -R: sox dithers 16-bit
        # output with fresh random noise each run, which moved calibration results between machines; repeatable.
        sox -R "$cal/plain.wav" "$cal/takes/$stem-$n.wav" pitch "$2" pad 0.5 3 trim 0 3
    done
done
say "Yesterday we walked along the river to the old mill and had lunch in the garden. The weather was mild and the \
children fed the ducks. Next week I want to repaint the kitchen, fix the gate and plant tomatoes before the rain comes. \
My sister called about the holidays; we might drive north to see the lakes if the car is ready. Remember that the \
library books are due on Thursday, and the dentist moved the appointment to the afternoon." 1.0 "$cal/takes/talk-1.wav"
: >"$cal/heldout.tsv"
for i in 1 2 3 4 5 6 7 8; do printf '../commands/c%s.wav\t%s\n' "$i" "$(sed -n "${i}p" "$out/commands.tsv" | cut -f2)" >>"$cal/heldout.tsv"; done
i=0
while IFS='|' read -r action sentence; do
    i=$((i + 1))
    say "$sentence" 1.0 "$cal/heldout/h$i.wav"
    printf 'heldout/h%s.wav\t%s\n' "$i" "$action" >>"$cal/heldout.tsv"
done <<'LIST'
sendClose|The report is attached and nothing else is pending. Send and close.
send|Ask Maria whether the train leaves at nine. Send message.
cancel|No, that is not what I meant at all. Cancel message.
micOff|I am going into a meeting now. Stop listening.
sendClose|Thanks for your help today. Over and out.
sendCheckpoint|First part of the notes is done. Send checkpoint.
erase|Hmm, I lost my thread, start over.
sendHq|Summarize the contract changes for the team. Clean up and send.
LIST
# Held-out talk in the same voice, which the calibration never hears either: every fourth English prompt's text.
mkdir -p "$cal/talk"
: >"$cal/talk.tsv"
awk -F'\t' 'NR % 4 == 0 && NF > 1 && $2 != "" { print $2 }' "$out/en.tsv" | head -n 140 | while IFS= read -r text; do
    i=$((i + 1))
    say "$text" 1.0 "$cal/talk/t$i.wav" && printf 'talk/t%s.wav\t%s\n' "$i" "$text" >>"$cal/talk.tsv"
done
rm -f "$cal/say.txt" "$cal/plain.wav"

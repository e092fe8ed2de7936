#!/usr/bin/env bash
# Issue "end of input": command clips that end exactly where their command's last word ends (no trailing silence),
# made into $1 as 48 kHz mono Float32 WAV with the actions expected, in order, in $1/clips.tsv.
# - Set 1: espeak-ng's Scottish English voice and its Received Pronunciation voice with a female variant. Its one
#   miss was looked at while choosing the hearing's settings, so it is a development set now.
# - Set 2 (the default, held out): other sentences in festival's kal (diphone, American male) and slt (HTS, American
#   female) voices (Debian's festvox-kallpc16k and festvox-us-slt-hts), which no step of any tuning used.
# - Set 3 (held out, made when set 2's one miss turned out to be a recognition miss that a pause does not mend):
#   new sentences in espeak-ng's plain British English voice with a male and a female variant (en-gb+m3,
#   en-gb+f2), which no step of any tuning used.
# Keep sets 2 and 3 out of every tuning step: they check that the end of the input settles the last command.
# Usage: scripts/end-of-input-clips.sh DIR [1|2|3]
set -euo pipefail
out=$1
set_name=${2:-2}
mkdir -p "$out"
: >"$out/clips.tsv"
. "$(dirname "$0")/speak.sh"
set1=$(cat <<'LIST'
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
)
set2=$(cat <<'LIST'
kal|send|Remind me to water the tomato plants tonight, send message
kal|sendCheckpoint|The invoice numbers all match the ledger now, send checkpoint
kal|sendClose|Book a table for four at seven thirty, over and out
kal|micOff|Hold on while I find the tracking number, stop listening
slt|sendClose|The printer on the second floor is jammed again, send and close the mic
slt|sendHq|Ask the landlord whether the heating will be fixed by Monday, clean up and send
slt|cancel|Tell the team the meeting moved to the big room, cancel message
slt|erase|No wait that is not what I meant, start over
slt|erase,send,sendCheckpoint,sendClose|Pick up the dry cleaning, start over. Pick up the parcel from the post office, send message. The slides for the review are finished, send checkpoint. I am heading home now, over and out
LIST
)
set3=$(cat <<'LIST'
en-gb+m3|send|Please ask the neighbours to take in the post while we are away, send message
en-gb+m3|sendCheckpoint|The first half of the budget review is written up, send checkpoint
en-gb+m3|micOff|Give me a minute to find the right page, stop listening
en-gb+m3|cancel|Forget what I said about the garden fence, cancel message
en-gb+f2|sendClose|The train gets in at half past nine tomorrow, over and out
en-gb+f2|sendClose|The parcel for Jenny is wrapped and ready, send and close the mic
en-gb+f2|sendHq|Tell the vet the dog has eaten nothing since Sunday, clean up and send
en-gb+f2|erase|The number I gave you is wrong, start over
en-gb+f2|erase,send,sendCheckpoint,sendClose|Bring the red folder, start over. Bring the blue folder to the meeting, send message. The quotes from all three builders are in, send checkpoint. That will do for this week, over and out
LIST
)
case $set_name in
    1) list=$set1 ;;
    2) list=$set2 ;;
    3) list=$set3 ;;
    *) echo "end-of-input-clips.sh: no set '$set_name' (1, 2 or 3)" >&2; exit 2 ;;
esac
i=0
while IFS='|' read -r voice actions sentence; do
    i=$((i + 1))
    speak "$voice" 155 "$sentence" "$out/e$i.raw.wav"
    # The file ends with the command: trailing silence trimmed (reverse, cut the leading quiet, reverse back).
    sox -G "$out/e$i.raw.wav" -r 48000 -c 1 -e floating-point -b 32 "$out/e$i.wav" pad 0.5 0 \
        reverse silence 1 0.005 0.5% reverse
    rm -f "$out/e$i.raw.wav"
    printf 'e%s.wav\t%s\t%s\n' "$i" "$actions" "$sentence" >>"$out/clips.tsv"
done <<<"$list"
echo "$i clips (set $set_name) in $out"

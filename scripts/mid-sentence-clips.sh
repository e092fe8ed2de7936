#!/usr/bin/env bash
# `make bench` (commands): dictation that uses the command words inside sentences and in other senses, made into
# $1 (never committed) with $1/sentences.tsv ("file<TAB>set<TAB>text"). Not one of these may act: a command is what a
# speaker ends on, before a pause. The sentences alternate between the development set (odd lines: thresholds may be
# chosen on them) and the held-out set (even lines: only totals are read), and each is spoken by two voices of
# different engines (flite's slt, awb, rms and kal16, espeak-ng's en-us and en variants), so no voice and no sentence
# of the held-out half is one a choice was made on.
# Usage: scripts/mid-sentence-clips.sh DIR   (needs flite, espeak-ng and sox: `make bench` installs them)
set -euo pipefail
out=$(realpath -m "${1:?usage: mid-sentence-clips.sh DIR}")
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sentences=(
"I forgot to send the message to the landlord yesterday, so I will call him this evening instead."
"We should start over with the design, because the first draft confused everyone."
"Can you show me how to cancel the message reminders in the settings before Friday?"
"When you send the checkpoint report to the auditors, copy me on the email as well."
"The pilot said over and out and then the radio went quiet for an hour."
"Please send the message template to Laura so she can reuse it next month."
"My sister finished the message board for the school fair on Sunday."
"The nurse told me to stop listening to loud music through my headphones at night."
"He wanted to erase the message history before selling the old phone."
"They decided to start over in a new city after the fire last spring."
"Remember to turn off the microphone in the meeting room when the call ends."
"The teacher asked us to clean up and send the lab results by noon."
"I will send now the documents you asked for and the rest tomorrow morning."
"Could you mute the microphone on the laptop while the kids are asleep?"
"The commit checkpoint in our build system failed twice this week."
"Grandma said the message was finished long before the wedding started."
"If the server is down we send the message again after lunch."
"Dad always says over and out when he ends a phone call with his brother."
"The app lets you cancel the microphone access for each website separately."
"Let us not start over every time a customer changes their mind."
"We sent a checkpoint to the client and they approved the first half."
"The committee finished talking about the budget around nine in the evening."
"She pressed send and closed the laptop before anyone could read it."
"Please stop the microphone test when the red light turns green."
"Nevermind the message on the fridge, it is from last week."
"The radio operator learned to say over and out in his first lesson."
"I need to clear the message queue on the server before the update."
"Our coach wants us to start over from the warm up after every break."
"Make sure you send a message to the plumber about the leaking pipe in the kitchen."
"The spy movie ended with a coded message done in invisible ink."
"Deliver the message to the front desk and ask them to sign for it."
"After the storm we had to start over with the vegetable garden."
"The captain said the message was received and the ship turned north."
"You can pause listening to the podcast and pick it up later on the train."
"I keep forgetting to close the microphone app when I finish recording."
"Write the message first and send it when you are sure about the wording."
"The support team will cancel the message delivery if the address is wrong."
"He said send message to everyone on the list, but nobody received anything."
"The first thing I do on Monday is clear my message inbox and plan the week."
"At the end of the day the interns send a checkpoint summary to their mentors."
"The band had to start over the song three times during the recording session."
"When the speaker finished talking the whole room stood up and clapped."
"My phone shows a message finished uploading notification every morning."
"Tell the kids to turn off the mic on the tablet before they go to bed."
"We can abort the message send if the recipient is on holiday."
"It's the message from the bank about the new card that worries me."
)
# Two voices a sentence, turning through both engines so each voice reads both halves.
flite_voices=(slt awb rms kal16)
espeak_voices=(en-us en-us+f3 en+m3 en-gb-x-rp+f2 en-us+m5 en-gb-scotland)

# speak ENGINE VOICE TEXT OUT.wav — 48 kHz mono Float32, peak -3 dBFS, a second of quiet either side.
speak() {
    if [ "$1" = flite ]; then
        flite -voice "$2" -t "$3" -o "$work/raw.wav"
    else
        espeak-ng -v "$2" -s 165 -w "$work/raw.wav" "$3"
    fi
    sox "$work/raw.wav" -r 48000 -c 1 -e floating-point -b 32 "$4" gain -n -3 pad 1 1
}

: >"$out/sentences.tsv"
for i in "${!sentences[@]}"; do
    set_name=development
    [ $((i % 2)) -eq 1 ] && set_name=held-out
    text=${sentences[$i]}
    fv=${flite_voices[$((i % ${#flite_voices[@]}))]}
    ev=${espeak_voices[$((i % ${#espeak_voices[@]}))]}
    n=$(printf %02d "$i")
    speak flite "$fv" "$text" "$out/mid-$n-$fv.wav"
    speak espeak "$ev" "$text" "$out/mid-$n-${ev//+/-}.wav"
    printf '%s\t%s\t%s\n' "mid-$n-$fv.wav" "$set_name" "$text" "mid-$n-${ev//+/-}.wav" "$set_name" "$text" \
        >>"$out/sentences.tsv"
done
echo "mid-sentence clips: $(wc -l <"$out/sentences.tsv") in $out" >&2

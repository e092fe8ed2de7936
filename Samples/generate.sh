#!/usr/bin/env bash
# Regenerates Samples/: speech clips synthesized with Debian's flite voices, converted by sox to
# 48 kHz mono Float32 WAV (what boxvoice records), plus transcripts.json describing each clip.
# Usage: Samples/generate.sh   (needs: flite, espeak-ng, sox — `make samples` installs them)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# speak VOICE TEXT OUT.wav LEAD TAIL — one utterance as 48 kHz Float32, peak-normalized to -3 dBFS.
speak() {
    flite -voice "$1" -t "$2" -o "$work/raw.wav"
    sox "$work/raw.wav" -r 48000 -c 1 -e floating-point -b 32 "$3" gain -n -3 pad "$4" "$5"
}

json_entries=()
add_entry() { # file text voice phrase action
    local phrase=null action=null
    [ -n "$4" ] && phrase="\"$4\""
    [ -n "$5" ] && action="\"$5\""
    json_entries+=("  {\"file\": \"$1\", \"text\": \"$2\", \"voice\": \"$3\", \"keywordPhrase\": $phrase, \"expectedAction\": $action}")
}

# file | voice | text | keyword phrase | expected action
clips=(
"send-buy-milk.wav|slt|Please buy milk and eggs on the way home. Send message.|Send message|send"
"sendhq-dentist.wav|rms|Remind me to call the dentist tomorrow morning. Clean up and send.|Clean up and send|sendHq"
"sendclose-over-and-out.wav|awb|That is all I have for today. Over and out.|Over and out|sendClose"
"checkpoint-report.wav|kal16|The first part of the report is finished. Send checkpoint.|Send checkpoint|sendCheckpoint"
"micoff-stop-listening.wav|slt|I need a moment to think about this. Stop listening.|Stop listening|micOff"
"cancel-forget-it.wav|rms|Actually, forget what I just said. Cancel message.|Cancel message|cancel"
"erase-start-over.wav|awb|This is not coming out right at all. Start over.|Start over|erase"
"send-now-meeting.wav|kal16|The meeting moved to three o'clock on Thursday. Send now.|Send now|send"
"sendclose-flight.wav|slt|Book the flight for Friday evening. Send and close.|Send and close|sendClose"
"none-weather.wav|slt|The weather today is sunny with a light breeze from the west.||"
"none-budget.wav|rms|Let us review the budget numbers again next week.||"
"none-table.wav|awb|I would like a table for two at seven, near the window.||"
"none-garden.wav|kal16|The tomatoes in the garden need water every morning.||"
"middle-pilot.wav|rms|The pilot said over and out, and then the radio went quiet for an hour.||"
# A second voice for every command, and more keyword-free speech, so recall and false fires rest on more than one clip each.
"send-kal-dinner.wav|kal16|Dinner is at eight at the Italian place. Send message.|Send message|send"
"sendhq-awb-invoice.wav|awb|The invoice is attached to the email from Monday. Clean up and send.|Clean up and send|sendHq"
"sendclose-kal-done.wav|kal16|I think we covered everything we needed. Over and out.|Over and out|sendClose"
"checkpoint-rms-draft.wav|rms|The introduction of the draft is done. Send checkpoint.|Send checkpoint|sendCheckpoint"
"micoff-awb-phone.wav|awb|Hold on, the phone is ringing. Stop listening.|Stop listening|micOff"
"cancel-kal-wrong.wav|kal16|That was meant for somebody else. Cancel message.|Cancel message|cancel"
"erase-slt-mess.wav|slt|No, that came out all wrong. Start over.|Start over|erase"
"send-now-rms-train.wav|rms|The train leaves at half past nine. Send now.|Send now|send"
"sendclose-awb-report.wav|awb|The report is ready for review. Send and close.|Send and close|sendClose"
"none-rms-coffee.wav|rms|Please pick up more coffee beans and some oat milk.||"
"none-awb-meeting.wav|awb|The meeting with the design team is moved to Tuesday afternoon.||"
"none-slt-books.wav|slt|Return the library books before the end of the month.||"
"none-kal-car.wav|kal16|The car needs new tires before the winter starts.||"
# Command words inside a sentence, with more words after them and no pause: text, never a command.
"middle-landlord.wav|slt|I forgot to send the message to the landlord yesterday, so I will call him this evening instead.||"
"middle-design.wav|awb|We should start over with the design, because the first draft confused everyone.||"
)
for row in "${clips[@]}"; do
    IFS='|' read -r file voice text phrase action <<<"$row"
    speak "$voice" "$text" "$here/$file" 0.4 0.6
    add_entry "$file" "$text" "$voice" "$phrase" "$action"
done

# The long clip: a dictated note of many sentences with natural pauses, for segmentation (> 130 s).
long_sentences=(
"Here are my notes from the planning meeting this morning."
"We started with a review of last quarter, which went better than expected."
"Sales in the northern region grew by twelve percent."
"The southern region stayed flat, mostly because of the delayed product launch."
"Maria pointed out that the launch slipped by six weeks."
"The supplier could not deliver the new cases on time."
"We agreed to look for a second supplier before the summer."
"Next, we talked about hiring."
"There are three open positions on the support team."
"Two candidates are in the final round, and we should decide by Friday."
"The third position will be posted again with a higher salary range."
"After that, the discussion moved to the office move."
"The new building will be ready in September."
"Everyone liked the larger kitchen and the quiet rooms on the second floor."
"Parking is still a problem, so we will ask about a shared garage nearby."
"Then we reviewed the budget for the conference in October."
"Travel costs are higher this year, so we will send fewer people."
"Each team may nominate two speakers."
"The marketing team wants a booth, but that needs approval from finance."
"We also talked about the customer survey."
"Most customers are happy with the product, but they want faster answers from support."
"The average waiting time is now almost two days."
"Our goal is to answer every question within one working day."
"To do that, we will add a chat option and a better help page."
"Finally, we picked a date for the team outing."
"It will be on the second Saturday of July, at the lake."
"Please bring your own lunch, and tell me by next Monday if you can come."
"Action items are as follows."
"Maria will contact the second supplier."
"Tom will finish the hiring decisions by Friday."
"I will write to finance about the conference booth."
"Let us meet again in two weeks to check on progress."
"Thank you all for a productive meeting."
"Send message."
)
voices=(slt rms awb kal16)
pauses=(0.5 0.9 0.7 1.2 0.6 1.0 0.8 1.4)
parts=()
for i in "${!long_sentences[@]}"; do
    v=${voices[$((i % 4))]}
    p=${pauses[$((i % 8))]}
    speak "$v" "${long_sentences[$i]}" "$work/long-$(printf %03d "$i").wav" 0 "$p"
    parts+=("$work/long-$(printf %03d "$i").wav")
done
sox "${parts[@]}" "$work/long-body.wav"
sox "$work/long-body.wav" "$here/long-meeting-notes.wav" pad 0.5 0.5
add_entry "long-meeting-notes.wav" "${long_sentences[*]}" "slt,rms,awb,kal16" "Send message" "send"

# Speech in another language, for Whisper's language check (not a command clip: kept out of transcripts.json).
mkdir -p "$here/foreign"
espeak-ng -v fr -s 150 -w "$work/fr.wav" "Merci de votre appel. Au revoir, et à bientôt."
sox "$work/fr.wav" -r 48000 -c 1 -e floating-point -b 32 "$here/foreign/fr-au-revoir.wav" gain -n -3 pad 0.3 0.5
# Spanish that Whisper, told to write English, translates into the send command's words (its own-language check).
espeak-ng -v es-419 -s 170 -w "$work/es.wav" "Si quiere enviar el mensaje, diga enviar."
sox "$work/es.wav" -r 48000 -c 1 -e floating-point -b 32 "$here/foreign/es-enviar-mensaje.wav" gain -n -3 pad 0.3 0.5
# English in an accent Whisper takes for Polish, for the accent check after the own-language one.
espeak-ng -v en-us+m7 -s 150 -w "$work/accent.wav" "The budget figures for March look right to me. Send a checkpoint."
sox "$work/accent.wav" -r 48000 -c 1 -e floating-point -b 32 "$here/foreign/en-accent-checkpoint.wav" gain -n -3 pad 0.3 0.5
# English in festival's Finnish and Czech voices (heavy accents Whisper takes for another language), whose command
# the spotter hears too: the spotter's agreement, which confirms the Finnish one (written surely) and not the Czech
# one (written under the floors).
printf '%s\n' "The meeting moved to the small room. Send message." >"$work/accent.txt"
text2wave -eval "(voice_suo_fi_lj_diphone)" "$work/accent.txt" -o "$work/finnish.wav"
sox "$work/finnish.wav" -r 48000 -c 1 -e floating-point -b 32 "$here/foreign/en-finnish-send.wav" gain -n -3 pad 0.3 0.5
text2wave -eval "(voice_czech_dita)" "$work/accent.txt" -o "$work/czech.wav"
sox "$work/czech.wav" -r 48000 -c 1 -e floating-point -b 32 "$here/foreign/en-czech-send.wav" gain -n -3 pad 0.3 0.5
# Development set k's Finnish sentence whose command Whisper, writing Finnish, spells as it sounds in one word: the
# own-language check's spelling (`SpelledAlike`).
printf '%s\n' "My phone is ringing, one moment please. Stop listening." >"$work/stop.txt"
text2wave -eval "(voice_suo_fi_lj_diphone)" "$work/stop.txt" -o "$work/finnish-stop.wav"
sox "$work/finnish-stop.wav" -r 48000 -c 1 -e floating-point -b 32 "$here/foreign/en-finnish-stop.wav" gain -n -3 pad 0.3 0.5

{
    echo "["
    for i in "${!json_entries[@]}"; do
        sep=","; [ "$i" -eq $((${#json_entries[@]} - 1)) ] && sep=""
        echo "${json_entries[$i]}$sep"
    done
    echo "]"
} >"$here/transcripts.json"
echo "Samples: $(ls "$here"/*.wav | wc -l) clips; long clip $(soxi -D "$here/long-meeting-notes.wav") s"

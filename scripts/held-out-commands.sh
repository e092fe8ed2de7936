#!/usr/bin/env bash
# `make bench` (hearing): command clips made into $1 (never committed), with their expected action in
# $1/commands.tsv. Usage: scripts/held-out-commands.sh DIR [a|b|c|d|e|f|g|h|i|j|k|l|m]
# - Set a: festival's ked voice and espeak-ng's en-us voice (a male and a female variant). It was held out until the
#   session that chose the beam search and the second decode with context, which looked at its misses: since then
#   it is a development set, reported as such.
# - Set b: other sentences, in espeak-ng's Caribbean, Lancaster, West Midlands and New York voices. Held out until
#   the session that chose Whisper base over tiny.en, which ran both on it: a development set since.
# - Set c: other sentences again, in espeak-ng's Scottish, Received Pronunciation, British and American voices with
#   variants no earlier set used, and some commands in the other phrasings the vocabulary takes. Held out until the
#   session that chose which of those phrasings Whisper's prompt holds by looking at its misses: a development set
#   since.
# - Set d: other sentences, in festival's kal voice and espeak-ng's Scottish (female), American (Michael) and West
#   Midlands (female) voices, with other phrasings again, some of them in no earlier set. Held out until the session
#   that chose which languages the own-language check leaves out (Latin, Welsh) by looking at its misses: a
#   development set since.
# - Set e: made before anything was chosen on set d's misses. Other sentences, in festival's slt (HTS) voice and
#   espeak-ng's Caribbean (Annie), Received Pronunciation (Edward) and New York (Linda) variants, with other phrasings
#   again. Held out until the session that chose when a short utterance is decoded again with context, whose floor
#   was set after its context decodes were looked at: a development set since.
# - Set f: made before that floor was chosen. Other sentences, in espeak-ng's American (Gene), Lancaster (Jacky),
#   Scottish (Mike) and Received Pronunciation (anika) variants, none in an earlier set, with other phrasings again.
#   Held out until the session that chose the context's length (three seconds) on its misses: a development set
#   since.
# - Set g: made before anything was chosen on set f's misses. Other sentences, in espeak-ng's American (Andy), West
#   Midlands (aunty), Caribbean (david) and British (Lee) variants, none in an earlier set, with other phrasings
#   again. Held out until the session that tried lower floors for commands in clear English on its misses (rejected
#   on set h): a development set since.
# - Set h: made before anything was chosen on set g's misses. Other sentences, in espeak-ng's American (m7),
#   Received Pronunciation (steph), Scottish (m8) and Lancaster (belinda) variants, none in an earlier set, and
#   phrasings Whisper's prompt does not hold (deliver the message, microphone off, message done, pause listening,
#   nevermind the message, send and stop). Held out until the eighteenth session, which read its misses to choose
#   what to change next: a development set since.
# - Set i (held out): made before anything was changed after reading set h's misses. Other sentences, in espeak-ng's
#   New York (travis), West Midlands (Alicia), British (victor) and Scottish (Andrea) variants, none in an earlier
#   set, and phrasings again (sent the message, mic off, send and finish, close the microphone, sent a checkpoint,
#   send and close the mic). Only its totals have been read.
# - Set j (held out): made in the twenty-first session before anything was changed. Other sentences, in espeak-ng's
#   American (Caleb) and Received Pronunciation (Quincy) variants and festival's Italian voices (pc, lp) reading
#   English as an Italian would spell it out: a heavy accent, which no earlier set had. (One sentence in the Italian
#   voices was decoded first, to check Whisper could make them out at all.)
# - Set k (development from the start): made in the twenty-second session to tune on accents while j stays held out.
#   Other sentences, in festival's Finnish (lj, mv) and Czech (dita, ph) voices reading English as a Finn or a Czech
#   would spell it out, with phrasings of every action.
# - Set l: made in the twenty-fourth session before anything was run on it. Other sentences, in flite's awb
#   (Scottish) and rms (American) clustergen voices, more natural than espeak-ng's, which no command set used (they
#   speak some of Samples/, the tests' clips), and espeak-ng's American (john) and Received Pronunciation (zac)
#   variants, with the command phrasings spread over every action. Its misses were read that session to choose
#   spelled endings: a development set since.
# - Set m: made in the twenty-fourth session right after set l's totals were read, before anything was
#   chosen on l's misses. Other sentences, in espeak-ng's American (paul), Scottish (robert), Lancaster (shelby) and
#   West Midlands (grandpa) variants, none in an earlier set, with the phrasings spread over every action. Held out
#   until the session that weighed a combined command score on its per-clip figures (docs/command-decision.md): a
#   development set since.
# Keep i and j out of every tuning step: they exist to say how boxvoice hears the next user; when a change is chosen
# by looking at a set's misses, it becomes a development set and a new one is made.
set -euo pipefail
. "$(dirname "$0")/speak.sh"
out=$1
set=${2:-j}
mkdir -p "$out"
: >"$out/commands.tsv"
i=0
while IFS='|' read -r voice action sentence; do
    i=$((i + 1))
    file="h$i.wav"
    speak "$voice" 150 "$sentence" "$out/h$i.raw.wav"
    sox "$out/h$i.raw.wav" -r 16000 -c 1 -b 16 "$out/$file"
    rm -f "$out/h$i.raw.wav"
    printf '%s\t%s\n' "$file" "$action" >>"$out/commands.tsv"
done < <(sed -n "/^set $set\$/,/^end\$/p" <<'LIST' | sed '1d;$d'
set a
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
end
set b
en-029+m5|send|The plumber said he would come back on Monday. Send message.
en-029+m5|sendClose|We agreed on the colours for the new office. Over and out.
en-029+m5|sendCheckpoint|The slides for the pitch are half finished. Send checkpoint.
en-029+m5|sendHq|Ask the vet whether the dog needs another injection. Clean up and send.
en-gb-x-gbclan+f3|micOff|The kettle is boiling, give me a minute. Stop listening.
en-gb-x-gbclan+f3|cancel|Hold on, I was talking to my neighbour. Cancel message.
en-gb-x-gbclan+f3|erase|The dates in that were all muddled up, start over.
en-gb-x-gbclan+f3|send|Remind everyone that the library closes early on Friday. Send message.
en-gb-x-gbcwmd+m2|sendClose|The tickets are booked and the hotel is paid for. Send and close.
en-gb-x-gbcwmd+m2|sendCheckpoint|I have checked the first forty invoices. Send checkpoint.
en-gb-x-gbcwmd+m2|sendHq|Tell the accountant the receipts are in the blue folder. Clean up and send.
en-gb-x-gbcwmd+m2|micOff|My daughter needs help with her homework now. Stop listening.
en-us-nyc+f5|cancel|That was meant for somebody else. Cancel message.
en-us-nyc+f5|erase|I got the street name wrong, start over.
en-us-nyc+f5|sendClose|The car is parked in the usual spot. Over and out.
en-us-nyc+f5|send|Could you order more coffee filters for the kitchen. Send message.
end
set c
en-gb-scotland+m6|send|The boiler man is coming between eight and ten tomorrow. Send message.
en-gb-scotland+m6|sendClose|Thanks for sorting out the parking permits. Over and out.
en-gb-scotland+m6|sendCheckpoint|Chapter three has the new diagrams now. Send checkpoint.
en-gb-scotland+m6|sendHq|Find out if the bakery still does gluten free bread. Clean up and send.
en-gb-x-rp+f1|micOff|The baby has just woken up. Stop listening.
en-gb-x-rp+f1|cancel|Actually I will ring her myself instead. Cancel message.
en-gb-x-rp+f1|erase|I mixed up the two flight numbers, start over.
en-gb-x-rp+f1|send|Please water the tomatoes while I am away. Deliver the message.
en+m4|sendClose|The quarterly figures went to the auditors this morning. Send and close.
en+m4|sendCheckpoint|Section two of the grant proposal is drafted. Commit checkpoint.
en+m4|sendHq|Let the neighbours know the skip arrives on Tuesday. Clean up and send.
en+m4|micOff|I need to take this phone call. Turn off the microphone.
en-us+f4|cancel|Forget it, the meeting got moved anyway. Cancel message.
en-us+f4|erase|That came out completely wrong. Clear my message.
en-us+f4|sendClose|The keys are under the mat by the back door. Finished talking.
en-us+f4|send|Ask whether the gym is open on the holiday. Send message.
end
set d
kal|send|The dentist moved my appointment to half past three. Send message.
kal|sendClose|I will pick up the children from school today. Over and out.
kal|sendCheckpoint|The first draft of the speech is done. Add checkpoint.
kal|erase|I gave you the wrong street name, erase the message.
en-gb-scotland+f2|micOff|Hang on, somebody is at the front door. Mute the microphone.
en-gb-scotland+f2|cancel|I already told him in person this morning. Cancel message.
en-gb-scotland+f2|sendHq|Ask the school whether the trip needs a packed lunch. Clean up and send.
en-gb-scotland+f2|send|Tell Priya her parcel is waiting at the post office. Deliver the message.
en-us+Michael|sendClose|The alarm code is the same as last year. Send and close.
en-us+Michael|micOff|I am walking into a meeting now. Stop listening.
en-us+Michael|erase|Wait, I read out the wrong phone number, start over.
en-us+Michael|send|Let the cleaner know we are away all next week. Send now.
en-gb-x-gbcwmd+f5|sendCheckpoint|The spreadsheet has all of March in it now. Send checkpoint.
en-gb-x-gbcwmd+f5|cancel|That was meant for my brother, not for you. Abort message.
en-gb-x-gbcwmd+f5|sendClose|Everything is packed for the move on Saturday. Finished talking.
en-gb-x-gbcwmd+f5|sendHq|Find out what the plumber charged us last time. Clean up and send.
end
set e
slt|sendHq|Ask the garage if the winter tyres can go on this week. Clean up and send.
slt|micOff|The soup is boiling over on the stove. Microphone off.
slt|send|Remind me to renew the parking permit before it runs out. Send message.
slt|sendCheckpoint|The guest list has everyone from the office on it. Commit checkpoint.
en-029+Annie|cancel|I sent that one to the wrong group by mistake. Cancel the message.
en-029+Annie|sendClose|The boat leaves at seven so we should be early. Over and out.
en-029+Annie|erase|No, the numbers in that were from last year, start over.
en-029+Annie|send|The new fridge is coming on Thursday afternoon. Send message.
en-gb-x-rp+Edward|sendCheckpoint|The minutes of the first session are typed up. Send checkpoint.
en-gb-x-rp+Edward|micOff|My train is going into a tunnel now. Stop listening.
en-gb-x-rp+Edward|sendClose|Nothing else to add for today. Send and close.
en-gb-x-rp+Edward|cancel|Never mind, she has already answered him. Abort message.
en-us-nyc+Linda|send|Ask the landlord to look at the leaking tap in the bathroom. Send message.
en-us-nyc+Linda|sendHq|Tell the choir that rehearsal starts half an hour later. Clean up and send.
en-us-nyc+Linda|erase|I muddled the two dates together, clear my message.
en-us-nyc+Linda|sendClose|The cat has been fed and the windows are shut. Finished talking.
end
set f
en-us+Gene|send|The dentist moved my appointment to a quarter past nine. Send message.
en-us+Gene|micOff|The baby just woke up, I need a moment. Stop listening.
en-us+Gene|sendHq|Ask the bakery whether they can do a cake without nuts. Clean up and send.
en-us+Gene|erase|Hmm, I said the wrong street name twice, start over.
en-gb-x-gbclan+Jacky|sendClose|The van is loaded and the keys are with Sam. Over and out.
en-gb-x-gbclan+Jacky|cancel|Actually I will ring her instead. Cancel message.
en-gb-x-gbclan+Jacky|sendCheckpoint|The first half of the report is checked. Add checkpoint.
en-gb-x-gbclan+Jacky|send|Tell the neighbours the party ends at ten. Send the message.
en-gb-scotland+Mike|micOff|Somebody wants the room for a call. Turn off the microphone.
en-gb-scotland+Mike|sendClose|That is all from me for this week. Send and close.
en-gb-scotland+Mike|cancel|Scratch that, it was a joke for my sister. Abort message.
en-gb-scotland+Mike|sendHq|Find out when the library closes on Sundays. Clean up and send.
en-gb-x-rp+anika|send|The heating engineer can come on Wednesday morning. Send now.
en-gb-x-rp+anika|sendCheckpoint|All the receipts for April are in the folder. Send checkpoint.
en-gb-x-rp+anika|erase|Those figures were for the wrong quarter, erase the message.
en-gb-x-rp+anika|sendClose|The plants are watered and the post is in. Finished talking.
end
set g
en-us+Andy|sendCheckpoint|I finished the slides for the first three sections. Commit checkpoint.
en-us+Andy|cancel|Wait, she already knows about the dinner. Cancel the message.
en-us+Andy|send|Could you pick up some batteries on your way home. Send message.
en-us+Andy|micOff|The kettle is boiling, give me a second. Mute the microphone.
en-gb-x-gbcwmd+aunty|sendHq|Remind Priya that the invoice is due on Friday. Clean up and send.
en-gb-x-gbcwmd+aunty|erase|No, no, that is not what I meant at all, clear the message.
en-gb-x-gbcwmd+aunty|sendClose|The car is booked in for its service next Tuesday. Over and out.
en-gb-x-gbcwmd+aunty|send|Let everyone know the meeting room has changed. Send now.
en-029+david|micOff|Hold on, someone is knocking at the door. Stop listening.
en-029+david|sendClose|I think that covers the whole plan for the trip. Send and close.
en-029+david|sendCheckpoint|The budget figures for March look right to me. Send a checkpoint.
en-029+david|erase|I mixed up the two addresses, start over.
en+Lee|send|Ask the school whether the trip is still going ahead. Send the message.
en+Lee|cancel|Forget it, I will tell him myself tomorrow. Abort message.
en+Lee|sendHq|Tell the builder the tiles arrived broken again. Send and clean up.
en+Lee|sendClose|That is everything I wanted to say about the garden. Finished talking.
end
set h
en-us+m7|send|The parcel for your sister is on the hall table. Deliver the message.
en-us+m7|micOff|I need to take this call from the bank. Microphone off.
en-us+m7|sendCheckpoint|The first half of the report is ready for review. Add checkpoint.
en-us+m7|cancel|Actually, he already heard the news from Sam. Cancel message.
en-gb-x-rp+steph|sendClose|Tell them the flight lands at half past six. Send and stop.
en-gb-x-rp+steph|erase|I said the wrong day for the dentist, erase my message.
en-gb-x-rp+steph|sendHq|Please ask Omar to water the tomatoes this weekend. Clean up and send.
en-gb-x-rp+steph|send|The heating is fixed and the engineer has gone home. Message done.
en-gb-scotland+m8|sendClose|We can pick this up again after lunch. Over and out.
en-gb-scotland+m8|micOff|The baby just woke up, hang on a moment. Pause listening.
en-gb-scotland+m8|cancel|I would rather say this to her in person. Nevermind the message.
en-gb-scotland+m8|sendCheckpoint|Those are the numbers for the first quarter. Send the checkpoint.
en-gb-x-gbclan+belinda|send|Can you book a table for four at eight tonight. Send message.
en-gb-x-gbclan+belinda|erase|That came out all wrong, let me start over.
en-gb-x-gbclan+belinda|sendHq|Remind me to renew the car insurance before the tenth. Send and clean up.
en-gb-x-gbclan+belinda|sendClose|That is all for the handover notes today. Finished talking.
end
set i
en-us-nyc+travis|send|The plumber will be here between two and four. Sent the message.
en-us-nyc+travis|micOff|My phone is ringing in the other room. Mic off.
en-us-nyc+travis|sendHq|Ask the florist if the roses can be delivered on Saturday. Clean up and send.
en-us-nyc+travis|cancel|On second thought, I will tell her at dinner. Abort the message.
en-gb-x-gbcwmd+Alicia|sendClose|The boxes are labelled and stacked by the door. Send and finish.
en-gb-x-gbcwmd+Alicia|sendCheckpoint|The chapter on the old railway is drafted. Commit checkpoint.
en-gb-x-gbcwmd+Alicia|erase|Hold on, I gave the wrong room number, start over.
en-gb-x-gbcwmd+Alicia|send|Please feed the fish while we are in Spain. Send now.
en-gb+victor|micOff|The builders have started drilling next door. Close the microphone.
en-gb+victor|sendClose|We should have the results by next Monday. Over and out.
en-gb+victor|cancel|Sorry, that was not meant to be recorded. Cancel message.
en-gb+victor|sendCheckpoint|The guest list is done up to the letter M. Sent a checkpoint.
en-gb-scotland+Andrea|erase|That is not right at all, clear the message.
en-gb-scotland+Andrea|send|Tell Grandad the photos are in the blue album. Send message.
en-gb-scotland+Andrea|sendHq|Ask the council when the bins are collected over the holidays. Clean up and send.
en-gb-scotland+Andrea|sendClose|I think that is everything about the wedding plans. Send and close the mic.
end
set j
en-us+Caleb|send|The electrician says the new socket works fine now. Send message.
en-us+Caleb|micOff|The dog is barking at the postman again. Stop listening.
en-us+Caleb|sendCheckpoint|The notes from the planning call are typed up. Send checkpoint.
en-us+Caleb|erase|I read the wrong date off the calendar, erase the message.
en-gb-x-rp+Quincy|sendClose|The hire car goes back before noon on Friday. Over and out.
en-gb-x-rp+Quincy|cancel|She has already booked the tickets herself. Cancel the message.
en-gb-x-rp+Quincy|sendHq|Ask the chemist whether my prescription is ready. Clean up and send.
en-gb-x-rp+Quincy|send|The window cleaner is coming next Thursday. Deliver the message.
pc|send|The train from Milan was late again this morning. Send message.
pc|micOff|My colleague is calling me from the corridor. Mute the microphone.
pc|sendClose|The report is finished and printed for the meeting. Send and close.
pc|erase|I said the wrong time for the dinner, start over.
lp|cancel|My brother has already told our mother. Cancel message.
lp|sendCheckpoint|The translation of the first chapter is done. Commit checkpoint.
lp|sendHq|Tell the tenants the water is off on Tuesday. Clean up and send.
lp|sendClose|That is all I wanted to say about the holiday. Finished talking.
end
set k
lj|send|The train leaves at seven, so I will be home late tonight. Send message.
lj|sendClose|Thanks for looking after the cat this weekend. Over and out.
lj|micOff|My phone is ringing, one moment please. Stop listening.
lj|cancel|Actually, I will call her instead. Cancel message.
mv|sendCheckpoint|The first draft of the report is in the shared folder. Send checkpoint.
mv|erase|That came out completely wrong, erase the message.
mv|sendHq|Ask the neighbours to keep the noise down after ten. Clean up and send.
mv|send|The keys are under the blue flower pot by the door. Send the message.
dita|sendClose|We can talk about the holiday plans on Sunday. Send and close.
dita|micOff|The children are shouting in the hall. Turn off the microphone.
dita|erase|I forgot what I was going to say, start over.
dita|cancel|Never mind, the shop is already closed. Abort message.
ph|send|Please bring the printed tickets to the station. Send message.
ph|sendCheckpoint|The numbers for the second quarter are finished. Commit checkpoint.
ph|sendClose|I will see you all at the meeting tomorrow. Finished talking.
ph|sendHq|Tell the bakery we need forty rolls for Saturday. Send and clean up.
end
set l
awb|send|The plumber can come on Friday after lunch, if that suits you. Send message.
awb|micOff|Hang on, the kettle is boiling. Mic off.
awb|sendCheckpoint|That is the outline for the first three slides. Send checkpoint.
awb|cancel|Actually, I will just phone her instead. Cancel the message.
awb|sendClose|Remind me to renew the parking permit next week. Over and out.
rms|sendHq|Order more printer ink and a box of envelopes. Clean up and send.
rms|erase|Hmm, no, that came out backwards. Start over.
rms|send|The meeting room is booked from two until four. Send the message.
rms|sendClose|We are done with the review for today. Send and close.
rms|micOff|I need to take this call from my sister. Stop listening.
en-us+john|cancel|Forget it, they already fixed the bug. Abort message.
en-us+john|erase|That list was all wrong, clear the message.
en-us+john|sendCheckpoint|The draft of the grant proposal is half done. Commit checkpoint.
en-gb-x-rp+zac|send|Let the neighbours know the bins go out on Tuesday. Send message.
en-gb-x-rp+zac|micOff|The children just came home from school. Turn off the microphone.
en-gb-x-rp+zac|sendClose|Thanks for all the help with the move. Finished talking.
end
set m
en-us+paul|sendCheckpoint|The spreadsheet has the totals for March and April now. Send a checkpoint.
en-us+paul|micOff|My boss just walked into the office. Mute the mic.
en-us+paul|send|Could you pick up the dry cleaning on your way home? Send message.
en-us+paul|erase|Wait, I mixed up the two addresses. Erase the message.
en-gb-scotland+robert|sendClose|The car is booked in for its service on Monday. Over and out.
en-gb-scotland+robert|cancel|On second thought, I should ask in person. Cancel message.
en-gb-scotland+robert|sendHq|Write to the school about the trip in June. Clean up and send.
en-gb-scotland+robert|micOff|Give me a minute, the dog wants to go out. Microphone off.
en-gb-x-gbclan+shelby|send|Dinner is at seven, and bring a jumper because it gets cold. Send the message.
en-gb-x-gbclan+shelby|erase|No, scratch all of that. Start over.
en-gb-x-gbclan+shelby|sendCheckpoint|The first two sections of the manual are translated. Add checkpoint.
en-gb-x-gbclan+shelby|sendClose|Tell the landlord the boiler works again. Send and finish.
en-gb-x-gbcwmd+grandpa|cancel|Never mind, I found the receipt after all. Abort the message.
en-gb-x-gbcwmd+grandpa|micOff|Somebody is ringing the doorbell. Stop listening.
en-gb-x-gbcwmd+grandpa|send|The library books are due back on Thursday. Send message.
en-gb-x-gbcwmd+grandpa|sendClose|That is everything for the weekly update. Finished talking.
end
LIST
)
echo "$i held-out clips in $out"

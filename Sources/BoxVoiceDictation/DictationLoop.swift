import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceStore
import Foundation
import Synchronization

extension DictationSession {
    /// The loop's handlers, with what they need from the run.
    struct Loop {
        let session: DictationSession
        let transcriber: LiveTranscriber
        let worker: DeliveryWorker

        /// Takes the keys pressed since the last call, each placed where the recording was when it came.
        func take(_ control: DictationControl, state: inout Hearing) {
            let pressed = control.take()
            guard !pressed.isEmpty else { return }
            let frame = state.road?.framesReceived ?? state.framesHeard
            state.keys += pressed.map { ($0, frame) }
        }

        /// Acts on the keys that came at or before `frame` in the audio, in order.
        func pressKeys(upTo frame: Int64, message: inout Message, state: inout Hearing) throws {
            while let key = state.keys.first, key.frame <= frame, !state.machine.isStopped {
                state.keys.removeFirst()
                try press(key.trigger, at: key.frame, message: &message, state: &state)
            }
        }

        /// The recognizer fell so far behind that the audio up to `frame` is not heard live (it is recorded all the
        /// same, and HQ hears it): the utterance in progress ends where hearing stopped, and the recognizer goes on
        /// from `frame`, its times shifted so commands still act at their place in the audio.
        func skipAhead(to frame: Int64, message: inout Message, state: inout Hearing) throws {
            let missed = frame - state.framesHeard
            let from = state.framesHeard
            for update in try heard(transcriber.endUtterance(), state: state) {
                try handle(update, message: &message, state: &state)
                if state.machine.isStopped { break }
            }
            state.framesSkipped += missed
            state.framesHeard = frame
            state.recent = RecentAudio(seconds: session.recentSeconds)
            session.onEvent(
                .notHeardLive(seconds: Double(missed) / AudioRate.perSecond, at: Double(from) / AudioRate.perSecond))
        }

        /// The recognizer's updates with their times on the stream's clock (they differ once it skipped ahead).
        func heard(_ updates: [LiveUpdate], state: Hearing) -> [LiveUpdate] {
            guard state.framesSkipped > 0 else { return updates }
            let shift = Double(state.framesSkipped) / AudioRate.perSecond
            return updates.map { $0.shifted(by: shift) }
        }

        /// - Parameter frame: where the key came in the audio: a message a key sends ends there.
        func press(_ trigger: DictationTrigger, at frame: Int64, message: inout Message, state: inout Hearing) throws {
            // A key acts after the command being checked is decided.
            try settle(message: &message, state: &state, waiting: true)
            if state.machine.isStopped { return }
            if trigger == .enter {
                // What was said just before the key counts: close the utterance without waiting for silence.
                let number = state.machine.messageNumber
                for update in try heard(transcriber.endUtterance(), state: state) {
                    try handle(update, message: &message, state: &state)
                    if state.machine.isStopped { return }
                }
                // The flushed words already held a spoken send: Enter has nothing left to send.
                if state.machine.messageNumber != number { return }
                // What was said up to the key is the message; the recording has run on since.
                message.endFrame = message.endFrame ?? frame
            }
            try session.apply(
                state.machine.handle(trigger, hasContent: session.hasContent(message)), to: &message, state: &state,
                worker: worker)
        }

        func handle(_ update: LiveUpdate, message: inout Message, state: inout Hearing) throws {
            switch update {
            case .partial(let text):
                session.onEvent(.partial(text))
            case .holding(let utterance):
                // The box is asked while the live path waits for the speaker's pause, not after.
                guard state.pending == nil, let found = utterance.endingCommand(session.detector) else { return }
                session.onEvent(.awaitingPause(action: found.action, phrase: found.matchedPhrase))
                state.awaiting = (found.action, session.askSecondOpinion(found, utterance, state: state))
            case .utterance(let utterance):
                if case .pocketsphinxInstead(let reason) = utterance.heardBy {
                    session.onEvent(.whisperMissed(reason: reason, at: utterance.end))
                }
                let awaited = state.awaiting
                state.awaiting = nil
                if utterance.speechWentOn, state.pending == nil, let awaited {
                    if let check = awaited.check {
                        // Talk went on right after the command, yet the box may still have heard one in the
                        // seconds before the pause: only its confirmation makes it act (a user chaining messages).
                        state.pending = (check, [], true)
                        return
                    }
                    session.onEvent(.speechWentOn(action: awaited.action))
                }
                // A second opinion asked early serves only the utterance it was asked for, if its command stands.
                let early = awaited?.check.flatMap { $0.utterance == utterance ? $0 : nil }
                guard !utterance.text.isEmpty else { return }
                if state.pending != nil {
                    // Heard after a command still being checked: it belongs after that command is decided.
                    state.pending?.queued.append(update)
                    return
                }
                // A command is the words the speaker ended this utterance on, before a pause: command words
                // inside a sentence, or cut off by a breath, are text.
                let found = utterance.endingCommand(session.detector)
                if let found, utterance.commandIsSpottedOnly || utterance.commandIsUnsure {
                    // A command too far from the audio to be worth asking about is not taken, unasked.
                    if utterance.commandWorthAsking,
                        let check = early ?? session.askSecondOpinion(found, utterance, state: state)
                    {
                        session.onEvent(.final(utterance.text))
                        state.pending = (check, [], false)
                        return
                    }
                    if let doubt = utterance.commandDoubt {
                        // Nobody to confirm a command that cannot act alone: its words are not taken as one.
                        if !utterance.recognized.isEmpty { session.onEvent(.final(utterance.recognized)) }
                        session.onEvent(
                            .commandNotTaken(action: found.action, phrase: found.matchedPhrase, doubt: doubt))
                        try hearWithoutCommand(utterance, message: &message)
                        return
                    }
                }
                session.onEvent(.final(utterance.text))
                guard let found else {
                    message.hear(utterance.text)
                    // Kept as it is heard: a crash mid-message leaves a draft with these words.
                    try session.store.noteHeard(message.id, text: message.liveText)
                    return
                }
                try act(on: found, endingWith: utterance, message: &message, state: &state)
            }
        }

        /// The command `found` ends the message with `utterance`: its words join the message, the audio ends where
        /// the utterance did, and the dictation table acts.
        private func act(
            on found: KeywordMatch, endingWith utterance: LiveUtterance, message: inout Message, state: inout Hearing
        ) throws {
            message.hear(utterance.text)
            message.keyword = found
            message.endFrame = Int64((utterance.end * AudioRate.perSecond).rounded())
            // The command is announced once what it did is durable: whoever sees it can rely on it.
            let heard = DictationEvent.keyword(action: found.action, phrase: found.matchedPhrase, at: utterance.end)
            try session.apply(
                state.machine.handle(.keyword(found.action), hasContent: session.hasContent(message)), to: &message,
                state: &state, worker: worker, announcing: heard)
        }

        /// The utterance's words without the command it was checked for (or that could not be checked).
        private func hearWithoutCommand(_ utterance: LiveUtterance, message: inout Message) throws {
            guard !utterance.recognized.isEmpty else { return }
            message.hear(utterance.recognized)
            try session.store.noteHeard(message.id, text: message.liveText)
        }

        /// Decides the command being checked once its verdict is in (or, `waiting`, once it comes or times out), then
        /// hears what came after it.
        func settle(message: inout Message, state: inout Hearing, waiting: Bool) throws {
            guard let (check, queued, talkWentOn) = state.pending else { return }
            guard let verdict = waiting ? check.awaitVerdict() : check.poll() else { return }
            state.pending = nil
            let utterance = check.utterance
            session.onEvent(
                .commandChecked(
                    action: check.match.action, outcome: verdict, seconds: Date().timeIntervalSince(check.started)))
            if talkWentOn {
                // Not shown yet: the utterance with its command if the box heard one, its words alone otherwise.
                let shown = verdict == .confirmed ? utterance.text : utterance.recognized
                if !shown.isEmpty { session.onEvent(.final(shown)) }
                if verdict != .confirmed { session.onEvent(.speechWentOn(action: check.match.action)) }
            }
            if verdict == .rejected || (talkWentOn && verdict != .confirmed) {
                // Ordinary words the spotter mistook: the language model's words stay, nothing acts.
                try hearWithoutCommand(utterance, message: &message)
            } else if let doubt = utterance.commandDoubt, verdict != .confirmed {
                // No answer in time: a command that cannot act alone needs the box's yes.
                session.onEvent(
                    .commandNotTaken(action: check.match.action, phrase: check.match.matchedPhrase, doubt: doubt))
                try hearWithoutCommand(utterance, message: &message)
            } else if let found = utterance.endingCommand(session.detector) {
                try act(on: found, endingWith: utterance, message: &message, state: &state)
            }
            for update in queued {
                if state.machine.isStopped { return }
                try handle(update, message: &message, state: &state)
            }
        }
    }
}

extension LiveUpdate {
    /// The same update with its audio times moved by `seconds`.
    func shifted(by seconds: Double) -> LiveUpdate {
        func move(_ utterance: LiveUtterance) -> LiveUtterance {
            var moved = utterance
            moved.end += seconds
            moved.spots = moved.spots.map { spot in
                var spot = spot
                spot.end += seconds
                return spot
            }
            return moved
        }
        switch self {
        case .partial: return self
        case .holding(let utterance): return .holding(move(utterance))
        case .utterance(let utterance): return .utterance(move(utterance))
        }
    }
}

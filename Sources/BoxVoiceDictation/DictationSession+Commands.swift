import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceStore
import BoxVoiceSync
import Foundation
import Synchronization

/// Acting on what the state machine decided: commits, discards, second opinions and the messages they end.
extension DictationSession {
    /// Starts the box's second opinion on a command that cannot act alone; nil when none can be asked.
    func askSecondOpinion(_ found: KeywordMatch, _ utterance: LiveUtterance, state: Hearing) -> SecondOpinion? {
        guard let wait = configuration.secondOpinionSeconds, let work = configuration.workDirectory,
            !finisher.hqIsUnavailable
        else { return nil }
        let end = Int64((utterance.end * AudioRate.perSecond).rounded())
        let audio = state.recent.slice(
            from: end - Int64(configuration.secondOpinionWindowSeconds * AudioRate.perSecond), to: end)
        guard !audio.isEmpty else { return nil }
        return SecondOpinion(
            match: found, utterance: utterance, audio: audio, client: configuration.client,
            session: configuration.session,
            detector: detector, workDirectory: work, wait: wait)
    }

    func apply(
        _ effects: [DictationEffect], to message: inout Message, state: inout Hearing,
        worker: DeliveryWorker, announcing heard: DictationEvent? = nil
    ) throws {
        var heard = heard
        func announce() {
            if let event = heard { onEvent(event) }
            heard = nil
        }
        let resolver = VoiceTextResolver(detector: detector)
        for effect in effects {
            switch effect {
            case .deliver(let spoken):
                // The last segments are uploaded only once the message is committed: nothing reaches the network first.
                let rest = try endAudio(of: &message, state: &state)
                let command = spoken == nil ? nil : message.keyword.map(HeardCommand.init)
                let ending = MessageStore.Ending(
                    heardText: message.liveText, typedPrefix: configuration.typedPrefix, command: command,
                    liveText: resolver.liveText(
                        heard: message.liveText, command: command,
                        typedPrefix: configuration.typedPrefix))
                if finisher.hqIsUnavailable {
                    let body = MessageFinisher.frame(ending.liveText, origin: .live, id: message.id, at: ending.at)
                    try store.commitSend(message.id, ending, liveBody: body)
                    announce()
                    onEvent(.committed(messageId: message.id))
                    for segment in rest { submit(segment, to: &message) }
                    onEvent(.queued(messageId: message.id, message: body, text: ending.liveText))
                    worker.deliverNow()
                } else {
                    try store.commitSend(message.id, ending, liveBody: nil)
                    announce()
                    onEvent(.committed(messageId: message.id))
                    for segment in rest { submit(segment, to: &message) }
                    message.held.forEach(message.uploader.submit)
                    finisher.finish(message.id, uploads: message.uploader, lease: message.recording.lease) {
                        worker.deliverNow()
                    }
                }
            case .discard:
                let hadContent = hasContent(message)
                _ = try? endAudio(of: &message, state: &state)  // dropped: never uploaded
                try store.discard(message.id)
                announce()
                if hadContent { onEvent(.discarded) }
            case .keepDraft:
                // A draft's HQ runs when it is sent.
                try endAudio(of: &message, state: &state)
                // A mic-off's words (and anything after them) never reach the message.
                let command = message.keyword.map(HeardCommand.init)
                let ending = MessageStore.Ending(
                    heardText: message.liveText, typedPrefix: configuration.typedPrefix, command: command,
                    liveText: resolver.liveText(
                        heard: message.liveText, command: command,
                        typedPrefix: configuration.typedPrefix))
                try store.keepDraft(message.id, ending)
                announce()
                onEvent(.draft(messageId: message.id))
            case .beginNextMessage:
                message = try begin(&state)
            case .stop:
                break
            }
        }
        announce()
    }

    /// Closes the message's recording where its last utterance ended (the recording has run on past it); what came
    /// after is held for the next message.
    /// - Returns: the segments not handed to HQ yet, for the caller to upload once the message is committed (or drop).
    @discardableResult
    private func endAudio(of message: inout Message, state: inout Hearing) throws -> [ClosedSegment] {
        guard let road = state.road else { return [] }
        let cut = try road.cut(at: message.endFrame, notBefore: message.submittedThrough)
        message.unsubmitted = []
        return Array(cut.segments.dropFirst(message.submittedCount))
    }
}

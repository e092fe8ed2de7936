import BoxVoiceKeywords
import Foundation

/// The utterance-end road: each utterance the VAD ends is decided on Whisper's words, in order, while hearing goes
/// on; pocketsphinx's words of it wait as its stand-in.
extension LiveTranscriber {
    /// Hears 16 kHz audio on the utterance-end road: each utterance the VAD ends waits for Whisper's words while
    /// hearing goes on, and those whose words are in are decided, in order.
    func hearEnds(_ pcm: [Float]) throws -> [LiveUpdate] {
        var updates: [LiveUpdate] = []
        for cut in ends!.hear(pcm) {
            // pocketsphinx closes its utterance where the VAD did: its text is what stands in if Whisper misses.
            if priming == nil { updates += try closing(heard: language?.endUtterance() ?? []) }
            waitForWords(cut)
        }
        return updates + decideInOrder(all: false)
    }

    /// An ended utterance waiting for Whisper's words, with pocketsphinx's words of the same audio.
    struct Undecided {
        let cut: UtteranceCutter.Cut
        let standIns: [LiveUtterance]
        /// When Whisper's words stop being waited for.
        let due: Date
    }

    /// Where the audio of the first utterance still waiting for Whisper's words starts, in seconds of what was fed
    /// (nil: none waits): a message can still end inside it, so the recording from there on is not final yet.
    public var firstUndecidedStart: Double? {
        undecided.first.map { $0.cut.end - Double($0.cut.samples.count) / Double(WhisperModel.sampleRate) }
    }

    /// Starts waiting for `cut`'s words (its decode runs on Whisper's thread).
    func waitForWords(_ cut: UtteranceCutter.Cut) {
        ends!.startDecode(cut)
        undecided.append(
            Undecided(
                cut: cut, standIns: standIns, due: Date().addingTimeInterval(options.whisper?.deadline ?? 0)))
        standIns = []
    }

    /// Decides the waiting utterances whose words are in (or are due), in order; `all`: every one, waiting for each.
    func decideInOrder(all: Bool) -> [LiveUpdate] {
        var updates: [LiveUpdate] = []
        while let next = undecided.first {
            let left = next.due.timeIntervalSinceNow
            guard all || left <= 0 || ends!.isDecoded(next.cut) else { break }
            undecided.removeFirst()
            updates += decide(next.cut, standIns: next.standIns, wait: max(0, left))
        }
        return updates
    }

    /// One ended utterance: Whisper's text if it comes within the deadline, else pocketsphinx's, saying why.
    func decide(_ cut: UtteranceCutter.Cut, standIns: [LiveUtterance], wait: Double) -> [LiveUpdate] {
        // What suggests a command in this audio besides Whisper's quick words: pocketsphinx's text holds one.
        let heardElsewhere = standIns.contains { options.holdsCommand($0.text) }
        switch ends!.transcribe(cut, wait: wait, suspected: heardElsewhere) {
        case .success(let heard):
            // One utterance a cut: only a command ending it can act (`Options.commandPlaces` finds no other), so an
            // utterance is never split after command words in its middle.
            guard let piece = heard.pieces.first else { return [] }
            var utterance = LiveUtterance(
                text: piece.text, recognized: piece.recognized, spots: [], end: cut.end,
                narrowband: hearsNarrowband, heardBy: .whisper)
            utterance.endsAtPause = cut.endsAtPause
            utterance.commandVerdict = piece.verdict
            utterance.commandWeighing = piece.weighing
            return [.utterance(utterance)]
        case .failure(let error):
            return standIns.map { utterance in
                var standIn = utterance
                standIn.heardBy = .pocketsphinxInstead(error.code)
                standIn.endsAtPause = cut.endsAtPause
                // The command waits for Whisper's words or the box's: another recognizer's never decide one alone.
                if options.holdsCommand(standIn.text) { standIn.commandVerdict = .ask(.lateDecode) }
                return .utterance(standIn)
            }
        }
    }
}

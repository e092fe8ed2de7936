import BoxVoiceAudio
import Foundation

/// One utterance as the live path heard it.
public struct LiveUtterance: Sendable, Equatable {
    /// What the dictation sees: the language model's text, plus any command the spotter heard that the text lacks.
    public var text: String
    /// The language model's own text.
    public var recognized: String
    /// Key phrases the command spotter fired on during this utterance.
    public var spotted: [String]
    /// Where it ends in the audio, in seconds from the start.
    public var end: Double
}

public enum LiveUpdate: Sendable, Equatable {
    /// The language model's running hypothesis for the utterance in progress.
    case partial(String)
    case utterance(LiveUtterance)
}

/// The live recognition path: 48 kHz Float32 in, resampled to 16 kHz, decoded by pocketsphinx with its language
/// model (utterance ends from its own speech/silence detection) while a second decoder spots command phrases in
/// keyword-search mode. A spotted phrase the language model's text does not already hold is written into that
/// utterance's text, so the contract's keyword detector — not a second rule set — decides the action.
public final class LiveTranscriber {
    public struct Options: Sendable {
        public var model: PocketSphinxModel = .debianEnglish
        /// `phrase /threshold/` per line (Models/command-spotter.en.txt); nil turns the spotter off.
        public var spotterPhrases: String?
        /// Off: the spotter alone (for measuring it); each spotted phrase becomes an utterance.
        public var useLanguageModel = true
        /// Decides whether a spotted phrase is already in the recognized text (by the action it means).
        public var sameCommand: @Sendable (_ recognized: String, _ phrase: String) -> Bool = { recognized, phrase in
            recognized.lowercased().contains(phrase.lowercased())
        }

        public init(spotterPhrases: String?) {
            self.spotterPhrases = spotterPhrases
        }
    }

    private let options: Options
    private let language: PocketSphinxDecoder?
    private let spotter: PocketSphinxDecoder?
    private let resampler: Resampler
    private var fed: Int64 = 0
    private var inSpeech = false
    private var lastPartial = ""
    private var pendingSpots: [String] = []

    public init(options: Options) throws {
        self.options = options
        language = options.useLanguageModel ? try PocketSphinxDecoder(model: options.model) : nil
        spotter = try options.spotterPhrases.map { try PocketSphinxDecoder(model: options.model, keyphrases: $0) }
        guard language != nil || spotter != nil else {
            throw PocketSphinxError(operation: "configuring", detail: "neither the language model nor the spotter is on")
        }
        resampler = try Resampler(from: 48_000, to: Double(PocketSphinxDecoder.sampleRate))
        try language?.start()
        try spotter?.start()
    }

    /// Position of what has been fed, in seconds.
    public var seconds: Double { Double(fed) / Double(PocketSphinxDecoder.sampleRate) }

    /// Feeds 48 kHz mono Float32.
    public func feed(_ samples: [Float]) throws -> [LiveUpdate] {
        try feed16k(try resampler.process(samples))
    }

    /// Ends the stream: flushes the resampler and closes the utterance in progress.
    public func finish() throws -> [LiveUpdate] {
        var updates = try feed16k(try resampler.flush())
        if let spotter {
            try spotter.end()
            if !spotter.hypothesis.isEmpty { pendingSpots.append(spotter.hypothesis) }
        }
        if let language {
            let text = try language.end()
            if !text.isEmpty || !pendingSpots.isEmpty { updates.append(.utterance(close(recognized: text))) }
        } else {
            updates += pendingSpots.map { .utterance(LiveUtterance(text: $0, recognized: "", spotted: [$0], end: seconds)) }
            pendingSpots.removeAll()
        }
        return updates
    }

    private func feed16k(_ samples: [Float]) throws -> [LiveUpdate] {
        var updates: [LiveUpdate] = []
        let pcm = samples.map { Int16(clamping: Int(($0 * 32_768).rounded())) }
        // Small steps so speech/silence transitions and spotted phrases are placed within ~100 ms.
        for start in stride(from: 0, to: pcm.count, by: 1_600) {
            let chunk = Array(pcm[start..<min(start + 1_600, pcm.count)])
            fed += Int64(chunk.count)
            if let spotter {
                try spotter.process(chunk)
                let heard = spotter.hypothesis.trimmingCharacters(in: .whitespaces)
                if !heard.isEmpty {
                    // Reset keyword search so the next occurrence is counted afresh.
                    try spotter.end()
                    try spotter.start()
                    if language == nil {
                        updates.append(.utterance(LiveUtterance(text: heard, recognized: "", spotted: [heard], end: seconds)))
                    } else {
                        pendingSpots.append(heard)
                    }
                }
            }
            guard let language else { continue }
            try language.process(chunk)
            let speaking = language.inSpeech
            if speaking {
                let partial = language.hypothesis
                if partial != lastPartial, !partial.isEmpty {
                    lastPartial = partial
                    updates.append(.partial(partial))
                }
            } else if inSpeech {
                // Speech just ended: the utterance is final.
                let text = try language.end()
                try language.start()
                lastPartial = ""
                if !text.isEmpty || !pendingSpots.isEmpty { updates.append(.utterance(close(recognized: text))) }
            }
            inSpeech = speaking
        }
        return updates
    }

    private func close(recognized: String) -> LiveUtterance {
        var text = recognized
        for phrase in pendingSpots where !options.sameCommand(text, phrase) {
            text = text.isEmpty ? phrase : text + " " + phrase
        }
        defer { pendingSpots.removeAll() }
        return LiveUtterance(text: text, recognized: recognized, spotted: pendingSpots, end: seconds)
    }
}

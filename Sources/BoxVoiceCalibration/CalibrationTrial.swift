import BoxVoiceAudio
import BoxVoiceKeywords
import BoxVoiceLive
import Foundation

/// The user's calibration recordings heard through the whole live path, as `dictate` would hear them with one choice
/// of settings: the language model, the spotter, the front end, the speaker's pause and the contract's detector
/// together. What the spotter alone finds on the takes is not what the user gets (BENCHMARKS.md at 7c182fc: a front end
/// chosen that way cost the laptop chain's held-out commands), so calibration compares its choices here.
public struct CalibrationTrial: Sendable {
    /// How one choice heard the recordings.
    public struct Score: Sendable, Equatable, CustomStringConvertible {
        /// Takes that made the dictation act on their own command.
        public var heard = 0
        /// Takes that made it act on another command, and commands in the ordinary talk: the mistakes a user pays for.
        public var mistaken = 0
        public var takes = 0

        public init(heard: Int = 0, mistaken: Int = 0, takes: Int = 0) {
            self.heard = heard
            self.mistaken = mistaken
            self.takes = takes
        }

        /// Fewer mistakes first, then at least `margin` more takes heard.
        public func isBetter(than other: Score, byAtLeast margin: Int = 1) -> Bool {
            mistaken != other.mistaken ? mistaken < other.mistaken : heard >= other.heard + margin
        }

        public var description: String { "\(heard) of \(takes) takes heard, \(mistaken) mistaken" }
    }

    public let detector: KeywordDetector
    public let dictionaryCache: String?

    public init(detector: KeywordDetector, dictionaryCache: String?) {
        self.detector = detector
        self.dictionaryCache = dictionaryCache
    }

    /// - Parameters:
    ///   - takes: 16 kHz recordings of each phrase.
    ///   - phrases: the spotter's phrases file to hear with.
    public func score(
        takes: CalibrationTakes, talk: [[Int16]], phrases: String, frontEnd: FrontEndUse, adaptation: String?
    ) throws -> Score {
        let options = LiveTranscriber.Options.hearing(
            detector, spotterPhrases: phrases, dictionaryCache: dictionaryCache, frontEnd: frontEnd,
            adaptation: adaptation)
        var score = Score()
        for entry in takes.phrases {
            let wanted = detector.detect(entry.phrase)?.action
            for take in entry.recordings {
                // Each take on its own, as one short dictation ending in its command.
                let acted = try actions(in: [take], options: options).first
                score.takes += 1
                if let acted, acted == wanted { score.heard += 1 } else if acted != nil { score.mistaken += 1 }
            }
        }
        score.mistaken += try actions(in: talk, options: options).count
        return score
    }

    /// The commands a dictation acts on over these recordings, heard one after another.
    private func actions(in recordings: [[Int16]], options: LiveTranscriber.Options) throws -> [KeywordAction] {
        let transcriber = try LiveTranscriber(options: options)
        let upsampler = try Resampler(from: Double(PocketSphinxDecoder.sampleRate), to: AudioRate.perSecond)
        var updates: [LiveUpdate] = []
        for recording in recordings {
            let samples = recording.map { Float($0) / 32_768 }
            for start in stride(from: 0, to: samples.count, by: 1_600) {
                updates += try transcriber.feed(
                    try upsampler.process(Array(samples[start..<min(start + 1_600, samples.count)])))
            }
        }
        updates += try transcriber.feed(try upsampler.flush())
        updates += try transcriber.finish()
        let texts = updates.compactMap { update -> String? in
            if case .utterance(let utterance) = update { utterance.text } else { nil }
        }
        return SpokenMessage.commands(in: texts, detector: detector).map(\.match.action)
    }
}

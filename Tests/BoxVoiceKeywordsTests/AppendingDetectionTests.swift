import BoxVoiceKeywords
import BoxVoiceTestSupport
import Foundation
import Testing

/// `detect(appending:to:)`, the live pass's check after each utterance, must answer exactly as `detect` over the whole
/// transcript whenever what came before held no command.
@Suite struct AppendingDetectionTests {
    let detector = KeywordDetector(vocabulary: try! Vocabulary.load(path: Checkout.keywordVocabulary))

    /// A small deterministic generator (SplitMix64), so a failure names a seed that reproduces it.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Phrase words, their plurals and neighbours, filler, punctuation, apostrophes and text with no letters.
    static let pieces = [
        "send", "sends", "message", "messages", "and", "close", "the", "mic", "microphone", "over", "out", "cancel",
        "abort", "nevermind", "stop", "listening", "start", "clean", "up", "checkpoint", "commit", "sent", "a", "now",
        "finished", "talking", "off", "turn", "erase", "that", "weather", "today", "is", "sunny", "it's", "don't",
        "send,", "message.", "—", "...", "日本", "café", "R2D2", "x-ray", "over-and-out", "\n", "  ",
    ]

    private func utterance(_ generator: inout Generator) -> String {
        (0..<Int.random(in: 1...6, using: &generator)).map { _ in Self.pieces.randomElement(using: &generator)! }
            .joined(separator: Bool.random(using: &generator) ? " " : "  ")
    }

    @Test func agreesWithTheWholeTranscriptOverRandomDictations() {
        var checked = 0
        var fired = 0
        for seed in UInt64(1)...400 {
            var generator = Generator(state: seed)
            var earlier = ""
            for _ in 0..<40 {
                let addition = utterance(&generator)
                let whole = earlier.isEmpty ? addition : earlier + " " + addition
                let expected = detector.detect(whole)
                let got = detector.detect(appending: addition, to: earlier)
                #expect(got == expected, "seed \(seed): \(earlier.debugDescription) + \(addition.debugDescription)")
                checked += 1
                if expected != nil {
                    fired += 1
                    earlier = ""  // a command ends the message, as in a dictation
                } else {
                    earlier = whole
                }
            }
        }
        // Both answers were exercised many times.
        #expect(checked == 16_000)
        #expect(fired > 1_000 && fired < checked - 1_000, "\(fired) of \(checked) fired")
    }

    @Test func aPhraseSpanningTheUtteranceBoundaryIsFound() throws {
        let spanning = detector.detect(appending: "out", to: "the weather is sunny over and")
        let found = try #require(spanning)
        #expect(found.action == .sendClose)
        #expect(found.processedTranscript == "the weather is sunny <send-close-message phrase=\"over and out\" />")
        let longer = detector.detect(appending: "microphone", to: "so send and close the")
        let longest = try #require(longer)
        #expect(longest.matchedPhrase == "send and close the microphone")
    }

    @Test func wordsFurtherBackThanTheLongestPhraseAreNotReadAgain() {
        // A long transcript with no command: the answer for a new utterance is the same with or without it.
        let long = Array(repeating: "the weather today is sunny", count: 2_000).joined(separator: " ")
        #expect(detector.detect(appending: "and mild", to: long) == nil)
        #expect(
            detector.detect(appending: "send message", to: long)?.processedTranscript
                == long + " <send-message phrase=\"send message\" />")
        #expect(detector.longestPhrase >= 5)
    }

    @Test func markupInTheTranscriptIsSearchedWhole() {
        let earlier = "keep <send-message phrase=\"send message\" /> and"
        #expect(detector.detect(appending: "more", to: earlier) == detector.detect(earlier + " more"))
    }
}

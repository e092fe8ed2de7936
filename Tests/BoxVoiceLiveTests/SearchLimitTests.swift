import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Testing

/// The language model's search is capped (`LiveTranscriber.Options.activeHMMLimit`) so speech the model fits poorly
/// cannot make the live path fall behind the microphone; the cap must not cost the text of speech it fits.
@Suite struct SearchLimitTests {
    /// Decodes `clip` through the live path's language-model recognizer, fed as the microphone feeds it.
    private static func heard(_ clip: String, limit: Int?) throws -> String {
        let recognizer = try PocketSphinxRecognizer(
            dictionaryCache: SharedCache.dictionaryFolder, activeHMMLimit: limit)
        let samples = try SpeechConversion.recognizerSamples(fromFile: Checkout.sample(clip))
        var texts: [String] = []
        for event in try recognizer.feed(samples) + recognizer.finish() {
            if case .final(let text, _) = event, !text.isEmpty { texts.append(text) }
        }
        return texts.joined(separator: " ")
    }

    private static let clips = [
        "none-weather.wav", "send-buy-milk.wav", "sendclose-flight.wav", "cancel-kal-wrong.wav",
        "checkpoint-report.wav",
    ]

    /// What the unlimited search hears in each clip, decoded once for both tests.
    private static let unlimited: [String: String] = Dictionary(
        uniqueKeysWithValues: clips.map { ($0, (try? heard($0, limit: nil)) ?? "") })

    @Test func theLiveSearchLimitKeepsTheTextOfClearSpeech() throws {
        let limit = try #require(LiveTranscriber.Options(spotterPhrases: nil).activeHMMLimit)
        for clip in Self.clips {
            #expect(Self.unlimited[clip]?.isEmpty == false, "\(clip)")
            #expect(try Self.heard(clip, limit: limit) == Self.unlimited[clip], "\(clip)")
        }
    }

    /// The limit reaches pocketsphinx: a search this narrow loses words the full one finds.
    @Test func aNarrowSearchLimitChangesWhatIsHeard() throws {
        #expect(try Self.clips.contains { try Self.heard($0, limit: 100) != Self.unlimited[$0] })
    }
}

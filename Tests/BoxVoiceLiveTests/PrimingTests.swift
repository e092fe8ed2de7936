import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

@testable import BoxVoiceLive

/// Priming a decoder without searching the opening audio (`adaptNormalization`) leaves it exactly as searching it
/// did: the same running normalization to the bit, so the same words after it.
@Suite struct PrimingTests {
    /// The opening audio decoded as an utterance and forgotten, as the live path primed before.
    private func searchedPriming(_ decoder: PocketSphinxDecoder, _ opening: [Int16]) throws {
        try decoder.start()
        for chunk in steps(opening) { try decoder.process(chunk) }
        try decoder.end()
        try decoder.start()
    }

    /// The language model's decoder as the live path makes it.
    private static func liveDecoder() throws -> PocketSphinxDecoder {
        try PocketSphinxDecoder(
            model: PocketSphinxModel.debianEnglish.limitedToLanguageModelWords(keptIn: SharedCache.dictionaryFolder),
            extraArguments: LiveTranscriber.Options(spotterPhrases: nil).languageModelSearch)
    }

    private func decode(_ decoder: PocketSphinxDecoder, _ samples: [Int16]) throws -> String {
        for chunk in steps(samples) { try decoder.process(chunk) }
        return try decoder.end()
    }

    /// A clip with a command (clean, and in white noise 10 dB under it) and keyword-free talk, primed on its
    /// opening 2 s or 0.7 s (the part of a frame left over at the end counts too), then decoded whole.
    @Test(
        arguments: [
            ("send-buy-milk.wav", nil, 2.0), ("send-buy-milk.wav", 10, 2.0), ("none-garden.wav", nil, 0.7),
        ] as [(String, Double?, Double)])
    func primingWithoutTheSearchLeavesTheSameNormalizationAndTheSameWords(
        _ clip: String, _ snr: Double?, _ seconds: Double
    ) throws {
        let audio = try snr.map { try Noise.clip(clip, snr: $0, seed: 7) } ?? WAVCapturePCM.load(Checkout.sample(clip))
        let samples = try SpeechConversion.recognizerSamples(from: audio, rate: 48_000)
        let opening = Array(samples.prefix(Int(seconds * Double(PocketSphinxDecoder.sampleRate)) + 37))
        let searched = try Self.liveDecoder(), adapted = try Self.liveDecoder()
        let shipped = try #require(searched.normalization)

        try searchedPriming(searched, opening)
        try adapted.start()
        try adapted.adaptNormalization(to: opening)
        let primed = try #require(searched.normalization)
        #expect(primed.frames > shipped.frames, "the opening held speech frames")
        #expect(primed.mean != shipped.mean)
        #expect(adapted.normalization == primed)

        let words = try decode(searched, samples)
        #expect(!words.isEmpty)
        #expect(try decode(adapted, samples) == words)
        #expect(adapted.normalization == searched.normalization)
    }

    @Test func aDecoderInsideAnUtteranceIsNotPrimed() throws {
        let decoder = try Self.liveDecoder()
        try decoder.start()
        try decoder.process([Int16](repeating: 0, count: 1_600))
        let before = try #require(decoder.normalization)
        #expect(throws: PocketSphinxError.self) {
            try decoder.adaptNormalization(to: [Int16](repeating: 1, count: 3_200))
        }
        #expect(decoder.normalization == before)
    }
}

import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

@testable import BoxVoiceLive

/// A language-model decoder a finished recognizer gave back is taken by the next one (`DecoderPool`) and hears
/// exactly as a newly built one would.
@Suite struct DecoderPoolTests {
    private static func samples(_ clip: String, snr: Double? = nil) throws -> [Int16] {
        let audio = try snr.map { try Noise.clip(clip, snr: $0, seed: 3) } ?? WAVCapturePCM.load(Checkout.sample(clip))
        return try SpeechConversion.recognizerSamples(from: audio, rate: 48_000)
    }

    /// A recognizer on `pool` as the live path makes it, primed on the opening 2 s, fed `samples`; finished, or left
    /// inside an utterance.
    private static func hear(_ samples: [Int16], pool: DecoderPool, finishing: Bool = true) throws
        -> [RecognizerEvent]
    {
        let live = LiveTranscriber.Options(spotterPhrases: nil)
        let recognizer = try PocketSphinxRecognizer(
            model: .debianEnglish, dictionaryCache: SharedCache.dictionaryFolder,
            activeHMMLimit: live.activeHMMLimit, secondPass: live.secondPassIsOn, pool: pool)
        try recognizer.prime(Array(samples.prefix(2 * PocketSphinxDecoder.sampleRate)))
        var events = try recognizer.feed(samples)
        if finishing { events += try recognizer.finish() } else { #expect(recognizer.inUtterance) }
        return events
    }

    @Test func aDecoderGivenBackHearsTheNextRecognizerExactlyAsANewOne() throws {
        let pool = DecoderPool(keeping: 1, idleSeconds: 600)
        let command = try Self.samples("send-buy-milk.wav")
        let new = try Self.hear(command, pool: pool)
        #expect(new.contains { if case .final(let text, _) = $0 { !text.isEmpty } else { false } })
        #expect(pool.waiting == 1, "the finished recognizer gave its decoder back")

        // The same decoder hears other speech in 10 dB noise (its running mean moves far from the model's), and its
        // recognizer goes away inside an utterance.
        let noisy = try Self.samples("none-garden.wav", snr: 10)
        _ = try Self.hear(Array(noisy.prefix(noisy.count * 2 / 3)), pool: pool, finishing: false)
        #expect(pool.waiting == 1)

        #expect(try Self.hear(command, pool: pool) == new)
    }

    @Test func aRecognizerWithoutADictionaryCacheKeepsNothing() throws {
        let pool = DecoderPool(keeping: 1, idleSeconds: 600)
        do {
            let recognizer = try PocketSphinxRecognizer(
                model: .debianEnglish, dictionaryCache: nil, activeHMMLimit: 5_000, secondPass: false, pool: pool)
            #expect(try recognizer.finish().isEmpty)
        }
        #expect(pool.waiting == 0, "its dictionary was cut into a temporary folder, gone with it")
    }

    @Test func aDecoderLeftIdleIsFreedAndTheOldestGoesFirst() throws {
        let pool = DecoderPool(keeping: 1, idleSeconds: 0.2)
        let model = PocketSphinxModel.debianEnglish.limitedToLanguageModelWords(keptIn: SharedCache.dictionaryFolder)
        let key = try #require(DecoderPool.key(model, arguments: []))
        let older = try PocketSphinxDecoder(model: model), newer = try PocketSphinxDecoder(model: model)
        pool.give(older, as: key)
        pool.give(newer, as: key)
        #expect(pool.waiting == 1, "one is kept, the older freed")
        #expect(pool.take(key) === newer)
        pool.give(newer, as: key)
        let deadline = Date().addingTimeInterval(10)
        while pool.waiting > 0, Date() < deadline { usleep(20_000) }
        #expect(pool.waiting == 0, "freed once idle for its time")
        #expect(pool.take(key) == nil)
    }

    @Test func aChangedAdaptationIsNeverServedFromBefore() throws {
        let folder = TemporaryDirectory("decoder-pool")
        var model = PocketSphinxModel.debianEnglish
        model.adaptation = folder.file("voice.mllr")
        try "1\n".write(toFile: folder.file("voice.mllr"), atomically: true, encoding: .utf8)
        let before = try #require(DecoderPool.key(model, arguments: []))
        try "1\n2\n".write(toFile: folder.file("voice.mllr"), atomically: true, encoding: .utf8)
        let after = try #require(DecoderPool.key(model, arguments: []))
        #expect(before != after)
        #expect(DecoderPool.key(model, arguments: ["-fwdflat", "no"]) != after)
        model.adaptation = folder.file("missing.mllr")
        #expect(DecoderPool.key(model, arguments: []) == nil)
    }
}

import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct PocketSphinxDecoderTests {
    @Test func decodesASampleClipIntoMostOfItsWords() throws {
        let decoder = try PocketSphinxDecoder()
        let samples = try SpeechConversion.recognizerSamples(fromFile: Checkout.sample("none-weather.wav"))
        let text = try decoder.transcribe(samples)
        let expected = ["weather", "today", "sunny", "light", "breeze", "west"]
        let heard = expected.filter { text.lowercased().contains($0) }
        #expect(heard.count >= 3, "heard: \(text)")
    }

    @Test func silenceDecodesToNothing() throws {
        let decoder = try PocketSphinxDecoder()
        #expect(try decoder.transcribe([Int16](repeating: 0, count: 16_000)).isEmpty)
    }

    @Test func aMissingModelIsAClearError() {
        var model = PocketSphinxModel.debianEnglish
        model.dictionary = "/nonexistent/cmudict.dict"
        #expect {
            _ = try PocketSphinxDecoder(model: model)
        } throws: { error in
            String(describing: error).contains("/nonexistent/cmudict.dict")
                && String(describing: error).contains("pocketsphinx-en-us")
        }
    }

    @Test func conversionResamplesTo16kInt16() throws {
        let samples = (0..<48_000).map { Float(sin(Double($0) / 10)) * 0.5 }
        let converted = try SpeechConversion.recognizerSamples(from: samples, rate: 48_000)
        #expect(abs(converted.count - 16_000) <= 2)
        #expect((converted.max() ?? 0) > 15_000 && (converted.max() ?? 0) <= 16_500)
    }
}

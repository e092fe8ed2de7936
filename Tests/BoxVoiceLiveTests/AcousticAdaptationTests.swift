import BoxVoiceLive
import BoxVoiceTestSupport
import EditDistance
import Foundation
import Testing

/// MLLR adaptation with Debian's sphinxtrain: real tools, real model, real (noisy) speech.
@Suite struct AcousticAdaptationTests {
    struct Clip: Decodable {
        var file: String
        var text: String
        var voice: String
    }

    static func clips(voice: String) throws -> [Clip] {
        let all = try JSONDecoder().decode(
            [Clip].self, from: Data(contentsOf: URL(fileURLWithPath: Checkout.root + "/Samples/transcripts.json")))
        return all.filter { $0.voice == voice }
    }

    static func words(_ text: String) -> [String] {
        let kept = text.lowercased().map { (character: Character) -> Character in
            character.isLetter || character == "'" ? character : " "
        }
        return String(kept).split(separator: " ").map(String.init)
    }

    static func noisy(_ clip: Clip, seed: UInt64) throws -> [Int16] {
        try SpeechConversion.recognizerSamples(from: Noise.clip(clip.file, snr: 10, seed: seed), rate: 48_000)
    }

    /// Word errors over the clips, each decoded as one utterance by the language model's decoder as the live path
    /// makes it (its dictionary cut to the model's words, its search capped).
    static func wordErrors(_ clips: [(clip: Clip, samples: [Int16])], model: PocketSphinxModel) throws -> Int {
        let decoder = try PocketSphinxDecoder(
            model: model.limitedToLanguageModelWords(keptIn: SharedCache.dictionaryFolder),
            extraArguments: LiveTranscriber.Options(spotterPhrases: nil).languageModelSearch)
        return try clips.map { editDistance(words(try decoder.transcribe($0.samples)), words($0.clip.text)) }.reduce(
            0, +)
    }

    /// What calibration relies on: a transform estimated from some sentences of a voice in a noisy room makes the
    /// recognizer hear that voice's other sentences in that room with fewer word errors than the model as shipped
    /// (summed over two sample voices, each adapted on its own first four sentences; as shipped → adapted: awb
    /// 26 → 23 and kal16 26 → 20 word errors through the live path's capped search; with pocketsphinx's own wider
    /// search, over all four voices when written: rms 25 → 25, awb 27 → 23, kal16 24 → 18, slt 18 → 15).
    @Test func adaptingToAVoiceInNoiseHearsItsOtherSentencesInThatNoiseBetter() throws {
        var shipped = 0, after = 0, report: [String] = []
        for voice in ["awb", "kal16"] {
            let clips = try Self.clips(voice: voice).enumerated().map {
                (clip: $1, samples: try Self.noisy($1, seed: 40 + UInt64($0)))
            }
            let (training, measured) = (Array(clips.prefix(4)), Array(clips.dropFirst(4)))
            #expect(measured.count >= 2)
            let work = TemporaryDirectory("adapt")
            let transform = work.file("voice.mllr")
            try AcousticAdaptation.estimate(
                from: training.map {
                    .init(words: Self.words($0.clip.text).joined(separator: " "), samples: $0.samples)
                },
                writingTo: transform)
            var adapted = PocketSphinxModel.debianEnglish
            adapted.adaptation = transform
            let before = try Self.wordErrors(measured, model: .debianEnglish),
                now = try Self.wordErrors(measured, model: adapted)
            report.append("\(voice) \(before) → \(now)")
            shipped += before
            after += now
        }
        let summary = "word errors on held-out noisy sentences, as shipped → adapted: \(report.joined(separator: ", "))"
        print(summary)
        #expect(after < shipped, "\(summary)")
    }

    @Test func aMissingProgramIsATypedErrorNamingThePackages() {
        var tools = AcousticAdaptation.Tools()
        tools.baumWelch = "/nonexistent/bw"
        #expect {
            try AcousticAdaptation.estimate(
                from: [.init(words: "send message", samples: [1, 2, 3])], writingTo: "/nonexistent/out", tools: tools)
        } throws: { error in
            guard let failure = error as? AcousticAdaptation.Failure else { return false }
            return failure.code == .toolMissing && failure.description.contains("/nonexistent/bw")
                && failure.description.contains("sphinxtrain")
        }
    }

    @Test func takesWithoutWordsOrAudioAreRefusedAndNothingIsWritten() {
        let work = TemporaryDirectory("adapt")
        let out = work.file("voice.mllr")
        #expect {
            try AcousticAdaptation.estimate(
                from: [.init(words: "", samples: [1, 2]), .init(words: "send message", samples: [])], writingTo: out)
        } throws: { error in
            (error as? AcousticAdaptation.Failure)?.code == .unusableInput
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func aDecoderWithAMissingAdaptationSaysToCalibrateAgain() {
        var model = PocketSphinxModel.debianEnglish
        model.adaptation = "/nonexistent/voice.mllr"
        #expect {
            _ = try PocketSphinxDecoder(model: model)
        } throws: { error in
            String(describing: error).contains("/nonexistent/voice.mllr")
                && String(describing: error).contains("calibrate")
        }
    }
}

import BoxVoiceAudio
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct LiveTranscriberTests {
    private func utterances(_ clip: String, spotter: Bool = true, languageModel: Bool = true) throws -> [LiveUtterance] {
        var options = LiveTranscriber.Options(spotterPhrases: spotter ? Checkout.root + "/Models/command-spotter.en.txt" : nil)
        options.useLanguageModel = languageModel
        let transcriber = try LiveTranscriber(options: options)
        let samples = try WAVCapturePCM.load(Checkout.sample(clip))
        var found: [LiveUtterance] = []
        for start in stride(from: 0, to: samples.count, by: 960) {
            for case .utterance(let utterance) in try transcriber.feed(Array(samples[start..<min(start + 960, samples.count)])) {
                found.append(utterance)
            }
        }
        for case .utterance(let utterance) in try transcriber.finish() { found.append(utterance) }
        return found
    }

    @Test func aKnownClipDecodesToTextWithItsKeyWords() throws {
        let text = try utterances("none-budget.wav", spotter: false).map(\.text).joined(separator: " ")
        let words = ["review", "budget", "numbers", "week"].filter { text.contains($0) }
        #expect(words.count >= 3, "heard: \(text)")
    }

    @Test func utteranceEndsLandInTheSilencesBetweenSentences() throws {
        // The first 40 s of the long clip: sentences separated by 0.5–1.4 s pauses.
        let samples = Array(try WAVCapturePCM.load(Checkout.sample("long-meeting-notes.wav")).prefix(40 * 48_000))
        let silences = Signal.silences(samples, sampleRate: 48_000, minimumSeconds: 0.3)
        let transcriber = try LiveTranscriber(options: LiveTranscriber.Options(spotterPhrases: nil))
        var ends: [Double] = []
        for start in stride(from: 0, to: samples.count, by: 960) {
            for case .utterance(let utterance) in try transcriber.feed(Array(samples[start..<min(start + 960, samples.count)])) {
                ends.append(utterance.end)
            }
        }
        #expect(ends.count >= 5)
        for end in ends {
            let near = silences.contains { end >= $0.lowerBound - 0.1 && end <= max($0.upperBound, $0.lowerBound + 0.5) }
            #expect(near, "utterance end at \(end) s is not within 0.5 s of a silence: \(silences)")
        }
    }

    @Test func theSpotterCatchesCommandsTheLanguageModelMisses() throws {
        for clip in ["sendclose-over-and-out.wav", "checkpoint-rms-draft.wav", "sendclose-flight.wav"] {
            let languageOnly = try utterances(clip, spotter: false).map(\.recognized).joined(separator: " ")
            let combined = try utterances(clip)
            let spotted = combined.flatMap(\.spotted)
            #expect(!spotted.isEmpty, "\(clip): nothing spotted")
            for phrase in spotted { #expect(!languageOnly.contains(phrase), "\(clip): the language model already had '\(phrase)'") }
            let text = combined.map(\.text).joined(separator: " ")
            let accepted = combined.flatMap(\.spots).filter(\.accepted)
            #expect(!accepted.isEmpty, "\(clip): no spotted command was taken")
            for spot in accepted { #expect(text.contains(spot.phrase)) }
        }
    }

    /// "send now" fires early inside "send and close": a hit that does not end its utterance is not a command, so the
    /// short phrase never pre-empts the longer command still being said.
    @Test(arguments: ["sendclose-flight.wav", "sendclose-awb-report.wav"])
    func aHitInsideRunningSpeechIsNotTakenAndTheLongerCommandWins(_ clip: String) throws {
        let combined = try utterances(clip)
        let spots = combined.flatMap(\.spots)
        let early = try #require(spots.first { $0.phrase == "send now" }, "\(clip): the early hit this test is about did not happen")
        #expect(!early.accepted)
        #expect(try #require(combined.last).end - early.end > LiveTranscriber.Options.defaultSpotTailSeconds)
        let detector = try KeywordDetector(contentsOf: Checkout.keywordVocabulary)
        #expect(detector.detect(combined.map(\.text).joined(separator: " "))?.action == .sendClose)
        #expect(!combined.map(\.text).joined(separator: " ").contains("send now"))
    }

    @Test(arguments: ["none-weather.wav", "none-budget.wav", "none-table.wav", "none-garden.wav"])
    func theSpotterStaysSilentOnKeywordFreeSpeech(_ clip: String) throws {
        #expect(try utterances(clip, languageModel: false).isEmpty)
    }
}

@Suite struct SpotterVocabularyTests {
    /// The spotter only ever adds phrases the box's detector already knows, each meaning one action.
    @Test func everySpotterPhraseIsAVocabularyPhrase() throws {
        let lines = try String(contentsOfFile: Checkout.root + "/Models/command-spotter.en.txt", encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        #expect(lines.count >= 5)
        let detector = try KeywordDetector(contentsOf: Checkout.keywordVocabulary)
        for line in lines {
            let parts = line.split(separator: "/")
            #expect(parts.count == 2, "\(line): expected 'phrase /threshold/'")
            let phrase = parts[0].trimmingCharacters(in: .whitespaces)
            #expect(Double(parts[1]) != nil, "\(line): threshold is not a number")
            let found = detector.detect(phrase)
            #expect(found?.matchedPhrase == phrase, "\(phrase) is not a whole vocabulary phrase")
        }
    }
}

import BoxVoiceAudio
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct LiveTranscriberTests {
    private func utterances(_ clip: String, spotter: Bool = true, languageModel: Bool = true) throws -> [LiveUtterance]
    {
        var options = LiveTranscriber.Options(
            spotterPhrases: spotter ? Checkout.root + "/Models/command-spotter.en.txt" : nil)
        options.useLanguageModel = languageModel
        let transcriber = try LiveTranscriber(options: options)
        let samples = try WAVCapturePCM.load(Checkout.sample(clip))
        return try transcriber.hearWhole(samples, chunk: 960)
    }

    /// The front end only in a noisy room: a clean clip is heard exactly as without any front end; the same clip in
    /// white noise is cleaned.
    @Test func theFrontEndCleansOnlyInANoisyRoom() throws {
        func hear(_ samples: [Float], frontEnd: Bool) throws -> (texts: [String], cleaned: Bool) {
            var options = LiveTranscriber.Options.sharingTheCut(
                spotterPhrases: Checkout.root + "/Models/command-spotter.en.txt")
            if frontEnd {
                options.frontEnd = SpeechFrontEnd.Settings()
                options.frontEndOnlyInNoise = true
            }
            let transcriber = try LiveTranscriber(options: options)
            var texts: [String] = []
            for start in stride(from: 0, to: samples.count, by: 960) {
                for case .utterance(let utterance) in try transcriber.feed(
                    Array(samples[start..<min(start + 960, samples.count)]))
                {
                    texts.append(utterance.text)
                }
            }
            let cleaned = transcriber.cleansNow
            for case .utterance(let utterance) in try transcriber.finish() { texts.append(utterance.text) }
            return (texts, cleaned)
        }
        let clean = try WAVCapturePCM.load(Checkout.sample("send-buy-milk.wav"))
        let quiet = try hear(clean, frontEnd: true)
        #expect(quiet.cleaned == false)
        #expect(quiet.texts == (try hear(clean, frontEnd: false)).texts, "a quiet room is heard as it is")
        // White noise 20 dB under the clip's speech (fixed seed).
        let speechLevel = (clean.map { Double($0 * $0) }.reduce(0, +) / Double(clean.count)).squareRoot()
        var seed: UInt64 = 42
        let noisy = clean.map { sample -> Float in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let uniform = Double(seed >> 11) / Double(1 << 53) * 2 - 1
            return sample + Float(uniform * speechLevel * 0.1 * 3.0.squareRoot())
        }
        #expect(try hear(noisy, frontEnd: true).cleaned, "a noisy room is cleaned")
    }

    /// `clip` with four other voices' keyword-free clips overlapped 20 dB under its speech, going on 4 s after it.
    private func inBabble(_ clip: String) throws -> [Float] {
        let speech = try WAVCapturePCM.load(Checkout.sample(clip))
        let voices = try ["none-awb-meeting.wav", "none-kal-car.wav", "none-rms-coffee.wav", "none-slt-books.wav"].map {
            try WAVCapturePCM.load(Checkout.sample($0))
        }
        let length = speech.count + 4 * 48_000
        var babble = [Float](repeating: 0, count: length)
        for (index, voice) in voices.enumerated() {
            for sample in 0..<length { babble[sample] += voice[(sample + index * 37_117) % voice.count] }
        }
        func rms(_ samples: [Float]) -> Double {
            (samples.map { Double($0 * $0) }.reduce(0, +) / Double(samples.count)).squareRoot()
        }
        let gain = Float(rms(speech) / rms(babble) / 10)
        return (0..<length).map { (($0 < speech.count) ? speech[$0] : 0) + babble[$0] * gain }
    }

    private func hear(_ audio: [Float], endingAtPause pause: Double?) throws -> [LiveUtterance] {
        var options = LiveTranscriber.Options.sharingTheCut(
            spotterPhrases: Checkout.root + "/Models/command-spotter.en.txt")
        options.commandPauseSeconds = pause
        let transcriber = try LiveTranscriber(options: options)
        var heard: [LiveUtterance] = []
        for start in stride(from: 0, to: audio.count, by: 4_800) {
            for case .utterance(let utterance) in try transcriber.feed(
                Array(audio[start..<min(start + 4_800, audio.count)]))
            { heard.append(utterance) }
        }
        for case .utterance(let utterance) in try transcriber.finish() { heard.append(utterance) }
        return heard
    }

    /// In a café the recognizer's speech detector takes the other voices for speech and keeps the utterance holding
    /// a command open; the speaker's pause after the spotter's hit ends it, so the command is acted on.
    @Test func aCommandInBabbleEndsItsUtteranceAtTheSpeakersPause() throws {
        let mixed = try inBabble("send-buy-milk.wav")
        func hear(endingAtPause pause: Double?) throws -> [LiveUtterance] { try self.hear(mixed, endingAtPause: pause) }
        let detector = try KeywordDetector(contentsOf: Checkout.keywordVocabulary)
        let atPause = try hear(endingAtPause: 0.5)
        let found = atPause.first { detector.detect($0.text) != nil }
        let command = try #require(found, "heard: \(atPause.map(\.text))")
        #expect(detector.detect(command.text)?.action == .send)
        let accepted = command.spots.first(where: \.accepted)
        let hit = try #require(accepted, "the spotter's hit ended the utterance: \(command)")
        #expect(command.end - hit.end <= 0.5 + 0.5 + 0.1, "ended by the pause after the hit")
        let detectorAlone = try hear(endingAtPause: nil)
        let later = detectorAlone.first { detector.detect($0.text) != nil }
        #expect(
            later.map { $0.end > command.end } ?? true,
            "the speech detector alone ends it later, if at all: \(detectorAlone.map { ($0.text, $0.end) })")
    }

    /// The pause ends only an utterance holding a spotter hit: talk in the same café, with no hit, is heard exactly
    /// as the speech detector alone would end it.
    @Test func withNoHitThePauseEndsNothing() throws {
        let mixed = try inBabble("none-budget.wav")
        let atPause = try hear(mixed, endingAtPause: 0.5)
        #expect(atPause.allSatisfy { $0.spots.isEmpty }, "this test needs a mix the spotter is silent on: \(atPause)")
        #expect(!atPause.isEmpty)
        #expect(atPause == (try hear(mixed, endingAtPause: nil)))
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
        let transcriber = try LiveTranscriber(options: LiveTranscriber.Options.sharingTheCut(spotterPhrases: nil))
        var ends: [Double] = []
        for start in stride(from: 0, to: samples.count, by: 960) {
            for case .utterance(let utterance) in try transcriber.feed(
                Array(samples[start..<min(start + 960, samples.count)]))
            {
                ends.append(utterance.end)
            }
        }
        #expect(ends.count >= 5)
        for end in ends {
            let near = silences.contains {
                end >= $0.lowerBound - 0.1 && end <= max($0.upperBound, $0.lowerBound + 0.5)
            }
            #expect(near, "utterance end at \(end) s is not within 0.5 s of a silence: \(silences)")
        }
    }

    @Test func theSpotterCatchesCommandsTheLanguageModelMisses() throws {
        for clip in ["sendclose-over-and-out.wav", "checkpoint-rms-draft.wav", "sendclose-flight.wav"] {
            let languageOnly = try utterances(clip, spotter: false).map(\.recognized).joined(separator: " ")
            let combined = try utterances(clip)
            let spotted = combined.flatMap(\.spotted)
            #expect(!spotted.isEmpty, "\(clip): nothing spotted")
            for phrase in spotted {
                #expect(!languageOnly.contains(phrase), "\(clip): the language model already had '\(phrase)'")
            }
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
        let early = try #require(
            spots.first { $0.phrase == "send now" }, "\(clip): the early hit this test is about did not happen")
        #expect(!early.accepted)
        #expect(try #require(combined.last).end - early.end > SpotTails.measured.command)
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
        let listed = try SpotterCalibration(phrasesFile: Checkout.root + "/Models/command-spotter.en.txt").phrases
        #expect(listed.count >= 5)
        let detector = try KeywordDetector(contentsOf: Checkout.keywordVocabulary)
        for entry in listed {
            #expect(Double(entry.threshold) != nil, "\(entry.phrase): threshold is not a number")
            if let narrowband = entry.narrowbandThreshold {
                #expect(
                    Double(narrowband).map { $0 <= Double(entry.threshold)! } == true,
                    "\(entry.phrase): the narrowband threshold is a number no stricter")
            }
            let found = detector.detect(entry.phrase)
            #expect(found?.matchedPhrase == entry.phrase, "\(entry.phrase) is not a whole vocabulary phrase")
        }
    }
}

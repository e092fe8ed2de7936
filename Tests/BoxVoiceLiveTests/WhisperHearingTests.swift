import BoxVoiceAudio
import BoxVoiceKeywords
@testable import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Testing

/// The utterance-end road: Whisper, Silero VAD and DeepFilterNet3 as `make setup` builds them.
@Suite struct WhisperHearingTests {
    private static let detector: KeywordDetector? = try? KeywordDetector(contentsOf: Checkout.root + "/Models/speech-keywords.en.txt")

    private static func to16k(_ samples: [Float]) throws -> [Float] {
        let resampler = try Resampler(from: 48_000, to: 16_000)
        return try resampler.process(samples) + resampler.flush()
    }

    private func options(deadline: Double = 30) throws -> LiveTranscriber.Options {
        var options = LiveTranscriber.Options(spotterPhrases: Checkout.root + "/Models/command-spotter.en.txt")
        var whisper = LiveTranscriber.WhisperHearing(models: HearingModels(folder: HearingParts.folder),
                                                     prompt: try String(contentsOfFile: HearingParts.prompt, encoding: .utf8))
        whisper.deadline = deadline
        options.whisper = whisper
        return options
    }

    private func hear(_ samples: [Float], with transcriber: LiveTranscriber) throws -> [LiveUtterance] {
        var found: [LiveUtterance] = []
        for start in stride(from: 0, to: samples.count, by: 4_800) {
            for case .utterance(let utterance) in try transcriber.feed(Array(samples[start..<min(start + 4_800, samples.count)])) {
                found.append(utterance)
            }
        }
        for case .utterance(let utterance) in try transcriber.finish() { found.append(utterance) }
        return found
    }

    /// Whisper's text of a clip carries the clip's command as the box's detector reads it, and its words.
    @Test(arguments: ["send-buy-milk.wav", "sendclose-over-and-out.wav", "cancel-forget-it.wav"])
    func whisperHearsTheClipsWordsAndCommand(_ file: String) throws {
        let clip = try #require(try HearingParts.clips().first { $0.file == file })
        let model = try WhisperModel(path: HearingModels(folder: HearingParts.folder).whisper)
        let audio = try Self.to16k(try WAVCapturePCM.load(Checkout.sample(file)))
        let transcript = try model.transcribe(audio, prompt: try String(contentsOfFile: HearingParts.prompt, encoding: .utf8))
        #expect(Self.detector?.detect(transcript.text)?.action.rawValue == clip.expectedAction)
        let said = Set(clip.text.lowercased().split { !$0.isLetter }.map(String.init))
        let heard = Set(transcript.text.lowercased().split { !$0.isLetter }.map(String.init))
        #expect(Double(said.intersection(heard).count) >= 0.8 * Double(said.count), "heard: \(transcript.text)")
    }

    /// A dictated clip through the live path: one utterance, in Whisper's words, ending where the speech ends.
    @Test func theLivePathGivesWhispersTextAtTheUtterancesEnd() throws {
        let samples = try WAVCapturePCM.load(Checkout.sample("send-buy-milk.wav"))
        let utterances = try hear(samples, with: try LiveTranscriber(options: try options()))
        let heard = try #require(utterances.last)
        #expect(heard.heardBy == .whisper)
        #expect(Self.detector?.detect(utterances.map(\.text).joined(separator: " "))?.action == .send)
        let speechEnd = Double(samples.count) / 48_000
        #expect(heard.end <= speechEnd && heard.end > speechEnd - 1.5)
    }

    /// Two commands said in one breath are one utterance to the VAD: Whisper's text is split after each command, and
    /// the first piece ends between the first command's last word and the next sentence.
    @Test func anUtteranceHoldingTwoCommandsEndsTwice() throws {
        let first = WAV.speechOnly(try WAVCapturePCM.load(Checkout.sample("send-buy-milk.wav")))
        let second = WAV.speechOnly(try WAVCapturePCM.load(Checkout.sample("checkpoint-report.wav")))
        let gap = [Float](repeating: 0, count: 2_400)  // 0.05 s: less than the VAD's end of an utterance
        let lead = [Float](repeating: 0, count: 24_000)
        var transcriber = try options()
        transcriber.commandEnds = { Self.detector?.commandEnds(in: $0) ?? [] }
        let utterances = try hear(lead + first + gap + second + lead, with: try LiveTranscriber(options: transcriber))
        #expect(utterances.map { Self.detector?.detect($0.text)?.action } == [.send, .sendCheckpoint], "\(utterances.map { "\($0.end): \($0.text)" })")
        let firstEnds = Double(lead.count + first.count) / 48_000
        let secondStarts = firstEnds + Double(gap.count) / 48_000
        let boundary = try #require(utterances.first?.end)
        #expect(boundary > firstEnds - 0.25 && boundary < secondStarts + 0.25, "first piece ends at \(boundary), speech at \(firstEnds)")
        #expect(utterances.last?.end ?? 0 > secondStarts + Double(second.count) / 48_000 - 0.1)
    }

    /// Whisper given no time at all: every utterance is pocketsphinx's, and says why.
    @Test func anUtteranceWhisperMissesIsPocketsphinxsAndSaysWhy() throws {
        let samples = try WAVCapturePCM.load(Checkout.sample("send-buy-milk.wav"))
        let utterances = try hear(samples, with: try LiveTranscriber(options: try options(deadline: 0)))
        #expect(!utterances.isEmpty)
        #expect(utterances.allSatisfy { $0.heardBy == .pocketsphinxInstead(.abandoned) })
    }

    /// A missing model stops the live path with a typed error naming the fix, before anything is heard.
    @Test func aMissingModelIsATypedErrorSayingHowToGetIt() throws {
        var options = try options()
        options.whisper?.models.whisper = "/nonexistent/ggml.bin"
        #expect { try LiveTranscriber(options: options) } throws: { error in
            (error as? HearingError)?.code == .modelUnusable && "\(error)".contains("make setup")
        }
    }

    /// Whisper's notes about sounds are not words, and a sentence it loops on is kept once.
    @Test func bracketedNotesAndLoopedSentencesAreNotWords() {
        #expect(UtteranceEnds.plain("[BLANK_AUDIO]") == "")
        #expect(UtteranceEnds.plain(" (wind blowing) Buy bread.") == "Buy bread.")
        #expect(UtteranceEnds.plain("Call Anna. Call Anna. call anna! Then leave.") == "Call Anna. Then leave.")
        #expect(UtteranceEnds.plain("Go. Stay. Go.") == "Go. Stay. Go.")
        // A loop of two sentences, cut off by the token ceiling mid-sentence.
        #expect(UtteranceEnds.plain("Look it up first. Stop listening. Look it up first. Stop listening. Look it up") ==
                "Look it up first. Stop listening.")
        #expect(UtteranceEnds.plain("Yes. No. Maybe") == "Yes. No. Maybe")
        #expect(UtteranceEnds.plain("Buy milk. Send message. The report is done. Send checkpoint. Send message. The report is done. Send checkpoint.")
                == "Buy milk. Send message. The report is done. Send checkpoint.")
    }

    /// The encoder hears a second more than the utterance, in steps of 64 frames, never past Whisper's 30 s.
    @Test func theEncodersContextFollowsTheUtterancesLength() {
        #expect(WhisperModel.audioContext(seconds: 0.2) == 128)
        #expect(WhisperModel.audioContext(seconds: 4) == 256)
        #expect(WhisperModel.audioContext(seconds: 4.2) == 320)
        #expect(WhisperModel.audioContext(seconds: 28) == 1_472)
        #expect(WhisperModel.audioContext(seconds: 40) == 1_500)
    }

    /// The noise filter keeps a clip's length hop for hop and takes noise away: white noise alone comes out quieter.
    @Test func theNoiseFilterTakesNoiseAway() throws {
        let filter = try NoiseFilter(path: HearingModels(folder: HearingParts.folder).noiseFilter)
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<48_000).map { _ in Float.random(in: -0.05...0.05, using: &generator) }
        let cleaned = filter.process(noise) + filter.flush()
        #expect(cleaned.count == noise.count)
        func rms(_ x: ArraySlice<Float>) -> Float { (x.reduce(0) { $0 + $1 * $1 } / Float(x.count)).squareRoot() }
        #expect(rms(cleaned[24_000...]) < rms(noise[24_000...]) / 4)
    }

    /// The VAD hears speech in a clip and none in digital silence.
    @Test func theVoiceActivityModelHearsSpeechNotSilence() throws {
        let activity = try VoiceActivity(path: HearingModels(folder: HearingParts.folder).voiceActivity)
        let speech = try Self.to16k(try WAVCapturePCM.load(Checkout.sample("none-weather.wav")))
        #expect(activity.probabilities(speech).contains { $0 > 0.9 })
        let fresh = try VoiceActivity(path: HearingModels(folder: HearingParts.folder).voiceActivity)
        let silence = fresh.probabilities([Float](repeating: 0, count: 16_000))
        #expect(silence.count == 16_000 / VoiceActivity.window)
        #expect(silence.allSatisfy { $0 < 0.2 })
    }
}

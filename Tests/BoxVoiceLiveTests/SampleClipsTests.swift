import BoxVoiceAudio
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Testing

/// The live recognizer's acceptance: every clip in Samples/ (but the 150 s one, which the bench covers) heard the way
/// `boxvoice listen` hears it — Whisper at utterance ends, pocketsphinx and the spotter beside it, the front end only
/// in a noisy room — each giving its expected action as the dictation reads the utterances, or none for
/// keyword-free speech and for command words inside a sentence. In-process: `listen` itself is run end to end on a
/// few clips by the CLI tests.
@Suite struct SampleClipsTests {
    static let detector = KeywordDetector(vocabulary: try! Vocabulary.load(path: Checkout.keywordVocabulary))

    static let clips: [HearingParts.Clip] = ((try? HearingParts.clips()) ?? []).filter { !$0.file.hasPrefix("long-") }

    @Test func theSampleListIsThere() {
        #expect(Self.clips.count >= 29)
    }

    @Test(arguments: clips.map(\.file))
    func everyClipGivesItsActionAndKeywordFreeClipsNone(_ file: String) throws {
        let clip = try #require(Self.clips.first { $0.file == file })
        var options = LiveTranscriber.Options.hearing(
            Self.detector, spotterPhrases: Checkout.root + "/Models/command-spotter.en.txt",
            dictionaryCache: SharedCache.dictionaryFolder,
            whisper: LiveTranscriber.WhisperHearing(
                models: HearingModels(folder: HearingParts.folder),
                prompt: try String(contentsOfFile: HearingParts.prompt, encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)))
        // Generous: the suite runs many decodes at once on two cores, and a late Whisper is not what is tested here.
        options.whisper?.deadline = 30
        // The clips are decoded side by side already: a second Whisper thread per decode would only wait for the
        // first (spinning, as ggml's threads do) and cost the suite CPU, not time.
        options.whisper?.threads = 1
        let transcriber = try LiveTranscriber(options: options)
        let samples = try WAVCapturePCM.load(Checkout.sample(file))
        let utterances = try transcriber.hearWhole(samples)
        // As the dictation takes them: the words an utterance ends on at a pause (command words mid-sentence are
        // text: the middle- clips).
        let actions = utterances.compactMap { $0.endingCommand(Self.detector)?.action.rawValue }
        let heard = utterances.map(\.text).joined(separator: " | ")
        if let expected = clip.expectedAction {
            #expect(actions.last == expected, "\(file): \(heard)")
        } else {
            #expect(actions.isEmpty, "\(file): \(heard)")
        }
    }
}

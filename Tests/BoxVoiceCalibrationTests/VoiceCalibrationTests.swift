import BoxVoiceCalibration
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Testing

/// Calibration's choices judged on the whole live path (`CalibrationTrial`), and what it does without sphinxtrain.
@Suite struct VoiceCalibrationTests {
    static func detector() throws -> KeywordDetector {
        try KeywordDetector(contentsOf: Checkout.root + "/Models/speech-keywords.en.txt")
    }
    static let phrases = Checkout.root + "/Models/command-spotter.en.txt"

    static func clip(_ name: String) throws -> [Int16] {
        try SpeechConversion.recognizerSamples(fromFile: Checkout.sample(name))
    }

    @Test func aTakeActingOnItsOwnCommandIsHeardAndOneActingOnAnotherOrACommandInTalkIsAMistake() throws {
        let trial = CalibrationTrial(detector: try Self.detector(), dictionaryCache: SharedCache.dictionaryFolder)
        let cancel = try Self.clip("cancel-forget-it.wav")  // "… Cancel message."
        // The same recording as a take of "cancel message" (its own command) and of "send message" (another one).
        let takes: CalibrationTakes = ["cancel message": [cancel], "send message": [cancel]]
        let quiet = try trial.score(
            takes: takes, talk: [try Self.clip("none-weather.wav")], phrases: Self.phrases, frontEnd: .off,
            adaptation: nil)
        #expect(quiet == CalibrationTrial.Score(heard: 1, mistaken: 1, takes: 2))
        // A command said inside the talk is a mistake too: the talk is meant to hold none.
        let noisyTalk = try trial.score(
            takes: ["cancel message": [cancel]], talk: [try Self.clip("send-buy-milk.wav")], phrases: Self.phrases,
            frontEnd: .off, adaptation: nil)
        #expect(noisyTalk == CalibrationTrial.Score(heard: 1, mistaken: 1, takes: 1))
    }

    @Test func fewerMistakesBeatMoreTakesHeard() {
        let careful = CalibrationTrial.Score(heard: 10, mistaken: 0, takes: 27)
        let eager = CalibrationTrial.Score(heard: 20, mistaken: 1, takes: 27)
        #expect(careful.isBetter(than: eager))
        #expect(!eager.isBetter(than: careful))
        #expect(CalibrationTrial.Score(heard: 11, mistaken: 0, takes: 27).isBetter(than: careful))
        #expect(!careful.isBetter(than: careful), "a tie prefers neither")
    }

    @Test func theRoomIsHeardCleanedOnlyWhenCleanedMakesFewerMistakesOrHearsTwoTakesMore() {
        func score(_ heard: Int, mistaken: Int = 0) -> CalibrationTrial.Score {
            CalibrationTrial.Score(heard: heard, mistaken: mistaken, takes: 27)
        }
        #expect(VoiceCalibration.cleaningMargin == 2)
        #expect(
            !VoiceCalibration.cleans(asCaptured: score(25), cleaned: score(25)), "a tie keeps the audio as captured")
        #expect(
            !VoiceCalibration.cleans(asCaptured: score(24), cleaned: score(25)),
            "one take more is within the trial's spread")
        #expect(VoiceCalibration.cleans(asCaptured: score(24), cleaned: score(26)))
        #expect(
            !VoiceCalibration.cleans(asCaptured: score(25), cleaned: score(27, mistaken: 1)),
            "more heard never buys a mistake")
        #expect(
            VoiceCalibration.cleans(asCaptured: score(27, mistaken: 1), cleaned: score(20)),
            "fewer mistakes win outright")
        #expect(!VoiceCalibration.cleans(asCaptured: score(20), cleaned: score(27, mistaken: 1)))
    }

    /// Without sphinxtrain the thresholds are still tuned, for the model as shipped, and an adaptation left from an
    /// earlier calibration is removed rather than kept beside thresholds not tuned for it.
    @Test func withoutSphinxtrainTheThresholdsAreTunedForTheShippedModelAndAnOldAdaptationGoes() throws {
        let work = TemporaryDirectory("voice-calibration")
        let old = work.file("voice.mllr")
        try "stale".write(toFile: old, atomically: true, encoding: .utf8)
        var calibration = VoiceCalibration(
            defaults: try SpotterCalibration(phrasesFile: Self.phrases),
            trial: CalibrationTrial(detector: try Self.detector(), dictionaryCache: SharedCache.dictionaryFolder))
        calibration.adaptationTools.baumWelch = "/nonexistent/bw"
        let noisy = try SpeechConversion.recognizerSamples(
            from: Noise.clip("cancel-forget-it.wav", snr: 40, seed: 3), rate: 48_000)
        var steps: [VoiceCalibration.Step] = []
        let result = try calibration.run(
            takes: ["cancel message": [noisy]], talk: [try Self.clip("none-weather.wav")], adaptationPath: old
        ) { steps.append($0) }
        // Each step is told as it begins: a calibration from files once ran minutes under one line.
        #expect(steps.first == .adapting)
        #expect(steps.contains(.tuning(.init(phrase: "cancel message", number: 1, of: 1, cleaned: false))))
        #expect(steps.map(\.description).allSatisfy { !$0.isEmpty && $0.hasSuffix("…") })
        #expect(result.adaptation == nil)
        #expect(result.adaptationFailure?.code == .toolMissing)
        #expect(!FileManager.default.fileExists(atPath: old))
        #expect(result.calibrated.outcomes.map(\.phrase) == ["cancel message"])
    }
}

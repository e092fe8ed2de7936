import BoxVoiceKeywords
import BoxVoiceLive
import Foundation

/// `boxvoice calibrate`'s work on the user's recordings: adapt the acoustic model to their voice and microphone,
/// tune the spotter's thresholds for the adapted model, and choose whether the live recognizer hears their room
/// through the front end by hearing the recordings through the whole live path both ways.
public struct VoiceCalibration: Sendable {
    public struct Result: Sendable {
        public var calibrated: SpotterCalibration.Calibrated
        /// Where the adaptation was written; nil when it could not be made (`adaptationFailure` says why).
        public var adaptation: String?
        public var adaptationFailure: AcousticAdaptation.Failure?
        /// The recordings through the live path with the thresholds tuned as captured (front end off) and as cleaned
        /// (on); nil in a quiet room, where the front end is not tried.
        public var heardAsCaptured: CalibrationTrial.Score?
        public var heardCleaned: CalibrationTrial.Score?
    }

    /// Where a calibration is, for a user watching it run for minutes.
    public enum Step: Sendable, Equatable {
        /// Adapting the acoustic model to the takes (sphinxtrain).
        case adapting
        case tuning(SpotterCalibration.TuningStep)
        /// Hearing every recording through the whole live path, as captured or cleaned, to choose between them.
        case hearing(cleaned: Bool)
    }

    public let defaults: SpotterCalibration
    public let trial: CalibrationTrial
    public var adaptationTools = AcousticAdaptation.Tools()

    public init(defaults: SpotterCalibration, trial: CalibrationTrial) {
        self.defaults = defaults
        self.trial = trial
    }

    /// Whether the live recognizer should hear the room cleaned, given how the recordings were heard both ways: when
    /// cleaned makes fewer mistakes, or as many and hears at least `cleaningMargin` more takes. Cleaning also changes
    /// the speech, so it earns its place only where it clearly hears better: in the babble room, cleaned heard one take
    /// more (25 against 24 of 27) and then the held-out sentences 12 of 16 against 16 as captured; on a set of the
    /// same takes differing only in sox's dither, a tie, and 12–13 against 14 (BENCHMARKS.md at 7c182fc). One take of
    /// 27 is within what the trial moves by between such sets.
    public static func cleans(asCaptured: CalibrationTrial.Score, cleaned: CalibrationTrial.Score) -> Bool {
        cleaned.isBetter(than: asCaptured, byAtLeast: cleaningMargin)
    }

    /// How many more takes cleaned must hear, with no more mistakes, for the room to be heard cleaned.
    public static let cleaningMargin = 2

    /// - Parameter adaptationPath: where the adaptation goes (replaced; removed if none could be made). It is made
    ///   beside it and moved into place only when the whole calibration has succeeded, so a dictation starting
    ///   meanwhile, or a calibration that fails, never pairs a new adaptation with thresholds not tuned for it.
    /// - Parameter progress: told as each step begins.
    public func run(
        takes: CalibrationTakes, talk: [[Int16]], adaptationPath: String, progress: @escaping (Step) -> Void = { _ in }
    ) throws -> Result {
        let pending = adaptationPath + ".new"
        defer { try? FileManager.default.removeItem(atPath: pending) }
        var adaptation: String?
        var failure: AcousticAdaptation.Failure?
        progress(.adapting)
        do {
            try AcousticAdaptation.estimate(
                from: takes.phrases.flatMap { entry in
                    entry.recordings.map { AcousticAdaptation.Take(words: entry.phrase, samples: $0) }
                },
                writingTo: pending, tools: adaptationTools)
            adaptation = pending
        } catch let error as AcousticAdaptation.Failure {
            failure = error
        }
        let folder = try PrivateTemporaryFolder.make("calibration-trial")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var asCaptured: CalibrationTrial.Score?, cleaned: CalibrationTrial.Score?
        let calibrated = try defaults.adapted(adaptation).calibrate(
            takes: takes, talk: talk, progress: { progress(.tuning($0)) }
        ) { rawList, cleanedList in
            func score(_ list: [SpotterCalibration.Phrase], _ frontEnd: FrontEndUse) throws -> CalibrationTrial.Score {
                progress(.hearing(cleaned: frontEnd == .on))
                let file = folder + "/phrases-\(frontEnd.rawValue).txt"
                try SpotterCalibration.render(list, header: "trial").write(
                    toFile: file, atomically: true, encoding: .utf8)
                return try trial.score(
                    takes: takes, talk: talk, phrases: file, frontEnd: frontEnd, adaptation: adaptation)
            }
            let raw = try score(rawList, .off), clean = try score(cleanedList, .on)
            asCaptured = raw
            cleaned = clean
            return Self.cleans(asCaptured: raw, cleaned: clean)
        }
        if adaptation != nil {
            guard rename(pending, adaptationPath) == 0 else {
                throw AcousticAdaptation.Failure(
                    code: .toolFailed,
                    detail:
                        "the adaptation could not be saved as \(adaptationPath): \(String(cString: strerror(errno)))")
            }
        } else {
            try? FileManager.default.removeItem(atPath: adaptationPath)
        }
        return Result(
            calibrated: calibrated, adaptation: adaptation.map { _ in adaptationPath }, adaptationFailure: failure,
            heardAsCaptured: asCaptured, heardCleaned: cleaned)
    }
}

extension VoiceCalibration.Step: CustomStringConvertible {
    /// The step in words for the user.
    public var description: String {
        switch self {
        case .adapting: "adapting the acoustic model to your voice and microphone …"
        case .tuning(let step):
            "tuning \"\(step.phrase)\" (\(step.number) of \(step.of)\(step.cleaned ? ", noise-suppressed" : "")) …"
        case .hearing(let cleaned):
            "hearing every recording through the live path\(cleaned ? " with noise suppression" : " as captured") …"
        }
    }
}

import Foundation

/// When the live recognizers hear the audio through the speexdsp front end (setting `front-end`).
public enum FrontEndUse: String, Sendable, CaseIterable {
    /// Only while the room is noisy (`RoomNoise`): the default.
    case auto
    case on
    case off
}

/// Whether the room is noisy enough for the front end to help, judged from the audio as it arrives. Noise suppression
/// is for noise: in a quiet or merely echoing room it costs words (BENCHMARKS.md at 7c182fc), in a noisy one it finds
/// commands the raw audio hides. The judgement is the signal-to-noise ratio of the last seconds — the level of their
/// loud 20 ms frames (90th percentile) over that of their quiet ones (10th: the room between words) — with a gap
/// between the level that switches cleaning on and the one that switches it off, so a steady room never flips back and
/// forth.
public struct RoomNoise: Sendable {
    /// Below this the front end cleans (the same line calibration draws:
    /// `SpotterCalibration.noiseSuppressionBelowSNR`).
    public static let cleanBelowSNR = SpotterCalibration.noiseSuppressionBelowSNR
    /// Above this it stops again.
    public static let rawAboveSNR = cleanBelowSNR + 6

    /// 20 ms frames judged: the last 10 s.
    static let windowFrames = 500
    /// Judged again every half second, once a second has been heard.
    static let judgeEvery = 25
    static let firstJudgement = 50

    private var levels: [Double] = []
    private var next = 0
    private var sinceJudged = 0
    private var heard = 0
    /// Whether the front end cleans what the recognizers hear now.
    public private(set) var cleans = false
    /// The last judgement's signal-to-noise ratio in dB (nil before a second has been heard).
    public private(set) var signalToNoise: Double?

    public init() {}

    /// Adds one 20 ms frame's RMS level (any scale; silence is 0).
    public mutating func add(frameLevel level: Double) {
        if levels.count < Self.windowFrames { levels.append(level) } else { levels[next] = level }
        next = (next + 1) % Self.windowFrames
        heard += 1
        sinceJudged += 1
        if heard >= Self.firstJudgement, sinceJudged >= Self.judgeEvery { judge() }
    }

    /// Judges now on what has been heard (the opening audio, before decoding starts), however little.
    public mutating func judge() {
        sinceJudged = 0
        guard let snr = Self.signalToNoise(levels: levels) else { return }
        signalToNoise = snr
        if cleans, snr > Self.rawAboveSNR { cleans = false } else if !cleans, snr < Self.cleanBelowSNR { cleans = true }
    }

    /// The level of the loud frames (90th percentile) over that of the quiet ones (10th), in dB, at most 120; nil for
    /// fewer than 10 frames. Also what calibration judges a user's recordings by.
    public static func signalToNoise(levels: [Double]) -> Double? {
        guard levels.count >= 10 else { return nil }
        let (quiet, loud) = roomAndSpeech(levels)
        return min(120, 20 * log10(max(loud, 1e-6) / max(quiet, 1e-6)))
    }

    /// The level of the room between words (10th percentile of non-empty `levels`) and of the speech (90th): one
    /// definition for judging the room here and for hearing the speaker pause (`SpeakerPause`).
    static func roomAndSpeech(_ levels: [Double]) -> (room: Double, speech: Double) {
        let sorted = levels.sorted()
        return (sorted[sorted.count / 10], sorted[sorted.count * 9 / 10])
    }

    /// RMS of a frame of 16-bit samples.
    public static func level(_ frame: ArraySlice<Int16>) -> Double {
        guard !frame.isEmpty else { return 0 }
        var sum = 0.0
        for sample in frame { sum += Double(sample) * Double(sample) }
        return (sum / Double(frame.count)).squareRoot()
    }
}

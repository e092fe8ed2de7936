import Foundation

/// Why a command an utterance ends with does not act by itself: the box is asked (the second opinion), and without
/// its yes the command's words are not taken as a command. Each case carries the figures that decided it, so the
/// user sees what was heard and how far it fell short, and a caller can switch on the case.
public enum CommandDoubt: Sendable, Equatable {
    /// The evidence the phrase was said (`CommandDecision.evidence`, a log-likelihood, 0 at best) is under the act
    /// line `threshold`.
    case unsure(score: Double, threshold: Double)
    /// The utterance sounds like another language: `language` is the likeliest one, `english` the share Whisper
    /// gives English (nil where not weighed).
    case foreign(language: String?, english: Double?)
    /// Whisper gave no words for the utterance (too late on a busy machine, or its decode failed) and the fallback
    /// recognizer's stand in for the text: another recognizer's words never decide a command alone.
    case lateDecode
    /// The command's words could not be weighed against the audio (a step of the decode failed or ran out of time).
    case unscored

    /// A stable code for `--json` and scripts.
    public var code: String {
        switch self {
        case .unsure: "unsure"
        case .foreign: "foreign"
        case .lateDecode: "late-decode"
        case .unscored: "unscored"
        }
    }

    /// The figure that decided it and the line it had to reach, where there is one.
    public var score: (value: Double, threshold: Double)? {
        switch self {
        case .unsure(let score, let threshold): (score, threshold)
        case .foreign, .lateDecode, .unscored: nil
        }
    }

    /// In words, for the status line and `listen`.
    public var explanation: String {
        func figures(_ score: Double, _ threshold: Double) -> String {
            "score \(Self.format(score)), needs \(Self.format(threshold))"
        }
        switch self {
        case .unsure(let score, let threshold):
            return "unsure it was said (\(figures(score, threshold)))"
        case .foreign(let language, let english):
            let share = english.map { ", English \(Self.format($0))" } ?? ""
            return "the speech sounds like another language (\(language ?? "not English")\(share))"
        case .lateDecode:
            return "Whisper gave no words for it (too late, or failed), and the stand-in recognizer's do not act alone"
        case .unscored:
            return "its words could not be weighed against the audio"
        }
    }

    private static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}

/// How a multilingual Whisper shares out the probability of an audio's language among the languages it knows: its
/// first decoder step after the start of the transcript, read as whisper.cpp reads it to detect a language.
///
/// Whisper hands English it finds hard to place to a few languages nobody here dictates in: the held-out command
/// clips' synthetic voices in noise were judged Latin or Welsh, the English a close second (BENCHMARKS.md at 7c182fc,
/// "Latin and Welsh"); people report the same of Welsh-accented English. `leavingOut` judges the audio among the other
/// languages.
public struct SpokenLanguages: Sendable, Equatable {
    /// Each language's share, by Whisper's code for it (`en`, `es`); they sum to 1 but for rounding.
    public private(set) var shares: [String: Float]

    /// `shares` as given, none negative; shares summing to more or less than 1 are scaled to 1 (all zero: none).
    public init(shares: [String: Float]) {
        let kept = shares.filter { $0.value > 0 }
        let total = kept.values.reduce(0, +)
        self.shares = total > 0 ? kept.mapValues { $0 / total } : [:]
    }

    /// The share of the language Whisper codes `code`; 0 for one it gave nothing or does not know.
    public func share(of code: String) -> Float { shares[code] ?? 0 }

    /// The language with the largest share; of equal shares, the code first in alphabetical order, so the answer
    /// does not depend on a dictionary's order. nil when no language has a share.
    public var likeliest: String? {
        shares.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
    }

    /// The same judgement among the languages not in `codes`, their shares scaled to sum to 1 again: how likely the
    /// audio is each of the others, given that it is none of those.
    public func leavingOut(_ codes: Set<String>) -> SpokenLanguages {
        SpokenLanguages(shares: shares.filter { !codes.contains($0.key) })
    }
}

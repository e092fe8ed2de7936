import BoxVoiceKeywords

/// The obvious, slow way to apply the contract's keyword rules: expand every pattern into word lists and,
/// action by action, compare each list at every start position. It shares only the tokenizer and the word
/// equality with `KeywordDetector`, so tests use it as an oracle and the benchmark as its baseline.
public struct NaiveKeywordDetector: Sendable {
    public struct Found: Sendable, Equatable {
        public let action: KeywordAction
        public let range: Range<String.Index>
    }

    private let sections: [(action: KeywordAction, phrases: [[String]])]

    public init(vocabulary: Vocabulary) {
        sections = vocabulary.sections.map {
            ($0.action, $0.patterns.flatMap { $0.expansions() }.filter { !$0.isEmpty })
        }
    }

    public func detect(_ transcript: String, atStart: Bool = false) -> Found? {
        let words = TranscriptTokens(transcript).words
        guard !words.isEmpty else { return nil }
        for section in sections {
            for start in 0..<(atStart ? 1 : words.count) {
                var best = 0
                for phrase in section.phrases where start + phrase.count <= words.count && phrase.count > best {
                    var matches = true
                    for (offset, word) in phrase.enumerated() {
                        let candidate = words[start + offset]
                        if candidate.isProtected || !WordForm.equal(candidate.normalized, word) {
                            matches = false
                            break
                        }
                    }
                    if matches { best = phrase.count }
                }
                if best > 0 {
                    return Found(
                        action: section.action,
                        range: words[start].range.lowerBound..<words[start + best - 1].range.upperBound)
                }
            }
        }
        return nil
    }
}

/// A seeded generator, so a failing random case can be reproduced.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Checkout {
    /// The committed English vocabulary.
    public static var keywordVocabulary: String { root + "/Models/speech-keywords.en.txt" }
    /// The box's golden keyword vectors.
    public static var keywordVectors: String { vectors + "/speech-keywords" }
}

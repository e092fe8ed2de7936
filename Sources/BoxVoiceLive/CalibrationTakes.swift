/// The user's calibration takes: each spotter phrase with its 16 kHz recordings, in one order (by phrase) that every
/// consumer hears them in. The order matters: a decoder hearing recordings one after another carries its feature
/// normalization from each to the next, and the adaptation's sums depend on it, so in whatever order a dictionary
/// iterates, a threshold on the edge of firing moved between runs of the same takes (BENCHMARKS.md at 7c182fc,
/// calibration).
public struct CalibrationTakes: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public struct Phrase: Sendable, Equatable {
        /// As written in the spotter's phrases file.
        public var phrase: String
        public var recordings: [[Int16]]
    }

    /// Sorted by phrase, each phrase once.
    public let phrases: [Phrase]

    public init(_ byPhrase: [String: [[Int16]]]) {
        phrases = byPhrase.map { Phrase(phrase: $0.key, recordings: $0.value) }.sorted { $0.phrase < $1.phrase }
    }

    public init(dictionaryLiteral elements: (String, [[Int16]])...) {
        self.init(Dictionary(elements, uniquingKeysWith: +))
    }

    public var isEmpty: Bool { phrases.isEmpty }
    /// How many recordings there are, over every phrase.
    public var count: Int { phrases.map(\.recordings.count).reduce(0, +) }

    /// The recordings of `phrase` (none when it has no takes).
    public func recordings(of phrase: String) -> [[Int16]] {
        phrases.first { $0.phrase == phrase }?.recordings ?? []
    }

    /// Every recording, phrase after phrase.
    public var all: [[Int16]] { phrases.flatMap(\.recordings) }

    /// The recordings of every other phrase, in order: where `phrase`'s threshold must stay silent.
    public func all(except phrase: String) -> [[Int16]] {
        phrases.filter { $0.phrase != phrase }.flatMap(\.recordings)
    }

    /// The same takes with each recording transformed (cleaned as the front end would).
    public func mapRecordings(_ transform: ([Int16]) throws -> [Int16]) rethrows -> CalibrationTakes {
        CalibrationTakes(
            phrases: try phrases.map { Phrase(phrase: $0.phrase, recordings: try $0.recordings.map(transform)) })
    }

    private init(phrases: [Phrase]) {
        self.phrases = phrases
    }
}

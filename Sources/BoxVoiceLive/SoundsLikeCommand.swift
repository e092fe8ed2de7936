import EditDistance
import Foundation

/// Finds a command phrase at the end of an utterance by how the language model's last words sound, for when noise
/// made it write near words ("sun message" where the send command was said): the phone-level edit distance between the
/// last words
/// and each phrase, through the recognizer's own pronunciation dictionary. Only the end of an utterance counts — people
/// pause after a command — so a phrase that merely sounds alike inside running speech is left as text.
public struct SoundsLikeCommand: Sendable {
    struct Phrase: Sendable {
        let text: String
        let words: Int
        let phones: [String]
    }

    let phrases: [Phrase]
    let pronunciations: Pronunciations
    /// The largest distance accepted, as a share of the phrase's phones.
    public let tolerance: Double

    /// Measured on the degraded command clips and real speech (BENCHMARKS.md at 7c182fc): more recall in noise and the
    /// telephone band, no false command added.
    public static let defaultTolerance = 0.25

    /// - Parameters:
    ///   - phrases: the command phrases (the spotter's).
    ///   - dictionary: a pocketsphinx dictionary (`word PH PH …`).
    public init(phrases: [String], dictionary path: String, tolerance: Double = SoundsLikeCommand.defaultTolerance)
        throws
    {
        let pronunciations = try Self.indexes.value(of: path) {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw PocketSphinxError(operation: "loading the dictionary", detail: "cannot read \(path)")
            }
            return Pronunciations(Array(data))
        }
        self.init(phrases: phrases, pronunciations: pronunciations, tolerance: tolerance)
    }

    /// Each dictionary is indexed once per process (`ModelFileMemo`).
    private static let indexes = ModelFileMemo<Pronunciations>(limit: 2)

    /// From a small table (tests).
    public init(
        phrases: [String], pronunciations table: [String: [String]],
        tolerance: Double = SoundsLikeCommand.defaultTolerance
    ) {
        let text = table.map { "\($0.key) \($0.value.joined(separator: " "))" }.joined(separator: "\n")
        self.init(phrases: phrases, pronunciations: Pronunciations(Array(text.utf8)), tolerance: tolerance)
    }

    init(phrases: [String], pronunciations: Pronunciations, tolerance: Double) {
        self.pronunciations = pronunciations
        self.tolerance = tolerance
        self.phrases = phrases.compactMap { phrase in
            let words = phrase.split(separator: " ").map(String.init)
            let phones = words.map { pronunciations.phones(of: $0) }
            guard phones.allSatisfy({ $0 != nil }) else { return nil }
            return Phrase(text: phrase, words: words.count, phones: phones.flatMap { $0! })
        }
    }

    /// Whether the dictionary has a sound for every word of `text`: where it has none, `tails` cannot judge it.
    func knows(_ text: String) -> Bool {
        Self.words(of: text).allSatisfy { pronunciations.phones(of: $0) != nil }
    }

    /// Words as the dictionary spells them: lower case, letters and apostrophes.
    private static func words(of text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !$0.isLetter && $0 != "'" }).map(String.init)
    }

    /// Phones whose energy lies mostly above 4 kHz — fricatives and affricates: a microphone that stops at the
    /// telephone band loses them or turns one into another (the send command heard as "and now").
    static let highBandPhones: Set<String> = ["S", "Z", "SH", "ZH", "F", "V", "TH", "DH", "CH", "JH", "HH"]

    /// The phrase the end of `text` sounds like, if any is within tolerance (the closest one).
    /// - Parameter narrowband: heard through a band-limited microphone (`InputBand`): losing, adding or mistaking a
    ///   high-band phone costs half, since the audio could not tell.
    public func match(_ text: String, narrowband: Bool = false) -> String? {
        scores(text, narrowband: narrowband).filter { $0.score <= tolerance }.min { $0.score < $1.score }?.phrase
    }

    /// How far the end of `text` sounds from each phrase: its phone-level edit distance over the phrase's phones, at
    /// the closest word count (the phrase's, one less or one more).
    public func scores(_ text: String, narrowband: Bool = false) -> [(phrase: String, score: Double)] {
        tails(of: text, narrowband: narrowband).map { ($0.phrase, $0.score) }
    }

    /// For each phrase, how many of the last words of `text` sound closest to it, and how far they sound
    /// (`scores`).
    public func tails(of text: String, narrowband: Bool = false) -> [(phrase: String, words: Int, score: Double)] {
        let words = Self.words(of: text)
        guard !words.isEmpty else { return [] }
        return phrases.compactMap { phrase in
            var best: (words: Int, score: Double)?
            for count in max(1, phrase.words - 1)...(phrase.words + 1) where count <= words.count {
                let tail = words.suffix(count).map { pronunciations.phones(of: $0) }
                guard tail.allSatisfy({ $0 != nil }) else { continue }
                let heard = tail.flatMap { $0! }
                let distance =
                    narrowband
                    ? editDistance(heard, phrase.phones) { Self.highBandPhones.contains($0) ? 0.5 : 1 }
                    : Double(editDistance(heard, phrase.phones))
                let score = distance / Double(phrase.phones.count)
                if score < best?.score ?? .infinity { best = (count, score) }
            }
            return best.map { (phrase.text, $0.words, $0.score) }
        }
    }
}

/// A pronunciation dictionary kept as its bytes with its lines sorted by word: a lookup is a binary search. Debian's
/// 134,723 entries are its 3.3 MB file and a 0.5 MB index, where a Swift dictionary of them would be several times
/// that.
struct Pronunciations: Sendable {
    private let bytes: [UInt8]
    /// Where each line starts, ordered by its word (alternates like `word(2)` are left out).
    private let lines: [Int32]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var starts: [Int32] = []
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == 0x0A {
            if index > start, !Self.isAlternate(bytes, from: start) { starts.append(Int32(start)) }
            start = index + 1
        }
        lines = starts.sorted { Self.compare(bytes, from: Int($0), with: bytes, from: Int($1)) < 0 }
    }

    /// The first pronunciation of `word`, as phones.
    func phones(of word: String) -> [String]? {
        let key = Array(word.utf8)
        var low = 0, high = lines.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let order = Self.compare(key, from: 0, with: bytes, from: Int(lines[middle]))
            if order == 0 { return phones(at: Int(lines[middle]) + key.count) }
            if order < 0 { high = middle - 1 } else { low = middle + 1 }
        }
        return nil
    }

    private func phones(at index: Int) -> [String] {
        var end = index
        while end < bytes.count, bytes[end] != 0x0A { end += 1 }
        return bytes[index..<end].split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func isAlternate(_ bytes: [UInt8], from start: Int) -> Bool {
        var index = start
        while index < bytes.count, bytes[index] != 0x20, bytes[index] != 0x0A {
            if bytes[index] == UInt8(ascii: "(") { return true }
            index += 1
        }
        return false
    }

    /// The word starting at `l` in `left` against the one at `r` in `right` (each ends at a space, a line end or the
    /// end
    /// of its bytes): negative when the left one sorts first.
    private static func compare(_ left: [UInt8], from l: Int, with right: [UInt8], from r: Int) -> Int {
        var index = 0
        while true {
            func at(_ bytes: [UInt8], _ position: Int) -> UInt8 {
                guard position < bytes.count else { return 0 }
                let raw = bytes[position]
                return raw == 0x20 || raw == 0x0A || raw == 0x09 ? 0 : raw
            }
            let a = at(left, l + index), b = at(right, r + index)
            if a != b { return Int(a) - Int(b) }
            if a == 0 { return 0 }
            index += 1
        }
    }
}

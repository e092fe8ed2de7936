import BoxVoiceKeywords

/// Whether words Whisper wrote in another language end by spelling an English command letter for letter, near
/// enough: English said with a heavy accent, which Whisper takes for Finnish or Latvian and, asked to write that
/// language, spells as it sounds ("kanseumessage", "abort mēs suge", "stoplisteni"). A translation is spelled as
/// its own language's words ("envoyer le message", "cancelar mensaje"), whose letters part from the English phrase in
/// its first word, the verb, though they can share its last ("message"). So the end of the text must come within
/// `tolerance` of the phrase's letters in all, and within `firstWord` of its first word's letters (BENCHMARKS.md,
/// "Spelled alike").
///
/// Letters only: case, diacritics, spaces and punctuation are dropped ("mēs sage" is "message"); letters outside
/// the Latin alphabet are dropped too, so Greek or Cyrillic words never spell an English phrase.
public struct SpelledAlike: Sendable, Equatable {
    /// The most letter edits the text's end may be from the phrase, as a share of the phrase's letters.
    public var tolerance: Double
    /// The most letter edits the phrase's first word may take, as a share of its letters.
    public var firstWord: Double

    public init(tolerance: Double, firstWord: Double) {
        self.tolerance = tolerance
        self.firstWord = firstWord
    }

    /// As chosen on development set k: its accented commands came out 0–0.30 of the phrase's letters away, the
    /// translations of the vocabulary into French, Spanish, Italian, Portuguese and German 0.27 and up, those under
    /// 0.31 all a first word away (0.75 and up); the real foreign streams' own-language decodes, 0.38 and up.
    public static let measured = SpelledAlike(tolerance: 0.3, firstWord: 0.5)

    /// Whether the last words of `text` spell `command` (its words as Whisper wrote them in English). Of runs of the
    /// last one to three more words than the phrase has, the closest in letters is judged.
    public func spells(_ command: String, atEndOf text: String) -> Bool {
        spelledRun(of: command, endingWords: Self.words(of: text).map(Self.letters)) != nil
    }

    /// How many of the last words (each given as its letters) spell `phrase` within the bounds, and how far, as a
    /// share of the phrase's letters: the run closest in letters among the last one to three more words than the
    /// phrase has; nil when that run is not near enough.
    func spelledRun(of phrase: String, endingWords words: [[Character]]) -> (words: Int, distance: Double)? {
        let target = Self.words(of: phrase).map(Self.letters).filter { !$0.isEmpty }
        let last = words.suffix(target.count + 3)
        let length = target.reduce(0) { $0 + $1.count }
        guard let first = target.first, length > 0 else { return nil }
        var closest: (count: Int, edits: Int, firstWordEdits: Int)?
        for count in stride(from: 1, through: last.count, by: 1) {
            let heard = Array(last.suffix(count).joined())
            guard !heard.isEmpty else { continue }
            let costs = Self.editsByWord(heard, against: target)
            let edits = costs.reduce(0, +)
            if edits < closest?.edits ?? .max { closest = (count, edits, costs[0]) }
        }
        guard let closest, Double(closest.edits) <= tolerance * Double(length),
            Double(closest.firstWordEdits) <= firstWord * Double(first.count)
        else { return nil }
        return (closest.count, Double(closest.edits) / Double(length))
    }

    /// Words as split on anything but letters, digits and apostrophes.
    static func words(of text: String) -> [Substring] {
        text.split { !$0.isLetter && !$0.isNumber && $0 != "'" }
    }

    /// A word's Latin letters, lower-cased and without diacritics: the contract's normal form without its digits.
    static func letters(_ word: Substring) -> [Character] {
        Array(WordForm.normalize(word).filter(\.isLetter))
    }

    /// The fewest letter edits turning `heard` into the phrase, shared out among the phrase's words along one
    /// cheapest alignment: a phrase letter lost or mistaken costs its word, a letter heard beyond the phrase the word
    /// of the next phrase letter (the last word's, at the end). The sum is the edit distance.
    static func editsByWord(_ heard: [Character], against phrase: [[Character]]) -> [Int] {
        let target = phrase.flatMap { $0 }
        let wordOf = phrase.enumerated().flatMap { index, word in Array(repeating: index, count: word.count) }
        let rows = heard.count + 1, columns = target.count + 1
        var table = [Int](repeating: 0, count: rows * columns)
        for i in 0..<rows { table[i * columns] = i }
        for j in 0..<columns { table[j] = j }
        for i in 1..<max(rows, 1) {
            for j in 1..<max(columns, 1) {
                let mistaken = heard[i - 1] == target[j - 1] ? 0 : 1
                table[i * columns + j] = min(
                    table[(i - 1) * columns + j] + 1, table[i * columns + j - 1] + 1,
                    table[(i - 1) * columns + j - 1] + mistaken)
            }
        }
        var costs = [Int](repeating: 0, count: phrase.count)
        var i = heard.count, j = target.count
        while i > 0 || j > 0 {
            let here = table[i * columns + j]
            if i > 0, j > 0, here == table[(i - 1) * columns + j - 1] + (heard[i - 1] == target[j - 1] ? 0 : 1) {
                if heard[i - 1] != target[j - 1] { costs[wordOf[j - 1]] += 1 }
                i -= 1
                j -= 1
            } else if j > 0, here == table[i * columns + j - 1] + 1 {
                costs[wordOf[j - 1]] += 1
                j -= 1
            } else {
                costs[wordOf[min(j, target.count - 1)]] += 1
                i -= 1
            }
        }
        return costs
    }
}

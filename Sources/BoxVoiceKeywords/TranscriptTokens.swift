/// A transcript cut into words, keeping every other character as separator text, so that joining
/// `prefix` and each word's `text` and `trailing` gives back the input exactly.
///
/// A word is a run of letters and digits (with the combining marks that follow them) holding at most one
/// inner apostrophe (`it's`). A run whose normalized form is empty (no a–z/0–9, e.g. `日本`) cannot match a
/// phrase word, so it is kept as separator text, as the box's tokenizer does. Words that overlap a markup tag
/// (`<send-message phrase="…" />`) are *protected*: reproduced verbatim, never matched.
public struct TranscriptTokens: Sendable {
    /// A word's place in the input. Positions only (no substrings), so tokenizing a long transcript costs no
    /// reference counting per word; `TranscriptTokens.text(of:)` and `trailing(of:)` give the text.
    public struct Word: Sendable, Equatable {
        public let normalized: String
        public let isProtected: Bool
        /// Where the word starts and ends in the input.
        public let range: Range<String.Index>
        /// Where the separator text after it ends (the next word's start, or the end of the input).
        public let trailingEnd: String.Index
    }

    public let input: String
    /// Text before the first word.
    public let prefix: Substring
    public let words: [Word]

    public init(_ input: String) {
        self.input = input
        let fences = Self.markupTags(in: input)
        let scalars = input.unicodeScalars
        var spans: [(Range<String.Index>, String)] = []
        var index = scalars.startIndex
        while index < scalars.endIndex {
            guard Self.isWordStart(scalars[index]) else {
                index = scalars.index(after: index)
                continue
            }
            let start = index
            index = Self.endOfRun(scalars, from: index)
            // One inner apostrophe joins two runs: "it's".
            if index < scalars.endIndex, scalars[index] == "'" {
                let afterApostrophe = scalars.index(after: index)
                if afterApostrophe < scalars.endIndex, Self.isWordStart(scalars[afterApostrophe]) {
                    index = Self.endOfRun(scalars, from: afterApostrophe)
                }
            }
            let normalized = WordForm.normalize(input[start..<index])
            if !normalized.isEmpty { spans.append((start..<index, normalized)) }
        }

        prefix = input[input.startIndex..<(spans.first?.0.lowerBound ?? input.endIndex)]
        var words: [Word] = []
        words.reserveCapacity(spans.count)
        var fence = 0
        for (offset, (range, normalized)) in spans.enumerated() {
            let next = offset + 1 < spans.count ? spans[offset + 1].0.lowerBound : input.endIndex
            while fence < fences.count, fences[fence].upperBound <= range.lowerBound { fence += 1 }
            let isProtected = fence < fences.count && fences[fence].overlaps(range)
            words.append(Word(normalized: normalized, isProtected: isProtected, range: range, trailingEnd: next))
        }
        self.words = words
    }

    /// The word as written in the input.
    public func text(of word: Word) -> Substring { input[word.range] }

    /// The separator text after the word, up to the next word (or the end of the input).
    public func trailing(of word: Word) -> Substring { input[word.range.upperBound..<word.trailingEnd] }

    /// The input rebuilt from its pieces (always equal to `input`).
    public var joined: String {
        var rebuilt = String(prefix)
        for word in words { rebuilt += text(of: word) + trailing(of: word) }
        return rebuilt
    }

    // MARK: character classes

    private static func isWordStart(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let value = scalar.value
            return (0x61...0x7A).contains(value) || (0x41...0x5A).contains(value) || (0x30...0x39).contains(value)
        }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }

    private static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        guard !scalar.isASCII else { return false }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    private static func endOfRun(_ scalars: String.UnicodeScalarView, from start: String.Index) -> String.Index {
        var index = start
        while index < scalars.endIndex,
            isWordStart(scalars[index]) || (index > start && isCombiningMark(scalars[index]))
        {
            index = scalars.index(after: index)
        }
        return index
    }

    /// Ranges of markup tags: `<`, optional `/`, a letter, then anything but `<` up to the first `>`.
    static func markupTags(in input: String) -> [Range<String.Index>] {
        var tags: [Range<String.Index>] = []
        let scalars = input.unicodeScalars
        var index = scalars.startIndex
        search: while let open = scalars[index...].firstIndex(of: "<") {
            var cursor = scalars.index(after: open)
            func skipSpaces() {
                while cursor < scalars.endIndex, scalars[cursor].properties.isWhitespace {
                    cursor = scalars.index(after: cursor)
                }
            }
            skipSpaces()
            if cursor < scalars.endIndex, scalars[cursor] == "/" { cursor = scalars.index(after: cursor) }
            skipSpaces()
            guard cursor < scalars.endIndex, scalars[cursor].isASCII, scalars[cursor].properties.isAlphabetic else {
                index = scalars.index(after: open)
                continue
            }
            while cursor < scalars.endIndex {
                switch scalars[cursor] {
                case ">":
                    let end = scalars.index(after: cursor)
                    tags.append(open..<end)
                    index = end
                    continue search
                case "<":
                    index = cursor  // an unclosed `<…`: try again from the next `<`
                    continue search
                default:
                    cursor = scalars.index(after: cursor)
                }
            }
            break
        }
        return tags
    }
}

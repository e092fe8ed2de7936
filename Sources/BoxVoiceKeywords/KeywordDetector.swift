import Foundation

/// A detected spoken command.
public struct KeywordMatch: Sendable, Equatable {
    public let action: KeywordAction
    /// The tag this action writes (`send-message`, …).
    public let tag: String
    /// The captured words as written, with their inner separators.
    public let matchedPhrase: String
    /// The input with the captured words replaced by the tag, trimmed.
    public let processedTranscript: String
    /// Where the captured words are in the input.
    public let range: Range<String.Index>
}

/// Detects the box's spoken commands in a transcript, exactly as the box, its web composer and its iOS app do
/// (contract §4): actions in vocabulary order, each over the whole transcript; within an action the earliest
/// position wins, and there the longest phrase.
///
/// Compiled once: every pattern is expanded into word lists held in one trie keyed by word, and each
/// transcript word is looked up once (plural forms are folded into that lookup), so detection is linear
/// in the transcript's length and cheap enough to run on every partial result.
public struct KeywordDetector: Sendable {
    public let vocabulary: Vocabulary
    private let matcher: PhraseTrie

    /// The most words any phrase spans.
    public let longestPhrase: Int

    public init(vocabulary: Vocabulary) {
        self.vocabulary = vocabulary
        let sections = vocabulary.sections.map { $0.patterns.flatMap { $0.expansions() } }
        matcher = PhraseTrie(sections: sections)
        longestPhrase = sections.joined().map(\.count).max() ?? 0
    }

    /// Loads a vocabulary file and compiles it.
    public init(contentsOf path: String) throws {
        self.init(vocabulary: try Vocabulary.load(path: path))
    }

    /// The command in `transcript`, if any. With `atStart`, only a phrase with no words before it counts.
    public func detect(_ transcript: String, atStart: Bool = false) -> KeywordMatch? {
        let tokens = TranscriptTokens(transcript)
        guard let found = matcher.firstMatch(in: tokens, atStart: atStart) else { return nil }
        let section = vocabulary.sections[found.section]
        let first = tokens.words[found.start]
        let last = tokens.words[found.start + found.length - 1]
        let range = first.range.lowerBound..<last.range.upperBound
        return Self.match(
            section.action, tag: section.tag, phrase: String(transcript[range]).trimmedLikeTheBox(), at: range,
            in: transcript)
    }

    /// The match of `action`'s `phrase`, said at `range` of `transcript`: its tag written in place of those words.
    private static func match(
        _ action: KeywordAction, tag: String, phrase: String, at range: Range<String.Index>, in transcript: String
    ) -> KeywordMatch {
        let processed =
            transcript[..<range.lowerBound] + Self.tag(tag, phrase: phrase) + transcript[range.upperBound...]
        return KeywordMatch(
            action: action, tag: tag, matchedPhrase: phrase, processedTranscript: processed.trimmedLikeTheBox(),
            range: range)
    }

    /// One command in a text that may hold several, where it was said.
    public struct Place: Sendable, Equatable {
        public let action: KeywordAction
        public let matchedPhrase: String
        /// The command's own words in the text.
        public let words: Range<String.Index>
        /// Where its piece of the text ends: after the command and its trailing punctuation.
        public let end: String.Index
    }

    /// Each command in `text`, in the order they were said, for text that may hold several: an utterance decoded
    /// whole. A phrase that goes on into a longer one of the same action is that longer one (§4, the longest match):
    /// the close phrase with its optional ‘the mic’ is one command, never the close and then a mic-off.
    public func commandPlaces(in text: String) -> [Place] {
        let words = TranscriptTokens(text).words
        var places: [Place] = []
        var pieceStart = text.startIndex
        var index = 0
        while index < words.count {
            // The first word that completes a command in the piece so far ends it (the piece before it held none).
            var piece = String(text[pieceStart..<words[index].range.upperBound])
            guard var found = detect(piece) else {
                index += 1
                continue
            }
            var last = index
            for probe in index + 1..<min(words.count, index + longestPhrase) {
                let longerPiece = String(text[pieceStart..<words[probe].range.upperBound])
                let longer = detect(longerPiece)
                if let longer, longer.action == found.action, longer.matchedPhrase.count > found.matchedPhrase.count {
                    last = probe
                    found = longer
                    piece = longerPiece
                }
            }
            var end = words[last].range.upperBound
            while end < text.endIndex, !text[end].isWhitespace, !text[end].isLetter, !text[end].isNumber {
                end = text.index(after: end)
            }
            // The match's range is in the piece, a copy of the text from `pieceStart`: the same bytes.
            func inText(_ index: String.Index) -> String.Index {
                text.utf8.index(pieceStart, offsetBy: piece.utf8.distance(from: piece.startIndex, to: index))
            }
            places.append(
                Place(
                    action: found.action, matchedPhrase: found.matchedPhrase,
                    words: inText(found.range.lowerBound)..<inText(found.range.upperBound), end: end))
            pieceStart = end
            index = last + 1
        }
        return places
    }

    /// The command whose words end `utterance`, with only whitespace and punctuation after them: what a speaker says
    /// before pausing. Command words with more words after them in the same utterance are ordinary text ("I forgot to
    /// send the message to the landlord"), so no utterance is ever read as a command followed by a new message.
    public func endingPlace(in utterance: String) -> Place? {
        guard let last = commandPlaces(in: utterance).last,
            utterance[last.end...].allSatisfy({ $0.isWhitespace || $0.isPunctuation || $0.isSymbol })
        else { return nil }
        return last
    }

    /// `endingPlace(in:)` as a match over `utterance`: its tag written in place of the command's words.
    public func endingCommand(in utterance: String) -> KeywordMatch? {
        guard let place = endingPlace(in: utterance), let tag = vocabulary.tag(for: place.action) else { return nil }
        return Self.match(place.action, tag: tag, phrase: place.matchedPhrase, at: place.words, in: utterance)
    }

    /// The command in `earlier + " " + addition` (just `addition` when `earlier` is empty), for a live transcript
    /// checked after every utterance: the same answer as `detect` on the joined text, in time that grows with the
    /// utterance rather than with everything said before it.
    ///
    /// `earlier` must hold no command (the caller acted on each as it appeared). A new one then ends in `addition` and
    /// starts at most `longestPhrase - 1` words before it, so only that tail is searched; the whole text is searched
    /// only when the tail holds a command (for its exact place). Markup tags can protect words far apart, so text
    /// holding `<` is searched whole.
    public func detect(appending addition: String, to earlier: String) -> KeywordMatch? {
        let whole = earlier.isEmpty ? addition : earlier + " " + addition
        guard !earlier.contains("<"), !addition.contains("<") else { return detect(whole) }
        var tailStart = earlier.endIndex
        var wordsBefore = 0
        while wordsBefore < longestPhrase - 1, tailStart > earlier.startIndex {
            // Back over one whitespace-separated chunk (a word never spans whitespace).
            var chunkStart = tailStart
            while chunkStart > earlier.startIndex, earlier[earlier.index(before: chunkStart)].isWhitespace {
                chunkStart = earlier.index(before: chunkStart)
            }
            while chunkStart > earlier.startIndex, !earlier[earlier.index(before: chunkStart)].isWhitespace {
                chunkStart = earlier.index(before: chunkStart)
            }
            wordsBefore += TranscriptTokens(String(earlier[chunkStart..<tailStart])).words.count
            tailStart = chunkStart
        }
        let tail = earlier[tailStart...]
        guard detect(tail.isEmpty ? addition : tail + " " + addition) != nil else { return nil }
        return detect(whole)
    }

    /// Re-attaches a send keyword the HQ pass did not reproduce: `trim(trim(text) + " " + <tag … heard="live" />)`.
    public func appendSendKeywordTag(_ text: String, action: KeywordAction, matchedPhrase: String) -> String {
        let tag = Self.tag(vocabulary.tag(for: action) ?? action.rawValue, phrase: matchedPhrase, heardLive: true)
        return (text.trimmedLikeTheBox() + " " + tag).trimmedLikeTheBox()
    }

    /// True when the two actions write the same tag (`sendHq` and `send` both write `send-message`).
    public func writeSameTag(_ first: KeywordAction, _ second: KeywordAction) -> Bool {
        vocabulary.tag(for: first).map { $0 == vocabulary.tag(for: second) } ?? (first == second)
    }

    /// Removes this vocabulary's keyword tags (and the whitespace before each), for text going back to an editor.
    public func stripKeywordTags(_ text: String) -> String {
        let names = Set(vocabulary.sections.map(\.tag))
        var output = ""
        var rest = text[...]
        while let open = rest.firstIndex(of: "<") {
            let afterOpen = rest.index(after: open)
            let name = rest[afterOpen...].prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            let close = rest[afterOpen...].firstIndex { $0 == ">" || $0 == "<" }
            if names.contains(String(name)), let close, rest[close] == ">", rest[rest.index(before: close)] == "/",
                name.endIndex == close
                    || !(rest[name.endIndex].isLetter || rest[name.endIndex].isNumber || rest[name.endIndex] == "-")
            {
                var kept = String(rest[..<open])
                while kept.last?.isWhitespace == true { kept.removeLast() }
                output += kept
                rest = rest[rest.index(after: close)...]
            } else {
                output += rest[...open]
                rest = rest[afterOpen...]
            }
        }
        output += rest
        return output.trimmedLikeTheBox()
    }

    /// `<tag phrase="…" />`, escaping `&` then `"` in the phrase.
    static func tag(_ name: String, phrase: String, heardLive: Bool = false) -> String {
        let escaped = phrase.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
        return "<\(name) phrase=\"\(escaped)\"\(heardLive ? " heard=\"live\"" : "") />"
    }
}

/// All expanded phrases of all sections in one trie over pattern words.
struct PhraseTrie: Sendable {
    struct Found { var section: Int; var start: Int; var length: Int }

    private struct Node: Sendable {
        var children: [Int32: Int32] = [:]
        /// Bit i set: a phrase of section i ends here.
        var accepts: UInt64 = 0
    }

    private var nodes = [Node()]
    /// Normalized input word → every pattern word it equals (plural-tolerant).
    private var symbolsForForm: [String: [Int32]] = [:]
    private let sectionCount: Int

    init(sections: [[[String]]]) {
        precondition(sections.count <= 64, "at most 64 sections")
        sectionCount = sections.count
        var symbolOfWord: [String: Int32] = [:]
        for (index, phrases) in sections.enumerated() {
            for phrase in phrases where !phrase.isEmpty {
                var node = 0
                for word in phrase {
                    let symbol: Int32
                    if let known = symbolOfWord[word] {
                        symbol = known
                    } else {
                        symbol = Int32(symbolOfWord.count)
                        symbolOfWord[word] = symbol
                        for form in WordForm.variants(of: word) { symbolsForForm[form, default: []].append(symbol) }
                    }
                    if let child = nodes[node].children[symbol] {
                        node = Int(child)
                    } else {
                        nodes.append(Node())
                        nodes[node].children[symbol] = Int32(nodes.count - 1)
                        node = nodes.count - 1
                    }
                }
                nodes[node].accepts |= 1 << UInt64(index)
            }
        }
    }

    /// The winning match: the first section (in order) that matches anywhere; for it, the earliest start
    /// and the longest phrase there.
    func firstMatch(in tokens: TranscriptTokens, atStart: Bool) -> Found? {
        let words = tokens.words
        guard !words.isEmpty else { return nil }
        let symbols: [[Int32]] = words.map { $0.isProtected ? [] : (symbolsForForm[$0.normalized] ?? []) }
        var earliest = [Found?](repeating: nil, count: sectionCount)
        var pending = (UInt64(1) << UInt64(sectionCount)) &- 1
        var frontier: [Int32] = []
        var next: [Int32] = []
        let lastStart = atStart ? 0 : words.count - 1
        for start in 0...lastStart where !symbols[start].isEmpty {
            var longest = [Int](repeating: 0, count: sectionCount)
            var matchedHere: UInt64 = 0
            frontier.removeAll(keepingCapacity: true)
            frontier.append(0)
            var position = start
            while position < words.count, !frontier.isEmpty {
                next.removeAll(keepingCapacity: true)
                for node in frontier {
                    for symbol in symbols[position] {
                        if let child = nodes[Int(node)].children[symbol] { next.append(child) }
                    }
                }
                for node in next {
                    var accepts = nodes[Int(node)].accepts & pending
                    matchedHere |= accepts
                    while accepts != 0 {
                        let section = accepts.trailingZeroBitCount
                        longest[section] = position - start + 1
                        accepts &= accepts - 1
                    }
                }
                swap(&frontier, &next)
                position += 1
            }
            var newly = matchedHere
            while newly != 0 {
                let section = newly.trailingZeroBitCount
                earliest[section] = Found(section: section, start: start, length: longest[section])
                newly &= newly - 1
            }
            pending &= ~matchedHere
            if earliest[0] != nil || pending == 0 { break }  // the first section cannot be beaten
        }
        return earliest.lazy.compactMap { $0 }.first
    }
}

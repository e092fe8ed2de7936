import Foundation

/// The spoken-keyword vocabulary: for each action, in the order actions are checked, the tag it writes
/// and its phrase patterns. Loaded from `Models/speech-keywords.en.txt` (or another language's file).
///
/// File format, one item per line:
/// ```
/// # comment (also after a pattern)
/// [sendClose send-close-message]              a section: action name, then tag name
/// send and (close | stop | sign off)          a phrase pattern: words, (choice | of | phrases)
/// send and close (the)? (mic | microphone)    x? or (…)? makes a part optional
/// ```
public struct Vocabulary: Sendable, Equatable {
    public struct Section: Sendable, Equatable {
        public let action: KeywordAction
        public let tag: String
        public let patterns: [PhrasePattern]
        /// Where each pattern came from (line numbers), for messages.
        public let lines: [Int]
    }

    /// A malformed vocabulary file, pointing at the offending place.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let file: String
        public let line: Int
        public let column: Int
        public let message: String

        public var description: String { "\(file):\(line):\(column): \(message)" }
    }

    public let sections: [Section]

    public init(sections: [Section]) {
        self.sections = sections
    }

    /// The tag `action` writes, if the vocabulary has it.
    public func tag(for action: KeywordAction) -> String? {
        sections.first { $0.action == action }?.tag
    }

    /// Every phrase any action takes, as its normalized words (`PhrasePattern.expansions`), in file order.
    public var phrases: [[String]] {
        sections.flatMap { $0.patterns.flatMap { $0.expansions() } }
    }

    /// Every word its phrases use, normalized (`WordForm.normalize`): a recognizer that writes one of them as two
    /// ("never mind" for *nevermind*) can be checked against them.
    public var words: Set<String> { Set(phrases.joined()) }

    /// Reads and parses a vocabulary file.
    public static func load(path: String) throws -> Vocabulary {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ParseError(
                file: path, line: 0, column: 0, message: "cannot read the vocabulary: \(error.localizedDescription)")
        }
        return try parse(text, file: path)
    }

    public static func parse(_ text: String, file: String = "<vocabulary>") throws -> Vocabulary {
        var sections: [Section] = []
        var current: (action: KeywordAction, tag: String, patterns: [PhrasePattern], lines: [Int], headerLine: Int)?
        func closeSection() throws {
            guard let section = current else { return }
            guard !section.patterns.isEmpty else {
                throw ParseError(
                    file: file, line: section.headerLine, column: 1,
                    message: "section [\(section.action.rawValue)] has no phrase patterns")
            }
            sections.append(
                Section(action: section.action, tag: section.tag, patterns: section.patterns, lines: section.lines))
        }

        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = offset + 1
            let line = rawLine.prefix { $0 != "#" }
            let leadingSpaces = line.prefix { $0 == " " || $0 == "\t" }.count
            let content = line.trimmingCharacters(in: .whitespaces)
            if content.isEmpty { continue }
            if content.hasPrefix("[") {
                try closeSection()
                let header = try parseHeader(content, file: file, line: lineNumber, column: leadingSpaces + 1)
                if sections.contains(where: { $0.action == header.action }) {
                    throw ParseError(
                        file: file, line: lineNumber, column: leadingSpaces + 2,
                        message: "action '\(header.action.rawValue)' has a second section")
                }
                current = (header.action, header.tag, [], [], lineNumber)
                continue
            }
            guard current != nil else {
                throw ParseError(
                    file: file, line: lineNumber, column: leadingSpaces + 1,
                    message: "a phrase pattern before any [action tag] section")
            }
            var parser = PatternParser(text: Array(line), file: file, line: lineNumber)
            current!.patterns.append(try parser.parseLine())
            current!.lines.append(lineNumber)
        }
        try closeSection()
        guard !sections.isEmpty else {
            throw ParseError(file: file, line: 1, column: 1, message: "the vocabulary has no sections")
        }
        return Vocabulary(sections: sections)
    }

    private static func parseHeader(_ content: String, file: String, line: Int, column: Int) throws -> (
        action: KeywordAction, tag: String
    ) {
        guard content.hasSuffix("]") else {
            throw ParseError(
                file: file, line: line, column: column + content.count,
                message: "expected ']' to close the section header")
        }
        let fields = content.dropFirst().dropLast().split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count == 2 else {
            throw ParseError(
                file: file, line: line, column: column,
                message: "a section header is [action tag-name]: two names between brackets")
        }
        guard let action = KeywordAction(rawValue: String(fields[0])) else {
            let known = KeywordAction.allCases.map(\.rawValue).joined(separator: ", ")
            throw ParseError(
                file: file, line: line, column: column + 1, message: "unknown action '\(fields[0])' (known: \(known))")
        }
        let tag = String(fields[1])
        let valid =
            tag.first?.isLetter == true && tag.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        guard valid else {
            throw ParseError(
                file: file, line: line, column: column,
                message: "tag name '\(tag)' must be ASCII letters, digits and '-', starting with a letter")
        }
        return (action, tag)
    }
}

/// Recursive-descent parser for one pattern line.
private struct PatternParser {
    let text: [Character]
    let file: String
    let line: Int
    var position = 0

    init(text: [Character], file: String, line: Int) {
        self.text = text
        self.file = file
        self.line = line
    }

    private func error(_ message: String, at column: Int? = nil) -> Vocabulary.ParseError {
        Vocabulary.ParseError(file: file, line: line, column: (column ?? position) + 1, message: message)
    }

    private mutating func skipSpaces() {
        while position < text.count, text[position] == " " || text[position] == "\t" || text[position] == "\r" {
            position += 1
        }
    }

    private var current: Character? { position < text.count ? text[position] : nil }

    mutating func parseLine() throws -> PhrasePattern {
        let sequence = try parseSequence()
        skipSpaces()
        if let extra = current {
            throw error(
                extra == ")"
                    ? "')' without a matching '('" : extra == "|" ? "'|' outside a (choice)" : "unexpected '\(extra)'")
        }
        return sequence
    }

    /// Elements up to `)`, `|` or the end.
    private mutating func parseSequence() throws -> PhrasePattern {
        var parts: [PhrasePattern] = []
        while true {
            skipSpaces()
            guard let char = current, char != ")", char != "|" else { break }
            parts.append(try parseElement())
        }
        guard !parts.isEmpty else {
            throw error(current == nil ? "expected a word or '('" : "expected a word or '(' before '\(current!)'")
        }
        return parts.count == 1 ? parts[0] : .sequence(parts)
    }

    private mutating func parseElement() throws -> PhrasePattern {
        let start = position
        var element: PhrasePattern
        if current == "(" {
            position += 1
            var options: [PhrasePattern] = [try parseSequence()]
            skipSpaces()
            while current == "|" {
                position += 1
                options.append(try parseSequence())
                skipSpaces()
            }
            guard current == ")" else { throw error("expected ')' to close the '(' at column \(start + 1)") }
            position += 1
            element = options.count == 1 ? options[0] : .choice(options)
        } else if let char = current, "?[]".contains(char) {
            throw error("unexpected '\(char)'")
        } else {
            var word = ""
            while let char = current, !" \t\r()|?[]".contains(char) {
                word.append(char)
                position += 1
            }
            let normalized = WordForm.normalize(word)
            guard !normalized.isEmpty else { throw error("the word '\(word)' has no letters or digits", at: start) }
            let heard = TranscriptTokens(word).words.count
            guard heard == 1 else {
                throw error(
                    "'\(word)' is heard as \(heard) words in a transcript, so it could never match; write them apart",
                    at: start)
            }
            element = .word(normalized)
        }
        if current == "?" {
            position += 1
            element = .optional(element)
        }
        return element
    }
}

import Foundation
import BoxVoiceKeywords
import BoxVoiceTestSupport
import Testing

@Suite struct VocabularyTests {
    @Test func committedVocabularyHasTheContractsSevenActionsInCheckOrder() throws {
        let vocabulary = try Vocabulary.load(path: Checkout.keywordVocabulary)
        #expect(
            vocabulary.sections.map(\.action) == [
                .sendClose, .sendCheckpoint, .sendHq, .micOff, .cancel, .erase, .send,
            ])
        #expect(
            vocabulary.sections.map(\.tag) == [
                "send-close-message", "send-checkpoint-message", "send-message", "mic-off",
                "cancel-message", "erase-message", "send-message",
            ])
    }

    @Test func phrasesAreEveryExpansionInFileOrderAndWordsEachOfTheirWordsOnce() throws {
        let vocabulary = try Vocabulary.parse(
            """
            [cancel cancel-message]
            (Cancel | nevermind) (the)? message
            [send send-message]
            send message
            """)
        #expect(vocabulary.words == ["cancel", "nevermind", "the", "message", "send"])
        #expect(
            vocabulary.phrases == [
                ["cancel", "message"], ["cancel", "the", "message"], ["nevermind", "message"],
                ["nevermind", "the", "message"], ["send", "message"],
            ])
    }

    @Test func expansionsCoverChoicesOptionalsAndMultiWordOptions() throws {
        let vocabulary = try Vocabulary.parse(
            """
            [sendClose send-close-message]
            send and (close | sign off) (the)? (mic | message)
            """)
        let phrases = Set(vocabulary.sections[0].patterns[0].expansions().map { $0.joined(separator: " ") })
        #expect(
            phrases == [
                "send and close mic", "send and close message", "send and close the mic", "send and close the message",
                "send and sign off mic", "send and sign off message", "send and sign off the mic",
                "send and sign off the message",
            ])
    }

    @Test func optionalWordAndNestedGroups() throws {
        let pattern = try Vocabulary.parse("[send send-message]\nit's (a | (the | an) very)? message").sections[0]
            .patterns[0]
        #expect(
            Set(pattern.expansions().map { $0.joined(separator: " ") }) == [
                "its message", "its a message", "its the very message", "its an very message",
            ])
    }

    @Test func commentsAndBlankLinesAreIgnored() throws {
        let vocabulary = try Vocabulary.parse("# top\n\n[erase erase-message]  # trailing\nstart over # here\n\n")
        #expect(vocabulary.sections.count == 1)
        #expect(vocabulary.sections[0].patterns == [.sequence([.word("start"), .word("over")])])
        #expect(vocabulary.sections[0].lines == [4])
    }

    @Test(arguments: [
        ("[send send-message]\nsend (a | the message", 2, 22, "expected ')' to close the '(' at column 6"),
        ("[send send-message]\nsend a) message", 2, 7, "')' without a matching '('"),
        ("[send send-message]\nsend | message", 2, 6, "'|' outside a (choice)"),
        ("[send send-message]\n  ? send", 2, 3, "unexpected '?'"),
        ("[send send-message]\nsend ( | x)", 2, 8, "expected a word or '(' before '|'"),
        ("[send send-message]\nsend ,,, now", 2, 6, "the word ',,,' has no letters or digits"),
        ("send message", 1, 1, "a phrase pattern before any [action tag] section"),
        ("[send send-message]\nsend r&d message", 2, 6, "'r&d' is heard as 2 words"),
        ("[shout shout-message]\nhey", 1, 2, "unknown action 'shout'"),
        ("[send]\nsend now", 1, 1, "a section header is [action tag-name]"),
        ("[send send-message\nsend now", 1, 19, "expected ']' to close the section header"),
        ("[send send_message]\nsend now", 1, 1, "tag name 'send_message' must be"),
        ("[send send-message]\n[erase erase-message]\nstart over", 1, 1, "section [send] has no phrase patterns"),
        ("[send send-message]\nsend now\n[send send-message]\nsend it", 3, 2, "action 'send' has a second section"),
        ("# nothing here\n", 1, 1, "the vocabulary has no sections"),
    ])
    func malformedVocabularyIsAClearErrorWithLineAndColumn(
        _ text: String, _ line: Int, _ column: Int, _ message: String
    ) {
        #expect {
            _ = try Vocabulary.parse(text, file: "vocab.txt")
        } throws: { error in
            guard let error = error as? Vocabulary.ParseError else { return false }
            return error.line == line && error.column == column && error.message.hasPrefix(message)
                && error.description.hasPrefix("vocab.txt:\(line):\(column): ")
        }
    }

    @Test func missingFileIsAParseErrorNamingIt() {
        #expect {
            _ = try Vocabulary.load(path: "/nonexistent/speech-keywords.xx.txt")
        } throws: { error in
            String(describing: error).contains("/nonexistent/speech-keywords.xx.txt")
                && String(describing: error).contains("cannot read")
        }
    }
}

@Suite struct VocabularyLivesInModelsTests {
    /// "No phrase is spelled in Swift source": no string literal under Sources/ holds a vocabulary phrase.
    @Test func noSwiftStringLiteralSpellsAVocabularyPhrase() throws {
        let vocabulary = try Vocabulary.load(path: Checkout.keywordVocabulary)
        let phrases = Set(
            vocabulary.sections.flatMap { $0.patterns.flatMap { $0.expansions() } }.filter { $0.count >= 2 })
        let sources = Checkout.root + "/Sources"
        let files = FileManager.default.enumerator(atPath: sources)!.compactMap { $0 as? String }.filter {
            $0.hasSuffix(".swift")
        }
        #expect(files.count > 10)
        let literal = try NSRegularExpression(pattern: #""(?:[^"\\\n]|\\.)*""#)
        for file in files {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for match in literal.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let words = TranscriptTokens(String(text[Range(match.range, in: text)!])).words.map(\.normalized)
                for phrase in phrases where words.count >= phrase.count {
                    for start in 0...(words.count - phrase.count)
                    where Array(words[start..<start + phrase.count]) == phrase {
                        Issue.record("\(file) spells the phrase '\(phrase.joined(separator: " "))' in a string literal")
                    }
                }
            }
        }
    }
}

import BoxVoiceKeywords
import BoxVoiceTestSupport
import Testing

@Suite struct TokenizerTests {
    private func words(_ text: String) -> [String] {
        let tokens = TranscriptTokens(text)
        return tokens.words.map { String(tokens.text(of: $0)) }
    }

    @Test func joiningTokensGivesBackArbitraryInput() {
        let alphabet: [String] = [
            "send", "message", "It's", "don't", "'", "’", " ", "  ", "\n", "\t", ",", ".", "...", "!", "?",
            "<", ">", "/>", "<send-message phrase=\"send message\" />", "<b>", "café", "cafe\u{301}",
            "日本", "Ωmega", "ß", "🙂", "👍🏽", "-", "—", "\"", "&", "42", "x2", "rock'n'roll", "''", "a", "é",
        ]
        var random = SeededRandom(seed: 20261129)
        for _ in 0..<3_000 {
            let count = Int.random(in: 0...25, using: &random)
            let text = (0..<count).map { _ in alphabet.randomElement(using: &random)! }.joined()
            let tokens = TranscriptTokens(text)
            #expect(tokens.joined == text, "round trip broke for \(text.debugDescription)")
            for word in tokens.words { #expect(!word.normalized.isEmpty) }
        }
    }

    @Test func aWordHoldsAtMostOneInnerApostrophe() {
        #expect(words("it's rock'n'roll don''t") == ["it's", "rock'n", "roll", "don", "t"])
        #expect(words("'quoted'") == ["quoted"])
    }

    @Test func curlyApostropheSeparates() {
        #expect(words("it’s") == ["it", "s"])
    }

    @Test func textWithoutLettersOrDigitsAfterNormalizingIsSeparatorText() {
        let tokens = TranscriptTokens("日本 send, message!")
        #expect(tokens.words.map(\.normalized) == ["send", "message"])
        #expect(tokens.prefix == "日本 ")
        #expect(tokens.trailing(of: tokens.words[0]) == ", ")
        #expect(tokens.trailing(of: tokens.words[1]) == "!")
    }

    @Test func combiningMarksStayInTheirWord() {
        let tokens = TranscriptTokens("cafe\u{301} ok")
        #expect(tokens.words.map(\.normalized) == ["cafe", "ok"])
    }

    @Test func wordsInsideMarkupTagsAreProtected() {
        let tokens = TranscriptTokens("say <send-message phrase=\"send message\" /> then < b > x <7> y")
        let protected = tokens.words.filter(\.isProtected).map(\.normalized)
        #expect(protected == ["send", "message", "phrase", "send", "message", "b"])
        // "< b >" is a tag (spaces allowed before the name); "<7>" is not.
        #expect(tokens.words.first { $0.normalized == "b" }?.isProtected == true)
        #expect(tokens.words.first { $0.normalized == "7" }?.isProtected == false)
    }

    @Test func anUnclosedAngleBracketProtectsNothing() {
        #expect(TranscriptTokens("a < b send message").words.allSatisfy { !$0.isProtected })
        #expect(TranscriptTokens("<a <b> c").words.map(\.isProtected) == [false, true, false])
    }

    @Test func emptyAndBlankInputHaveNoWords() {
        #expect(TranscriptTokens("").words.isEmpty)
        #expect(TranscriptTokens("  ...  ").words.isEmpty)
        #expect(TranscriptTokens("  ...  ").prefix == "  ...  ")
    }
}

@Suite struct WordFormTests {
    @Test(arguments: [
        ("Hello", "hello"), ("It's", "its"), ("café", "cafe"), ("CAFE\u{301}", "cafe"), ("Ⅻ", "xii"),
        ("naïve", "naive"), ("日本", ""), ("x-ray", "xray"), ("ﬁne", "fine"), ("R2D2", "r2d2"),
    ])
    func normalizeLowercasesStripsDiacriticsAndKeepsOnlyASCIIAlphanumerics(_ word: String, _ expected: String) {
        #expect(WordForm.normalize(word) == expected)
    }

    @Test(arguments: [
        ("message", "messages", true), ("box", "boxes", true), ("party", "parties", true),
        ("messages", "message", true), ("a", "as", false), ("i", "is", false), ("go", "goes", true),
        ("send", "sent", false), ("mic", "mice", false), ("message", "message", true), ("y", "ies", false),
    ])
    func equalityIsPluralTolerantAndSymmetric(_ a: String, _ b: String, _ expected: Bool) {
        #expect(WordForm.equal(a, b) == expected)
        #expect(WordForm.equal(b, a) == expected)
    }

    @Test func variantsAreExactlyTheWordsEqualAccepts() {
        let stems = [
            "message", "messages", "box", "boxes", "party", "parties", "is", "as", "go", "goes", "mic", "y", "ies",
            "see", "sees", "bus", "buses", "day", "days", "dies", "die", "s", "es", "yes", "ye",
        ]
        var candidates = Set(stems)
        for stem in stems {
            let forms: [String] = [
                stem + "s", stem + "es", String(stem.dropLast()), String(stem.dropLast(2)),
                String(stem.dropLast()) + "ies", String(stem.dropLast(3)) + "y",
            ]
            candidates.formUnion(forms)
        }
        for word in stems {
            let variants = WordForm.variants(of: word)
            for candidate in candidates {
                #expect(variants.contains(candidate) == WordForm.equal(candidate, word), "\(candidate) vs \(word)")
            }
        }
    }
}

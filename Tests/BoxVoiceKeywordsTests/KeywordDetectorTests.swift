import BoxVoiceKeywords
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct KeywordDetectorTests {
    static let vocabulary = try! Vocabulary.load(path: Checkout.keywordVocabulary)
    let detector = KeywordDetector(vocabulary: vocabulary)

    @Test func actionOrderBeatsPosition() throws {
        let found = try #require(detector.detect("send message, oh and one more thing, mic off"))
        #expect(found.action == .micOff)
        #expect(found.processedTranscript == "send message, oh and one more thing, <mic-off phrase=\"mic off\" />")
    }

    @Test func earliestPositionWinsWithinAnAction() throws {
        let found = try #require(detector.detect("cancel message and abort the message"))
        #expect(found.matchedPhrase == "cancel message")
    }

    @Test func longestPhraseWinsAtTheEarliestPosition() throws {
        let found = try #require(detector.detect("send and close the microphone now"))
        #expect(found.action == .sendClose)
        #expect(found.matchedPhrase == "send and close the microphone")
        #expect(found.processedTranscript == "<send-close-message phrase=\"send and close the microphone\" /> now")
    }

    @Test func atStartOnlyAcceptsAPhraseWithNoWordsBeforeIt() {
        #expect(detector.detect("so send message", atStart: true) == nil)
        #expect(detector.detect("...Send message", atStart: true)?.action == .send)
        #expect(detector.detect("so send message", atStart: false)?.action == .send)
    }

    @Test func caseAndSurroundingTextAreKeptExactly() throws {
        let found = try #require(detector.detect("  Buy milk.\n\nSEND   Message!! "))
        #expect(found.matchedPhrase == "SEND   Message")
        #expect(found.processedTranscript == "Buy milk.\n\n<send-message phrase=\"SEND   Message\" />!!")
        #expect(found.tag == "send-message")
    }

    @Test func phraseAttributeEscapesAmpersandThenQuote() throws {
        let custom = KeywordDetector(vocabulary: try Vocabulary.parse("[send send-message]\nsend r d message"))
        let found = try #require(custom.detect("please \"send\" R&D message"))
        #expect(found.processedTranscript.contains("phrase=\"send&quot; R&amp;D message\""))
    }

    @Test func detectionOverItsOwnOutputNeverNestsATag() {
        var random = SeededRandom(seed: 7)
        let pieces = [
            "send message", "cancel message", "mic off", "over and out", "start over", "buy milk", "send checkpoint",
            "clean up and send", "hello", ",", ".", "and", "the", "message", "close the mic",
        ]
        for _ in 0..<2_000 {
            var text = (0..<Int.random(in: 1...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined(separator: " ")
            for _ in 0..<6 {
                guard let found = detector.detect(text) else { break }
                let tagsBefore = text.components(separatedBy: "<").count
                text = found.processedTranscript
                // Each pass adds exactly one tag, and no tag starts inside another.
                #expect(text.components(separatedBy: "<").count == tagsBefore + 1)
                var depth = 0
                for char in text {
                    if char == "<" { depth += 1 }
                    if char == ">" { depth -= 1 }
                    #expect(depth <= 1, "nested tag in \(text)")
                }
            }
        }
    }

    @Test func wordsInsideExistingTagsNeverMatch() {
        #expect(detector.detect("<cancel-message phrase=\"cancel message\" />") == nil)
        #expect(detector.detect("<mic-off phrase=\"mic off\" /> send message")?.action == .send)
    }

    @Test func blankInputHasNoKeyword() {
        #expect(detector.detect("") == nil)
        #expect(detector.detect("   \n ") == nil)
        #expect(detector.detect("!!!") == nil)
    }

    @Test func separatorsThatAreNotWordsDoNotBreakAPhrase() throws {
        let found = try #require(detector.detect("send 日本 message"))
        #expect(found.matchedPhrase == "send 日本 message")
    }

    @Test func rangePointsAtTheCapturedWords() throws {
        let text = "ok, over and out."
        let found = try #require(detector.detect(text))
        #expect(text[found.range] == "over and out")
    }

    @Test func compiledDetectorAgreesWithTheNaiveReferenceOnRandomTranscripts() {
        let naive = NaiveKeywordDetector(vocabulary: Self.vocabulary)
        let vocabularyWords = Set(
            Self.vocabulary.sections.flatMap { $0.patterns.flatMap { $0.expansions().flatMap { $0 } } })
        let words =
            Array(vocabularyWords).sorted() + [
                "messages", "Send", "MIC", "boxes", "it's", "<mic-off phrase=\"mic off\" />",
                "buy", "milk", "café", "日本", "x",
            ]
        let separators = [" ", " ", " ", ", ", ". ", "... ", "\n", " - ", "'"]
        var random = SeededRandom(seed: 42)
        var agreed = 0
        for _ in 0..<8_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...10, using: &random) {
                text += words.randomElement(using: &random)! + separators.randomElement(using: &random)!
            }
            for atStart in [false, true] {
                let fast = detector.detect(text, atStart: atStart)
                let slow = naive.detect(text, atStart: atStart)
                #expect(
                    fast?.action == slow?.action && fast?.range == slow?.range,
                    "disagree on \(text.debugDescription) atStart \(atStart)")
                if fast != nil { agreed += 1 }
            }
        }
        #expect(agreed > 500)  // the generator really exercises matches (about 1 in 20), not only misses
    }

    @Test func appendSendKeywordTagAddsTheLiveTag() {
        #expect(
            detector.appendSendKeywordTag("  Buy milk.  ", action: .sendCheckpoint, matchedPhrase: "send checkpoint")
                == "Buy milk. <send-checkpoint-message phrase=\"send checkpoint\" heard=\"live\" />")
    }

    @Test func writeSameTagFollowsTheVocabulary() {
        #expect(detector.writeSameTag(.send, .sendHq))
        #expect(!detector.writeSameTag(.send, .sendClose))
        #expect(detector.writeSameTag(.micOff, .micOff))
    }

    @Test func stripKeywordTagsRemovesOnlyKeywordTags() {
        let text =
            "Buy milk <send-message phrase=\"send message\" heard=\"live\" /> and <b>bread</b>  <mic-off phrase=\"mic "
                + "off\" />"
        #expect(detector.stripKeywordTags(text) == "Buy milk and <b>bread</b>")
        #expect(detector.stripKeywordTags("  <send-message-extra x /> a < b") == "<send-message-extra x /> a < b")
        #expect(detector.stripKeywordTags("<erase-message phrase=\"x\"/>done") == "done")
    }
}

@Suite struct VoiceTextResolverTests {
    let detector = try! KeywordDetector(contentsOf: Checkout.keywordVocabulary)
    var resolver: VoiceTextResolver { VoiceTextResolver(detector: detector) }

    private func liveSend(_ live: String, prefix: String = "") -> VoiceSend {
        VoiceSend(typedPrefix: prefix, liveTranscript: live, keyword: detector.detect(live))
    }

    @Test func hqKeepingTheSameCommandUsesHQsSubstitution() {
        let resolved = resolver.resolve(
            liveSend("by milk tomorrow send message"), hqText: "Buy milk tomorrow. Send message.")
        #expect(
            resolved
                == ResolvedVoiceText(text: "Buy milk tomorrow. <send-message phrase=\"Send message\" />.", source: .hq))
    }

    @Test func hqWithASameTagCommandOfAnotherActionCounts() {
        // sendHq and send both write send-message.
        let resolved = resolver.resolve(liveSend("notes clean up and send"), hqText: "Notes. Send message.")
        #expect(resolved.text == "Notes. <send-message phrase=\"Send message\" />.")
    }

    @Test func hqWithoutTheCommandGetsTheLiveTagAppended() {
        let resolved = resolver.resolve(liveSend("buy milk over and out"), hqText: "Buy milk.")
        #expect(
            resolved
                == ResolvedVoiceText(
                    text: "Buy milk. <send-close-message phrase=\"over and out\" heard=\"live\" />", source: .hq))
    }

    @Test func hqWithAnotherCommandGetsTheLiveTagAppended() {
        let resolved = resolver.resolve(liveSend("buy milk send message"), hqText: "Buy milk. Cancel message.")
        #expect(resolved.text == "Buy milk. Cancel message. <send-message phrase=\"send message\" heard=\"live\" />")
        #expect(resolved.source == .hq)
    }

    @Test func blankOrMissingHQFallsBackToTheLiveSubstitution() {
        for hq in [nil, "", "  \n"] as [String?] {
            let resolved = resolver.resolve(liveSend("buy milk send message"), hqText: hq)
            #expect(
                resolved == ResolvedVoiceText(text: "buy milk <send-message phrase=\"send message\" />", source: .live))
        }
    }

    @Test func sentByKeyUsesHQAsIs() {
        let send = VoiceSend(liveTranscript: "buy milk", keyword: nil)
        #expect(
            resolver.resolve(send, hqText: " Buy milk. Send message. ")
                == ResolvedVoiceText(text: "Buy milk. Send message.", source: .hq))
        #expect(resolver.resolve(send, hqText: nil) == ResolvedVoiceText(text: "buy milk", source: .live))
    }

    @Test func typedPrefixIsJoinedWithOneSpace() {
        let hq = resolver.resolve(
            liveSend("and eggs send message", prefix: "  Shopping list:  "), hqText: "  And eggs. Send message.")
        #expect(hq.text == "Shopping list: And eggs. <send-message phrase=\"Send message\" />.")
        let live = resolver.resolve(liveSend("and eggs send message", prefix: "Shopping list:"), hqText: nil)
        #expect(live.text == "Shopping list: and eggs <send-message phrase=\"send message\" />")
        let onlyPrefix = resolver.resolve(
            VoiceSend(typedPrefix: "typed ", liveTranscript: "   ", keyword: nil), hqText: nil)
        #expect(onlyPrefix.text == "typed")
    }
}

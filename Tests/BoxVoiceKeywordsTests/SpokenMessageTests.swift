import BoxVoiceKeywords
import BoxVoiceTestSupport
import Testing

@Suite struct SpokenMessageTests {
    let detector = KeywordDetector(vocabulary: KeywordDetectorTests.vocabulary)

    @Test func aCommandEndsTheMessageAndTheNextUtteranceStartsANewOne() {
        var message = SpokenMessage()
        #expect(message.hear("buy milk on the way home", detector: detector) == nil)
        #expect(message.text == "buy milk on the way home")
        let found = message.hear("send message", detector: detector)
        #expect(found?.action == .send)
        #expect(message.text == "")
        #expect(message.hear("and bread", detector: detector) == nil)
        #expect(message.text == "and bread")
    }

    @Test func aCommandSpokenAcrossTwoUtterancesCountsInTheSecond() {
        let acted = SpokenMessage.commands(in: ["please clean up", "and send", "next one"], detector: detector)
        #expect(acted.map(\.utterance) == [1])
        #expect(acted.map(\.match.action) == [.sendHq])
    }

    @Test func utterancesWithoutWordsChangeNothingAndEveryCommandIsCountedInOrder() {
        let acted = SpokenMessage.commands(
            in: ["", "first note send message", "", "scratch that cancel message", "stop listening"], detector: detector
        )
        #expect(acted.map(\.utterance) == [1, 3, 4])
        #expect(acted.map(\.match.action) == [.send, .cancel, .micOff])
    }

    @Test func wordsWithoutACommandStayInTheMessage() {
        var message = SpokenMessage()
        for words in ["the meeting", "moved to", "friday"] { #expect(message.hear(words, detector: detector) == nil) }
        #expect(message.text == "the meeting moved to friday")
        #expect(SpokenMessage.commands(in: ["the meeting", "moved to", "friday"], detector: detector).isEmpty)
    }
}

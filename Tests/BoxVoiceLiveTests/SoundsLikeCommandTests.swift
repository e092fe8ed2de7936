import BoxVoiceLive
import Testing

/// The sounds-like matcher on a small pronunciation table (cmudict's phones for these words).
@Suite struct SoundsLikeCommandTests {
    static let phones: [String: [String]] = [
        "send": ["S", "EH", "N", "D"], "sun": ["S", "AH", "N"], "message": ["M", "EH", "S", "AH", "JH"],
        "and": ["AH", "N", "D"], "close": ["K", "L", "OW", "Z"], "clothes": ["K", "L", "OW", "DH", "Z"],
        "over": ["OW", "V", "ER"], "out": ["AW", "T"], "buy": ["B", "AY"], "milk": ["M", "IH", "L", "K"],
        "the": ["DH", "AH"], "massage": ["M", "AH", "S", "AA", "ZH"], "ten": ["T", "EH", "N"], "of": ["AH", "V"],
        "clubs": ["K", "L", "AH", "B", "Z"], "sent": ["S", "EH", "N", "T"], "a": ["AH"],
    ]
    let matcher = SoundsLikeCommand(phrases: ["send message", "send and close", "over and out"], pronunciations: phones)

    @Test func nearWordsAtTheEndAreHeardAsTheCommand() {
        #expect(matcher.match("buy milk sun message") == "send message")
        #expect(matcher.match("buy milk sun and close") == "send and close")
        #expect(matcher.match("sent a message") == "send message")
    }

    @Test func otherWordsOrACommandInsideTheTextAreNot() {
        #expect(matcher.match("ten of clubs") == nil)
        #expect(matcher.match("send message buy milk") == nil, "only the end of an utterance counts")
        #expect(matcher.match("the massage") == nil)
        #expect(matcher.match("") == nil)
        #expect(matcher.match("unknownword message") == nil, "a word without a pronunciation is not guessed")
    }

    /// Debian's dictionary (134,723 lines, not quite in order, with alternates): every word is found by its first
    /// pronunciation.
    @Test func theRealDictionaryIsSearched() throws {
        let real = try SoundsLikeCommand(phrases: ["send message", "over and out", "send and close"], dictionary: PocketSphinxModel.debianEnglish.dictionary)
        #expect(real.match("please buy milk sun message") == "send message")
        #expect(real.match("i'll see you later over an out") == "over and out")
        #expect(real.match("one's") == nil && real.match("the weather today is sunny") == nil)
    }
}

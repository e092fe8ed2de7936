import BoxVoiceLive
import EditDistance
import Testing

/// The sounds-like matcher on a small pronunciation table (cmudict's phones for these words).
@Suite struct SoundsLikeCommandTests {
    static let phones: [String: [String]] = [
        "send": ["S", "EH", "N", "D"], "sun": ["S", "AH", "N"], "message": ["M", "EH", "S", "AH", "JH"],
        "and": ["AH", "N", "D"], "close": ["K", "L", "OW", "Z"], "clothes": ["K", "L", "OW", "DH", "Z"],
        "over": ["OW", "V", "ER"], "out": ["AW", "T"], "buy": ["B", "AY"], "milk": ["M", "IH", "L", "K"],
        "the": ["DH", "AH"], "massage": ["M", "AH", "S", "AA", "ZH"], "ten": ["T", "EH", "N"], "of": ["AH", "V"],
        "clubs": ["K", "L", "AH", "B", "Z"], "sent": ["S", "EH", "N", "T"], "a": ["AH"], "now": ["N", "AW"],
    ]
    let matcher = SoundsLikeCommand(
        phrases: ["send message", "send and close", "over and out", "send now"], pronunciations: phones)

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
        let real = try SoundsLikeCommand(
            phrases: ["send message", "over and out", "send and close"],
            dictionary: PocketSphinxModel.debianEnglish.dictionary)
        #expect(real.match("please buy milk sun message") == "send message")
        #expect(real.match("i'll see you later over an out") == "over and out")
        #expect(real.match("one's") == nil && real.match("the weather today is sunny") == nil)
    }

    /// Through a telephone-band microphone the /s/ of the send command is gone: "and now" is then near enough, as it
    /// is not from a wideband one (where a lost /s/ is a real difference).
    @Test func aLostFricativeCostsHalfOnlyThroughANarrowbandMicrophone() {
        #expect(matcher.match("we can go there and now") == nil)
        #expect(matcher.match("we can go there and now", narrowband: true) == "send now")
        #expect(matcher.match("ten of clubs", narrowband: true) == nil, "fricatives forgiven, not whole words")
        #expect(matcher.match("the massage", narrowband: true) == nil)
    }

    @Test func theWeightedDistanceChargesEachPhoneItsCost() {
        let half: (String) -> Double = { ["S", "Z"].contains($0) ? 0.5 : 1 }
        #expect(editDistance(["S", "EH", "N", "D"], ["EH", "N", "D"], cost: half) == 0.5, "a lost /s/")
        #expect(editDistance(["Z"], ["D"], cost: half) == 0.5, "a mistaken /z/")
        #expect(editDistance(["T"], ["D"], cost: half) == 1)
        #expect(editDistance([String](), ["S", "D"], cost: half) == 1.5)
        #expect(editDistance(["S", "D"], [String](), cost: half) == 1.5)
        for (a, b) in [("kitten", "sitting"), ("", "abc"), ("flaw", "lawn"), ("same", "same")] {
            #expect(
                editDistance(Array(a), Array(b), cost: { _ in 1 }) == Double(editDistance(Array(a), Array(b))),
                "with unit costs: Levenshtein")
        }
    }
}

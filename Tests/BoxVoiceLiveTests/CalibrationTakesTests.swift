import BoxVoiceLive
import Testing

/// The takes are heard in one order whatever order they were given in: a decoder hearing them in sequence carries its
/// feature normalization over, so a different order gave different thresholds on the same takes.
@Suite struct CalibrationTakesTests {
    @Test func takesAreOrderedByPhraseWhateverOrderTheyCameIn() {
        let one: CalibrationTakes = ["stop listening": [[3]], "cancel message": [[1], [2]], "send message": [[4]]]
        let other = CalibrationTakes(["send message": [[4]], "stop listening": [[3]], "cancel message": [[1], [2]]])
        #expect(one == other)
        #expect(one.phrases.map(\.phrase) == ["cancel message", "send message", "stop listening"])
        #expect(one.all == [[1], [2], [4], [3]])
        #expect(one.count == 4)
    }

    @Test func aPhrasesOwnTakesAndEveryOtherPhrasesAreApart() {
        let takes: CalibrationTakes = ["cancel message": [[1], [2]], "send message": [[4]], "stop listening": [[3]]]
        #expect(takes.recordings(of: "cancel message") == [[1], [2]])
        #expect(takes.recordings(of: "over and out") == [], "a phrase without takes has none")
        #expect(takes.all(except: "send message") == [[1], [2], [3]])
        #expect(
            takes.mapRecordings { $0.map { $0 * 10 } }.all == [[10], [20], [40], [30]],
            "transformed in place, order kept")
        #expect(!takes.isEmpty && CalibrationTakes([:]).isEmpty)
    }
}

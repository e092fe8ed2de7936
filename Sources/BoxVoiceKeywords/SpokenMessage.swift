/// The words of a message being dictated, utterance by utterance, until a command ends it: what a dictation acts on
/// when it hears these utterances one after another. Calibration's trial and the bench both judge a decode by it, so
/// what they count is what `dictate` would do with the same words.
public struct SpokenMessage: Sendable, Equatable {
    /// The words heard since the last command.
    public private(set) var text = ""

    public init() {}

    /// Hears one more utterance. A command it completes (`KeywordDetector.detect(appending:to:)`, so one spoken across
    /// two utterances counts too) ends the message: it is returned and the next utterance starts a new message.
    /// Utterances without words change nothing.
    public mutating func hear(_ utterance: String, detector: KeywordDetector) -> KeywordMatch? {
        guard !utterance.isEmpty else { return nil }
        if let found = detector.detect(appending: utterance, to: text) {
            text = ""
            return found
        }
        text = text.isEmpty ? utterance : text + " " + utterance
        return nil
    }

    /// The commands acted on over `utterances` heard in order, each with the index of the utterance that ended in it.
    public static func commands(in utterances: [String], detector: KeywordDetector) -> [(
        utterance: Int, match: KeywordMatch
    )] {
        var message = SpokenMessage()
        return utterances.enumerated().compactMap { index, utterance in
            message.hear(utterance, detector: detector).map { (index, $0) }
        }
    }
}

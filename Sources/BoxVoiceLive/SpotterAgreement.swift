import BoxVoiceKeywords

/// Whether the command spotter heard the command Whisper wrote but left unsure. pocketsphinx's keyword search hears
/// with its own English acoustic model, so where both write the same command as it ends, that answers the one doubt
/// the spotter can speak to: whether English was said. It confirms only a command whose evidence would act
/// (`CommandDecision`), left unsure because Whisper judged the audio another language — accented English Whisper
/// mistakes for Finnish or Czech (`HeardPieces.Piece.unsureOnlyForTheLanguage`). A command under the act line is the
/// prompt's doing, not the language's: on the held-out French telephone prompts the spotter fired with one written
/// 0.18 sure, 0.001 without the prompt. Taken only where the hit and the command agree on the action and
/// the hit landed in the command's last moments (`tail`); a hit on another command, or earlier in the utterance,
/// confirms nothing (BENCHMARKS.md, "The spotter agreeing").
public struct SpotterAgreement: Sendable, Equatable {
    /// How long before the end of the piece that ends with the command a hit may land and still count. A command
    /// is the last words of its piece, so the spotter fires as it ends; the spotter's hits land up to 1.0 s before
    /// the utterance ends on true commands (`SpotTails.measured`).
    public var tail: Double
    /// How long after that end a hit may land: the piece's end is Whisper's estimate of where the command's last word
    /// ended, moved into the pause after it, and the spotter reports a phrase a few frames after it is said.
    public var after: Double

    public init(tail: Double, after: Double) {
        self.tail = tail
        self.after = after
    }

    /// Whether the spotter confirms `piece`'s command, ending at `end`: it was left unsure only for the language
    /// (`HeardPieces.Piece.unsureOnlyForTheLanguage`), and one of `hits` heard it.
    func confirms(
        _ piece: HeardPieces.Piece, endingAt end: Double, hits: [SpottedPhrase],
        action actionOf: (String) -> KeywordAction?
    ) -> Bool {
        guard piece.unsureOnlyForTheLanguage, let action = piece.action else { return false }
        return confirms(action, endingAt: end, hits: hits, action: actionOf)
    }

    /// Whether one of `hits` is the spotter hearing `action` as the piece ending at `end` ended; `action(of:)` says
    /// which command a spotter phrase means (nil: none).
    public func confirms(
        _ action: KeywordAction, endingAt end: Double, hits: [SpottedPhrase],
        action actionOf: (String) -> KeywordAction?
    ) -> Bool {
        hits.contains { hit in
            hit.end >= end - tail && hit.end <= end + after && actionOf(hit.phrase) == action
        }
    }
}

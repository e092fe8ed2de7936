import BoxVoiceKeywords

/// An utterance Whisper heard whole, cut into one piece per command it holds (each piece ends with its command) and
/// one for the words after the last, with how sure Whisper was of each command.
///
/// Over speech it does not know — Russian, Italian, French said into an English model given the command phrases as
/// its prompt — Whisper sometimes writes the send command where nobody said it, and then it is unsure of those words
/// (0.03–0.26 for their least likely token on the bench's foreign prompts), where a command a person said is written
/// with confidence (BENCHMARKS.md, "Hearing"). A command under the floor is not acted on by itself: the box is asked
/// (the second opinion), and without a yes its words are dropped from the text as not heard.
struct HeardPieces {
    struct Piece: Equatable {
        /// The piece as Whisper wrote it, its command included.
        var text: String
        /// The piece without an unsure command's words: what stays when the command is not confirmed.
        var recognized: String
        /// Whisper's command in this piece was under the floor.
        var unsure: Bool
        /// Index of the command's last word in the utterance's words; nil for the words after the last command.
        var lastCommandWord: Int?
    }

    /// - Parameters:
    ///   - words: the utterance's words as the live path takes them (`UtteranceEnds.plain`).
    ///   - places: where the commands are in the words joined by single spaces (`KeywordDetector.commandPlaces`).
    ///   - floor: the least probability every token of a command must have for it to count by itself.
    static func pieces(
        of words: [WhisperModel.TimedWord], places: (String) -> [KeywordDetector.Place], floor: Float
    ) -> [Piece] {
        let text = words.map(\.text).joined(separator: " ")
        guard !text.isEmpty else { return [] }
        var wordStarts: [Int] = []
        var offset = 0
        for word in words {
            wordStarts.append(offset)
            offset += word.text.count + 1
        }
        func offsetOf(_ index: String.Index) -> Int { text.distance(from: text.startIndex, to: index) }
        /// The words a range of the text touches.
        func wordsIn(_ range: Range<String.Index>) -> ClosedRange<Int>? {
            let lower = offsetOf(range.lowerBound), upper = offsetOf(range.upperBound)
            let touched = words.indices.filter { wordStarts[$0] < upper && wordStarts[$0] + words[$0].text.count > lower }
            guard let first = touched.first, let last = touched.last else { return nil }
            return first...last
        }
        var pieces: [Piece] = []
        var from = text.startIndex
        for place in places(text) {
            let piece = text[from..<place.end].trimmingCharacters(in: .whitespaces)
            let commandWords = wordsIn(place.words)
            let sureness = commandWords.map { range in range.map { words[$0].probability }.min() ?? 1 } ?? 1
            let unsure = sureness < floor
            // Only punctuation lies between a command's words and its piece's end.
            let before = text[from..<place.words.lowerBound].trimmingCharacters(in: .whitespaces)
            pieces.append(
                Piece(
                    text: piece, recognized: unsure ? before : piece, unsure: unsure,
                    lastCommandWord: commandWords?.upperBound))
            from = place.end
        }
        let rest = text[from...].trimmingCharacters(in: .whitespaces)
        if !rest.isEmpty { pieces.append(Piece(text: rest, recognized: rest, unsure: false, lastCommandWord: nil)) }
        return pieces
    }
}

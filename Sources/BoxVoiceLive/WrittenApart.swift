import BoxVoiceKeywords

/// Whisper writes some of the vocabulary's words as two: the contract's *nevermind* as "never mind", *checkpoint*
/// at times as "check point". The box's detector matches words whole, so the command said is not found. Two written
/// words are joined back into the vocabulary's one only where the join makes a command the words did not hold, so
/// ordinary speech ("never mind, I'll ring her") keeps Whisper's spelling.
struct WrittenApart: Sendable {
    /// The vocabulary's words of more than one syllable's letters, normalized: the only joins tried.
    let joinable: Set<String>
    /// How many commands a text holds (the contract's detector).
    let commandCount: @Sendable (String) -> Int

    /// - Parameters:
    ///   - vocabulary: every word the vocabulary's phrases use, normalized (`Vocabulary.words`).
    ///   - commandCount: how many commands a text holds.
    init(vocabulary: Set<String>, commandCount: @escaping @Sendable (String) -> Int) {
        // A word of four letters or fewer is a word of its own when written apart ("mic", "send"): no split of it
        // into two written words is one a recognizer makes.
        joinable = vocabulary.filter { $0.count > 4 }
        self.commandCount = commandCount
    }

    /// `words` with each pair written apart joined back where that adds a command.
    func joined(_ words: [WhisperModel.TimedWord]) -> [WhisperModel.TimedWord] {
        guard words.count >= 2, !joinable.isEmpty else { return words }
        var result = words
        var index = 0
        while index + 1 < result.count {
            guard let together = Self.together(result[index], result[index + 1]),
                joinable.contains(WordForm.normalize(together.text))
            else {
                index += 1
                continue
            }
            var candidate = result
            candidate.replaceSubrange(index...index + 1, with: [together])
            if commandCount(UtteranceEnds.text(candidate)) > commandCount(UtteranceEnds.text(result)) {
                result = candidate
            }
            index += 1
        }
        return result
    }

    /// The same for text without times (words parted by spaces).
    func joined(_ text: String) -> String {
        let words = text.split(whereSeparator: \.isWhitespace).map {
            WhisperModel.TimedWord(text: String($0), start: 0, end: 0)
        }
        return UtteranceEnds.text(joined(words))
    }

    /// The two words as one, when they can be one: the first ends in a letter (a comma or a full stop between them
    /// says they were said apart) and the second starts with one.
    static func together(
        _ first: WhisperModel.TimedWord, _ second: WhisperModel.TimedWord
    ) -> WhisperModel.TimedWord? {
        guard let last = first.text.last, last.isLetter, let initial = second.text.first, initial.isLetter else {
            return nil
        }
        let shortfall = first.promptFreeShortfall.flatMap { a in second.promptFreeShortfall.map { a + $0 } }
        return WhisperModel.TimedWord(
            text: first.text + second.text, start: first.start, end: max(first.end, second.end),
            probability: min(first.probability, second.probability),
            promptFreeShortfall: shortfall, tokenCount: first.tokenCount + second.tokenCount)
    }
}

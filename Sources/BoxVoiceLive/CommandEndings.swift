/// The command phrases a decoded utterance may have ended with instead of Whisper's last words: those they sound
/// like (`SoundsLikeCommand`, over every phrase the vocabulary takes), for Whisper to weigh against its own words
/// (`WhisperModel.Rewriting`). Only the last sentence's words are replaced, and only in words holding no command:
/// people pause after a command, so it ends its utterance, and a command Whisper wrote stands as written.
struct CommandEndings: Sendable {
    let sounds: SoundsLikeCommand
    let holdsCommand: @Sendable (String) -> Bool
    /// The most endings offered for one decode: each costs Whisper a decoder step per token.
    static let limit = 4

    /// The endings for `words` (as Whisper wrote them, punctuation kept) that sound alike, the closest first.
    func endings(_ words: [String]) -> [WhisperModel.Ending] {
        guard !words.isEmpty, !holdsCommand(words.joined(separator: " ")) else { return [] }
        let sentenceStart =
            (words.dropLast().lastIndex { $0.last.map { ".!?".contains($0) } ?? false }).map { $0 + 1 } ?? 0
        let sentence = words[sentenceStart...].joined(separator: " ")
        let close = sounds.tails(of: sentence).filter { $0.score <= sounds.tolerance }.sorted { $0.score < $1.score }
        var endings: [WhisperModel.Ending] = []
        for tail in close where endings.count < Self.limit {
            // Words that hold no letter (a lone dash) are not counted by the sound match; the count is of words.
            guard let keeping = Self.keeping(words, lastWords: tail.words), keeping >= sentenceStart else { continue }
            let ending = Self.written(tail.phrase, like: Array(words[keeping...]))
            if !endings.contains(where: { $0.keeping == keeping && $0.text == ending }) {
                endings.append(WhisperModel.Ending(keeping: keeping, text: ending))
            }
        }
        return endings
    }

    /// How many words stay before the last `lastWords` words that hold letters.
    static func keeping(_ words: [String], lastWords: Int) -> Int? {
        var counted = 0
        for index in words.indices.reversed() where words[index].contains(where: \.isLetter) {
            counted += 1
            if counted == lastWords { return index }
        }
        return nil
    }

    /// `phrase` written as the words it replaces were: a capital first letter if theirs had one, and their closing
    /// punctuation.
    static func written(_ phrase: String, like replaced: [String]) -> String {
        var text = phrase
        if replaced.first?.first(where: \.isLetter)?.isUppercase == true, let first = text.first {
            text = first.uppercased() + text.dropFirst()
        }
        if let last = replaced.last?.last, ".!?,".contains(last) { text.append(last) }
        return text
    }
}

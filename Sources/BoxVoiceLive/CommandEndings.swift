/// The command phrases a decoded utterance may have ended with instead of Whisper's last words: those they sound
/// like (`SoundsLikeCommand`, over every phrase the vocabulary takes), for Whisper to weigh against its own words
/// (`WhisperModel.Rewriting`). Only the last sentence's words are replaced, and only in words holding no command:
/// people pause after a command, so it ends its utterance, and a command Whisper wrote stands as written.
///
/// Where the last words hold one the pronunciation dictionary has no sound for ("Mikoff.", "Amort message."), their
/// letters are read instead (`SpelledAlike`, over every phrase the vocabulary takes): a phrase they spell is offered
/// too, after those that sound alike, and Whisper's weighing and the decision judge it the same way.
struct CommandEndings: Sendable {
    let sounds: SoundsLikeCommand
    let holdsCommand: @Sendable (String) -> Bool
    /// The spelling bounds for words the dictionary cannot say, and the phrases they are read against; nil: off.
    var spelling: (bounds: SpelledAlike, phrases: [String])? = nil
    /// The most endings offered for one decode: each costs Whisper a decoder step per token.
    static let limit = 4

    /// The endings for `words` (as Whisper wrote them, punctuation kept): those that sound alike, the closest
    /// first, then those spelled alike.
    func endings(_ words: [String]) -> [WhisperModel.Ending] {
        guard !words.isEmpty, !holdsCommand(words.joined(separator: " ")) else { return [] }
        let sentenceStart =
            (words.dropLast().lastIndex { $0.last.map { ".!?".contains($0) } ?? false }).map { $0 + 1 } ?? 0
        let sentence = words[sentenceStart...].joined(separator: " ")
        let close = sounds.tails(of: sentence).filter { $0.score <= sounds.tolerance }.sorted { $0.score < $1.score }
        let tails = close.map { (phrase: $0.phrase, words: $0.words) } + spelledTails(Array(words[sentenceStart...]))
        var endings: [WhisperModel.Ending] = []
        for tail in tails where endings.count < Self.limit {
            // Words that hold no letter (a lone dash) are not counted by the sound match; the count is of words.
            guard let keeping = Self.keeping(words, lastWords: tail.words), keeping >= sentenceStart else { continue }
            let ending = Self.written(tail.phrase, like: Array(words[keeping...]))
            if !endings.contains(where: { $0.keeping == keeping && $0.text == ending }) {
                endings.append(WhisperModel.Ending(keeping: keeping, text: ending))
            }
        }
        return endings
    }

    /// The phrases the sentence's last words spell, closest first, with how many words (of those holding letters)
    /// they replace: only runs holding a word the dictionary has no sound for.
    func spelledTails(_ sentence: [String]) -> [(phrase: String, words: Int)] {
        let lettered = sentence.filter { $0.contains(where: \.isLetter) }
        // Most sentences hold no word the dictionary cannot say: no phrase is aligned with them.
        guard let spelling, lettered.contains(where: { !sounds.knows($0) }) else { return [] }
        let letters = lettered.map { SpelledAlike.letters(Substring($0)) }
        let spelled = spelling.phrases.compactMap { phrase -> (phrase: String, words: Int, distance: Double)? in
            guard let run = spelling.bounds.spelledRun(of: phrase, endingWords: letters),
                lettered.suffix(run.words).contains(where: { !sounds.knows($0) })
            else { return nil }
            return (phrase, run.words, run.distance)
        }
        return spelled.sorted { $0.distance < $1.distance }.map { ($0.phrase, $0.words) }
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

import BoxVoiceKeywords
import Foundation

/// An utterance Whisper heard whole, cut into one piece per command it holds (each piece ends with its command) and
/// one for the words after the last, with how each command was decided.
///
/// A command is the utterance's last words, scored against the audio (`score(of:endShortfall:)`): weighed without the
/// command prompt, token by token, against what Whisper found likeliest there, the end of the text included. The
/// prompt is what makes Whisper write a command phrase over speech it cannot make out (French "au revoir" as the
/// close command); without it, those words fall far short of Whisper's own, where a command a person said is what
/// Whisper would write anyway. One decision (`CommandDecision`) weighs the score with how surely Whisper wrote the
/// words with the prompt (`sureness(of:)`): the command acts, is asked of the box, or is refused.
///
/// Whisper base, told to write English, translates: over French it can write the send command's words with the audio
/// behind them. A command in an utterance it judges foreign (`soundsForeign`, or written in the language it hears
/// without the command: `UtteranceEnds`) is unsure too.
struct HeardPieces {
    struct Piece: Equatable {
        /// The piece as Whisper wrote it, its command included.
        var text: String
        /// What was decided of the piece's command: it acts, the box is asked (its evidence under the act line, or
        /// said in an utterance judged foreign), or it is refused unasked. nil: the piece holds no command.
        var verdict: CommandDecision.Verdict? = nil
        /// Why the piece's command does not act by itself, with the figures that decided it.
        var doubt: CommandDoubt? { verdict?.doubt }
        /// The command needs the box's yes.
        var unsure: Bool { doubt != nil }
        /// An unsure command is worth asking the box about; false: it is refused unasked.
        var worthAsking: Bool { verdict?.worthAsking ?? true }
        /// How the piece's command was weighed (`sureness(of:)`, `score(of:endShortfall:)`, the utterance's
        /// language); nil for the words after the last command.
        var weighing: CommandWeighing? = nil
        /// The piece's command; nil for the words after the last command.
        var action: KeywordAction? = nil
        /// The piece without its command's words (the words after the last command: all of them).
        var withoutCommand: String
        /// Index of the command's last word in the utterance's words; nil for the words after the last command.
        var lastCommandWord: Int?

        /// The command's words as Whisper wrote them; nil for the words after the last command.
        var command: String? {
            guard lastCommandWord != nil else { return nil }
            return text.dropFirst(withoutCommand.count).trimmingCharacters(in: .whitespaces)
        }

        /// The piece without an unsure command's words: what stays when the command is not confirmed.
        var recognized: String { unsure ? withoutCommand : text }
    }

    /// - Parameters:
    ///   - words: the utterance's words as the live path takes them (`UtteranceEnds.plain`).
    ///   - places: where the commands are in the words joined by single spaces (`KeywordDetector.commandPlaces`).
    ///   - decision: how a command is decided on its `score`.
    ///   - english: how likely the utterance is English, where it was weighed so, and the language it likeliest is.
    ///   - foreign: the utterance was judged spoken in another language: its commands are unsure.
    ///   - endShortfall: the end of the text weighed after the words (`WhisperModel.Transcript`).
    static func pieces(
        of words: [WhisperModel.TimedWord], places: (String) -> [KeywordDetector.Place], decision: CommandDecision,
        english: Float? = nil, language: String? = nil, foreign: Bool = false, endShortfall: Float? = nil
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
            let touched = words.indices.filter {
                wordStarts[$0] < upper && wordStarts[$0] + words[$0].text.count > lower
            }
            guard let first = touched.first, let last = touched.last else { return nil }
            return first...last
        }
        var pieces: [Piece] = []
        var from = text.startIndex
        for place in places(text) {
            let piece = text[from..<place.end].trimmingCharacters(in: .whitespaces)
            let commandWords = wordsIn(place.words)
            let sure = commandWords.map { sureness(of: $0.map { words[$0] }) }
            let score = commandWords.flatMap { range in
                range.upperBound == words.count - 1
                    ? Self.score(of: range.map { words[$0] }, endShortfall: endShortfall) : nil
            }
            var verdict = decision.verdict(score: score.map(Double.init), sureness: Double(sure ?? 0))
            if verdict == .act, foreign {
                verdict = .ask(.foreign(language: language, english: english.map(Double.init)))
            }
            // Only punctuation lies between a command's words and its piece's end.
            let before = text[from..<place.words.lowerBound].trimmingCharacters(in: .whitespaces)
            pieces.append(
                Piece(
                    text: piece, verdict: verdict,
                    weighing: decision.weighing(
                        score: score, sureness: sure ?? 0, english: english, language: language),
                    action: place.action, withoutCommand: before, lastCommandWord: commandWords?.upperBound))
            from = place.end
        }
        let rest = text[from...].trimmingCharacters(in: .whitespaces)
        if !rest.isEmpty {
            pieces.append(Piece(text: rest, withoutCommand: rest, lastCommandWord: nil))
        }
        return pieces
    }

    /// Whether an utterance Whisper judged English by `english` is under the English `floor`: nil for either (not
    /// weighed, no floor) is no.
    static func soundsForeign(english: Float?, floor: Float?) -> Bool {
        guard let english, let floor else { return false }
        return english < floor
    }

    /// A command as the utterance's last words, against Whisper's own best words over the same audio: the mean, over
    /// the command's tokens and the end of the text after them, of how far each fell short of the token Whisper
    /// found likeliest there without the prompt (natural log, negated: 0 when Whisper would write exactly the
    /// command and stop; more negative the further the audio is from it). A likelihood ratio per token, so a long
    /// phrase and a short one are on one scale. nil when the words or the end were not weighed so.
    static func score(of words: [WhisperModel.TimedWord], endShortfall: Float?) -> Float? {
        guard let endShortfall, !words.isEmpty else { return nil }
        let shortfalls = words.compactMap(\.promptFreeShortfall)
        guard shortfalls.count == words.count else { return nil }
        let tokens = words.map(\.tokenCount).reduce(0, +) + 1
        return -(shortfalls.reduce(0, +) + endShortfall) / Float(tokens)
    }

    /// How sure Whisper was of a command: the geometric mean of its words' probabilities (each word's least likely
    /// token). One doubtful word in a phrase it wrote with confidence costs less than a phrase doubtful throughout,
    /// which is what a command written into speech Whisper does not know looks like.
    static func sureness(of words: [WhisperModel.TimedWord]) -> Float { geometricMean(words.map(\.probability)) }

    /// 1 for none; a probability under a millionth counts as a millionth.
    private static func geometricMean(_ probabilities: [Float]) -> Float {
        guard !probabilities.isEmpty else { return 1 }
        let logs = probabilities.map { log(Double(max($0, 1e-6))) }
        return Float(exp(logs.reduce(0, +) / Double(probabilities.count)))
    }
}

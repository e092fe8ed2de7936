import BoxVoiceKeywords
import Foundation

/// An utterance Whisper heard whole, cut into one piece per command it holds (each piece ends with its command) and
/// one for the words after the last, with how sure Whisper was of each command.
///
/// Over speech it does not know — Russian, Italian, French said into an English model given the command phrases as
/// its prompt — Whisper sometimes writes the send command where nobody said it, and then it is unsure of those words
/// (`sureness` 0.09–0.30 on the bench's foreign prompts), where a command a person said is written with more
/// confidence (0.38 and up on the development clips in noise, but for one at 0.13) (BENCHMARKS.md, "Hearing"). A
/// command under the floor is not acted on by itself: the box is asked (the second opinion), and without a yes its
/// words are dropped from the text as not heard.
///
/// Sureness alone does not catch them all: over French "au revoir" Whisper writes the close command with a sureness of
/// 0.36–0.77, as sure as of commands people say in noise. Weighed again without the prompt, those words are nearly
/// impossible (0.004–0.011 on the French and Russian prompts), where the commands said in the development clips keep
/// 0.022 and up outside the telephone band (`promptFreeSureness`): a command under the prompt-free floor is unsure
/// too. (Those figures are tiny.en's; Whisper base, which replaced it, gives 0.008 at most and 0.014 and up.)
///
/// Whisper base, told to write English, translates: over French it can write the send command's words with the audio
/// behind them. It also says how likely the utterance is English, and a command in an utterance it judges foreign
/// (`soundsForeign`, or written in the language it hears without the command: `UtteranceEnds`) is unsure too.
///
/// In audio it judges plainly English, lower pairs of floors apply (`LiveTranscriber.PlainEnglish`): there the
/// prompt's commands in unknown speech are not what the floors meet.
struct HeardPieces {
    struct Piece: Equatable {
        /// The piece as Whisper wrote it, its command included.
        var text: String
        /// Why the piece's command does not act by itself, with the figures that decided it: under the floor, under
        /// the prompt-free floor, or said in an utterance judged foreign. nil: it acts (or the piece holds none).
        var doubt: CommandDoubt? = nil
        /// The command needs the box's yes.
        var unsure: Bool { doubt != nil }
        /// The command cleared the floors that apply to it and is unsure only because the utterance was judged
        /// foreign: the one doubt the command spotter can answer (`SpotterAgreement`).
        var unsureOnlyForTheLanguage: Bool { if case .foreign = doubt { true } else { false } }
        /// How sure Whisper was of the piece's command (`sureness`); nil for the words after the last command.
        var sureness: Float? = nil
        /// How sure Whisper would have been of the command without the prompt (`promptFreeSureness`); nil when not
        /// weighed so.
        var promptFreeSureness: Float? = nil
        /// The command weighed as the utterance's last words against Whisper's own best words over the same audio,
        /// without the prompt (`score(of:endShortfall:)`); nil when not weighed so.
        var score: Float? = nil
        /// How likely Whisper found the utterance English (`WhisperModel.Transcript.englishProbability`); nil when
        /// not weighed so.
        var english: Float? = nil
        /// The language Whisper found likeliest for the utterance (`WhisperModel.Transcript.likeliestLanguage`).
        var language: String? = nil
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
    ///   - floor: the least `sureness` a command must have to count by itself.
    ///   - promptFreeFloor: the least `promptFreeSureness` it must also have, where its words were weighed so.
    ///   - english: how likely the utterance is English, where it was weighed so, and the language it likeliest is.
    ///   - plainEnglish: the floors a command in audio plainly English may clear instead (nil: none).
    ///   - foreign: the utterance was judged spoken in another language: its commands are unsure.
    static func pieces(
        of words: [WhisperModel.TimedWord], places: (String) -> [KeywordDetector.Place], floor: Float,
        promptFreeFloor: Float? = nil, english: Float? = nil, language: String? = nil,
        plainEnglish: LiveTranscriber.PlainEnglish? = nil, foreign: Bool = false, endShortfall: Float? = nil
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
            let promptFree = commandWords.flatMap { promptFreeSureness(of: $0.map { words[$0] }) }
            let score = commandWords.flatMap { range in
                range.upperBound == words.count - 1
                    ? Self.score(of: range.map { words[$0] }, endShortfall: endShortfall) : nil
            }
            let clears = Self.clears(
                sureness: sure, promptFreeSureness: promptFree, floor: floor, promptFreeFloor: promptFreeFloor)
            let clearsInEnglish =
                plainEnglish?.clears(sureness: sure, promptFreeSureness: promptFree, english: english) ?? false
            let clearsItsFloors = clears || clearsInEnglish
            let doubt: CommandDoubt? =
                if !clearsItsFloors, let sure, sure < floor {
                    .unsure(score: Double(sure), threshold: Double(floor))
                } else if !clearsItsFloors {
                    .promptMadeIt(score: Double(promptFree ?? 0), threshold: Double(promptFreeFloor ?? 0))
                } else if foreign {
                    .foreign(language: language, english: english.map(Double.init))
                } else {
                    nil
                }
            // Only punctuation lies between a command's words and its piece's end.
            let before = text[from..<place.words.lowerBound].trimmingCharacters(in: .whitespaces)
            pieces.append(
                Piece(
                    text: piece, doubt: doubt, sureness: sure,
                    promptFreeSureness: promptFree, score: score, english: english,
                    language: language, action: place.action, withoutCommand: before,
                    lastCommandWord: commandWords?.upperBound))
            from = place.end
        }
        let rest = text[from...].trimmingCharacters(in: .whitespaces)
        if !rest.isEmpty {
            pieces.append(Piece(text: rest, withoutCommand: rest, lastCommandWord: nil))
        }
        return pieces
    }

    /// Whether a command's weights reach a pair of floors: a weight not taken (nil) or a floor not set is no bar.
    static func clears(sureness: Float?, promptFreeSureness: Float?, floor: Float, promptFreeFloor: Float?) -> Bool {
        let promptMadeIt = promptFreeSureness.flatMap { free in promptFreeFloor.map { free < $0 } } ?? false
        return !(sureness.map { $0 < floor } ?? false) && !promptMadeIt
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

    /// `sureness` of the words as Whisper weighed them without the prompt; nil if any was not weighed so.
    static func promptFreeSureness(of words: [WhisperModel.TimedWord]) -> Float? {
        let free = words.compactMap(\.promptFreeProbability)
        guard free.count == words.count else { return nil }
        return geometricMean(free)
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

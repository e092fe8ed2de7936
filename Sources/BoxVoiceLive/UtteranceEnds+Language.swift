import BoxVoiceKeywords
import Foundation

/// The language checks: whether an utterance holding a command is English, or the command said in an accent.
extension UtteranceEnds {
    /// Told to write English, Whisper translates: Spanish *para enviar un mensaje* can come out as the send command,
    /// in audio it still judges English by more than the English floor (0.0029 on the bench's Spanish prompts, where
    /// English commands in noise go down to 0.0032). So a sure command in audio Whisper finds less likely English
    /// than `WhisperHearing.ownLanguageBelow`, and likeliest another language, is checked (`languageVerdict`: the
    /// languages Whisper hands unclear English to are left out of both):
    /// - The language is judged again over the seconds before the utterance too (`languageSeconds` in all): a command
    ///   said alone is a second of audio, too little to tell a language by (the development clips' *send checkpoint*
    ///   was judged Polish), and the message before it says what the speaker speaks. English there: it stands.
    /// - Otherwise the utterance is decoded again in that language, without the prompt: a command the speaker said
    ///   is written there too (nobody says *send message* in Spanish), a translation is not.
    /// Without the command there, or without an answer by `due` (the utterance's deadline), the utterance is judged
    /// foreign and its commands wait for the box.
    func inItsOwnLanguage(_ judged: Judged, cut: UtteranceCutter.Cut, due: Date) -> Judged {
        guard let below = settings.ownLanguageBelow, judged.holdsSureCommand, !judged.foreign,
            let languages = judged.decoded.languages,
            case .other(var language) = Self.languageVerdict(
                languages, englishBelow: below, leavingOut: settings.englishLookalikes)
        else { return judged }
        decodes.languageChecks += 1
        let foreign = self.judged(judged.decoded, foreign: true)
        if let lead = leadIn(for: cut) {
            decodes.language.add(lead.count + cut.heardCount)
            guard
                case .success(let wider) = worker.spokenLanguage(
                    of: lead + cut.heard, deadline: due.timeIntervalSinceNow),
                let widerLanguages = wider.languages
            else { return foreign }
            switch Self.languageVerdict(widerLanguages, englishBelow: below, leavingOut: settings.englishLookalikes) {
            case .english: return judged
            case .unjudged: return foreign
            case .other(let wider): language = wider
            }
        }
        decodes.ownLanguage.add(judged.decoded.audio.count)
        let own = worker.transcribe(
            judged.decoded.audio, prompt: nil, deadline: due.timeIntervalSinceNow, language: language)
        guard case .success(let transcript) = own else { return foreign }
        let ownSureness = HeardPieces.sureness(of: transcript.words)
        let ownText = Self.text(asTaken(transcript.words))
        decodes.inOwnLanguage.append((language, ownSureness))
        if holdsCommand(ownText) { return judged }
        return saidWithAnAccent(judged, ownSureness: ownSureness, due: due) ? judged : foreign
    }

    /// English said with an accent Whisper takes for another language comes out of the own-language check as words
    /// it can barely write (sureness 0.045–0.22 on the development sets' accents), where a translation comes out as
    /// that language's sentence, written surely (0.34 and up on real Spanish). Under `WhisperHearing.accentBelow`,
    /// the utterance is decoded once more in English without the prompt, as the box's second opinion hears it: the
    /// commands the speaker said are written there too, or sound alike at its end (`holds`); a command
    /// the prompt made over foreign speech is not (the held-out French telephone prompts' *Tu vas crocher ?*, written
    /// 0.12 sure, came out "I have a question.").
    func saidWithAnAccent(_ judged: Judged, ownSureness: Float, due: Date) -> Bool {
        guard let below = settings.accentBelow, ownSureness < below else { return false }
        let said = judged.sureActions
        guard !said.isEmpty else { return false }
        decodes.accent.add(judged.decoded.audio.count)
        guard
            case .success(let plain) = worker.transcribe(
                judged.decoded.audio, prompt: nil, deadline: due.timeIntervalSinceNow)
        else { return false }
        let text = Self.text(asTaken(plain.words))
        let holds = Self.holds(said, in: text, places: commandPlaces, sounds: sounds)
        decodes.inEnglishWithoutPrompt.append((holds, HeardPieces.sureness(of: plain.words)))
        return holds
    }

    /// Whether English `text` holds every command `said`: written there, or, for the one its last words sound like
    /// (`sounds`), said in an accent Whisper spells near the phrase ("same that checkpoint", "Send the check byte.").
    /// A command the prompt added that the text lacks keeps the utterance waiting.
    static func holds(
        _ said: Set<KeywordAction>, in text: String, places: (String) -> [KeywordDetector.Place],
        sounds: SoundsLikeCommand?
    ) -> Bool {
        var heard = Set(places(text).map(\.action))
        if let phrase = sounds?.match(text) { heard.formUnion(places(phrase).map(\.action)) }
        return !said.isEmpty && said.isSubset(of: heard)
    }

    /// What the own-language check takes an audio's language to be.
    enum LanguageVerdict: Equatable {
        /// English is likeliest, or at least as likely as the check's bound: a command in it stands.
        case english
        /// Another language is likeliest and English under the bound: a command is checked in that language.
        case other(String)
        /// No language is left to judge by.
        case unjudged
    }

    /// How the own-language check judges `languages`: among the languages not in `lookalikes`
    /// (`WhisperHearing.englishLookalikes`), English's share against `englishBelow` and the likeliest of them.
    static func languageVerdict(
        _ languages: SpokenLanguages, englishBelow: Float, leavingOut lookalikes: Set<String>
    ) -> LanguageVerdict {
        let others = languages.leavingOut(lookalikes)
        guard let likeliest = others.likeliest else { return .unjudged }
        return likeliest == "en" || others.share(of: "en") >= englishBelow ? .english : .other(likeliest)
    }

    /// Seconds of audio a command's language is judged over, with what was heard before its utterance.
    static let languageSeconds = 8.0

    /// The audio heard just before `cut`, to make it `languageSeconds` long; nil when none is kept.
    func leadIn(for cut: UtteranceCutter.Cut) -> [Float]? {
        Self.leadRange(for: cut, kept: recentStart..<(recentStart + recent.count)).map {
            Array(recent[($0.lowerBound - recentStart)..<($0.upperBound - recentStart)])
        }
    }

    /// The stream samples `leadIn(for:)` gives (nil: none), of those `kept`.
    static func leadRange(for cut: UtteranceCutter.Cut, kept: Range<Int>) -> Range<Int>? {
        let rate = Double(WhisperModel.sampleRate)
        let first = Int((cut.end * rate).rounded()) - cut.samples.count
        let wanted = Int(languageSeconds * rate) - cut.samples.count
        let from = max(kept.lowerBound, first - wanted)
        guard wanted > 0, first > from, first <= kept.upperBound else { return nil }
        return from..<first
    }
}

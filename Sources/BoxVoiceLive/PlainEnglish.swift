extension LiveTranscriber {
    /// Lower floors for a command Whisper wrote in audio it judges plainly English.
    ///
    /// The sureness and prompt-free floors (`WhisperHearing.commandFloor`, `promptFreeFloor`) were set against the
    /// commands Whisper writes into speech it does not know, heard through a prompt of command phrases: French
    /// "au revoir" as the close command. On the real streams, every command Whisper wrote at least 0.45 sure came from
    /// foreign audio it judged English by 0.0058 or less; those in audio at least 0.3 English were 0.16 sure at most.
    /// On the development clips' synthetic English voices, Whisper also wrote commands the speakers said with
    /// confidence (sureness 0.45–0.9) whose words it found unlikely once the prompt was taken away (0.001–0.011), and
    /// less surely ones it still found likely without the prompt (0.25–0.31 sure, 0.05–0.34 without it); the floors
    /// left all of those for the box.
    ///
    /// So in audio at least `english` English (the bound under which the own-language check runs), a command that
    /// clears any one of `floors` acts. The wrong commands Whisper wrote into the development clips' English audio
    /// were 0.39 sure at most and 0.010 or less without the prompt; English prompts in babble at 10 dB SNR gave a
    /// false microphone-off command at sureness 0.30 and 0.022 without the prompt (0.97 English), which a pair of
    /// 0.2 and 0.011 let act (rejected) and the pair of 0.25 and 0.04 does not (BENCHMARKS.md, "Plain English").
    public struct PlainEnglish: Sendable, Equatable {
        /// The least share of English (`SpokenLanguages.share(of:)`) the utterance must have.
        public var english: Float
        /// Pairs of floors, either of which a command may clear.
        public var floors: [Floors]

        /// The least sureness (`HeardPieces.sureness`) a command must have, and the least prompt-free sureness
        /// (`HeardPieces.promptFreeSureness`), where it was weighed so.
        public struct Floors: Sendable, Equatable {
            public var sureness: Float
            public var promptFree: Float

            public init(sureness: Float, promptFree: Float) {
                self.sureness = sureness
                self.promptFree = promptFree
            }
        }

        public init(english: Float, floors: [Floors]) {
            self.english = english
            self.floors = floors
        }

        /// As measured on development sets d–h and held-out set i (BENCHMARKS.md, "Plain English", "Less sure in
        /// plain English"): a sure command nearly impossible without the prompt, or a less sure one that stays
        /// likely without it.
        public static let measured = PlainEnglish(
            english: 0.3,
            floors: [Floors(sureness: 0.45, promptFree: 0.001), Floors(sureness: 0.25, promptFree: 0.04)])

        /// Whether a command of this sureness, in an utterance this likely English, clears one of these pairs. An
        /// utterance whose language was not weighed does not.
        func clears(sureness: Float?, promptFreeSureness: Float?, english: Float?) -> Bool {
            guard let english, english >= self.english else { return false }
            return floors.contains {
                HeardPieces.clears(
                    sureness: sureness, promptFreeSureness: promptFreeSureness, floor: $0.sureness,
                    promptFreeFloor: $0.promptFree)
            }
        }
    }
}

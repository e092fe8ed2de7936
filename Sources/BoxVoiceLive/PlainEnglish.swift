extension LiveTranscriber {
    /// A lower prompt-free floor for a command Whisper wrote with confidence in audio it judges plainly English.
    ///
    /// The prompt-free floor (`WhisperHearing.promptFreeFloor`) was set against the commands Whisper writes into
    /// speech it does not know, heard through a prompt of command phrases: French "au revoir" as the close command.
    /// On the real streams, every command Whisper wrote at least 0.45 sure came from foreign audio it judged English
    /// by 0.0058 or less; those in audio at least 0.3 English were 0.16 sure at most. On the development clips'
    /// synthetic English voices, Whisper also wrote commands the speakers said with confidence (sureness 0.45–0.9)
    /// whose words it found unlikely once the prompt was taken away (0.001–0.011), and the floor left those for the
    /// box.
    ///
    /// So in audio at least `english` English (the bound under which the own-language check runs), a command at least
    /// `sureness` sure needs only `promptFree` without the prompt. The wrong commands Whisper wrote into the
    /// development clips' English audio were all less sure (0.39 at most). A lower sureness floor as well was tried
    /// and rejected: English prompts in babble at 10 dB SNR got "Turn off the
    /// microphone." at sureness 0.30 (0.022 without the prompt, 0.97 English), and it acted (BENCHMARKS.md, "Plain
    /// English").
    public struct PlainEnglish: Sendable, Equatable {
        /// The least share of English (`SpokenLanguages.share(of:)`) the utterance must have.
        public var english: Float
        /// The least sureness (`HeardPieces.sureness`) the command must have.
        public var sureness: Float
        /// The prompt-free floor for such a command (`HeardPieces.promptFreeSureness`), where it was weighed so.
        public var promptFree: Float

        public init(english: Float, sureness: Float, promptFree: Float) {
            self.english = english
            self.sureness = sureness
            self.promptFree = promptFree
        }

        /// As measured on development sets d–h: 12 more of their 720 command runs heard, none wrong; held-out set i
        /// 91 → 92 of 144, none wrong.
        public static let measured = PlainEnglish(english: 0.3, sureness: 0.45, promptFree: 0.001)

        /// Whether a command of this sureness, in an utterance this likely English, clears these floors. An utterance
        /// whose language was not weighed does not.
        func clears(sureness: Float?, promptFreeSureness: Float?, english: Float?) -> Bool {
            guard let english, english >= self.english else { return false }
            return HeardPieces.clears(
                sureness: sureness, promptFreeSureness: promptFreeSureness, floor: self.sureness,
                promptFreeFloor: promptFree)
        }
    }
}

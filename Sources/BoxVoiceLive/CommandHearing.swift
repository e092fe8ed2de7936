import BoxVoiceKeywords

extension LiveTranscriber.Options {
    /// Options for hearing this vocabulary's commands: the spotter's hit counts only where the recognizer's own
    /// words do not name a different command. `cleaned`: through the speexdsp front end (the user's setting).
    public static func hearing(
        _ detector: KeywordDetector, spotterPhrases: String?, dictionaryCache: String?, frontEnd: FrontEndUse = .auto,
        adaptation: String? = nil, whisper: LiveTranscriber.WhisperHearing? = nil
    ) -> Self {
        var options = Self(spotterPhrases: spotterPhrases)
        options.whisper = whisper
        options.model.adaptation = adaptation
        options.frontEnd = frontEnd == .off ? nil : SpeechFrontEnd.Settings()
        options.frontEndOnlyInNoise = frontEnd == .auto
        options.dictionaryCache = dictionaryCache
        options.hearsSoundAlikes = true
        // A command is what the speaker ends on: words that end a text (`KeywordDetector.endingPlace`).
        options.holdsCommand = { detector.endingPlace(in: $0) != nil }
        options.commandPlaces = { detector.endingPlace(in: $0).map { [$0] } ?? [] }
        options.vocabulary = detector.vocabulary
        options.discards = { phrase in [.erase, .cancel].contains(detector.detect(phrase)?.action) }
        options.sameCommand = { recognized, phrase in
            guard let spotted = detector.detect(phrase)?.action else { return true }
            return detector.detect(recognized)?.action == spotted
        }
        return options
    }
}

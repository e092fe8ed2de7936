/// What a recognizer reports as audio flows in.
public enum RecognizerEvent: Sendable, Equatable {
    /// The running hypothesis for the utterance in progress.
    case partial(String)
    /// A finished utterance (or a spotted phrase) and where it ends, in seconds from the start of the stream.
    case final(text: String, end: Double)
}

/// A streaming recognizer: feed 16 kHz mono 16-bit samples, get partial and final text with positions.
public protocol LiveRecognizer: AnyObject {
    func feed(_ samples: [Int16]) throws -> [RecognizerEvent]
    /// Ends the stream, closing any utterance in progress.
    func finish() throws -> [RecognizerEvent]
}

/// pocketsphinx with its language model; utterance ends come from its own speech/silence detection.
public final class PocketSphinxRecognizer: LiveRecognizer {
    private let decoder: PocketSphinxDecoder
    private var fed: Int64 = 0
    private var inSpeech = false
    private var lastPartial = ""

    public init(model: PocketSphinxModel = .debianEnglish) throws {
        decoder = try PocketSphinxDecoder(model: model)
        try decoder.start()
    }

    private var seconds: Double { Double(fed) / Double(PocketSphinxDecoder.sampleRate) }

    public func feed(_ samples: [Int16]) throws -> [RecognizerEvent] {
        var events: [RecognizerEvent] = []
        // Steps of 100 ms place speech/silence transitions within that.
        for start in stride(from: 0, to: samples.count, by: 1_600) {
            let chunk = Array(samples[start..<min(start + 1_600, samples.count)])
            fed += Int64(chunk.count)
            try decoder.process(chunk)
            let speaking = decoder.inSpeech
            if speaking {
                let partial = decoder.hypothesis
                if partial != lastPartial, !partial.isEmpty {
                    lastPartial = partial
                    events.append(.partial(partial))
                }
            } else if inSpeech {
                // Speech just ended: the utterance is final.
                let text = try decoder.end()
                try decoder.start()
                lastPartial = ""
                events.append(.final(text: text, end: seconds))
            }
            inSpeech = speaking
        }
        return events
    }

    public func finish() throws -> [RecognizerEvent] {
        let text = try decoder.end()
        inSpeech = false
        return text.isEmpty ? [] : [.final(text: text, end: seconds)]
    }
}

/// pocketsphinx in keyword-search mode over a list of command phrases, each with its own threshold
/// (`phrase /threshold/` per line, Models/command-spotter.en.txt). Each spotted phrase is a final event.
public final class CommandSpotter: LiveRecognizer {
    private let decoder: PocketSphinxDecoder
    private var fed: Int64 = 0

    public init(phrases: String, model: PocketSphinxModel = .debianEnglish) throws {
        decoder = try PocketSphinxDecoder(model: model, keyphrases: phrases)
        try decoder.start()
    }

    public func feed(_ samples: [Int16]) throws -> [RecognizerEvent] {
        var events: [RecognizerEvent] = []
        for start in stride(from: 0, to: samples.count, by: 1_600) {
            let chunk = Array(samples[start..<min(start + 1_600, samples.count)])
            fed += Int64(chunk.count)
            try decoder.process(chunk)
            let heard = decoder.hypothesis.trimmingCharacters(in: .whitespaces)
            if !heard.isEmpty {
                // Reset the search so the next occurrence is counted afresh.
                try decoder.end()
                try decoder.start()
                events.append(.final(text: heard, end: Double(fed) / Double(PocketSphinxDecoder.sampleRate)))
            }
        }
        return events
    }

    public func finish() throws -> [RecognizerEvent] {
        try decoder.end()
        let heard = decoder.hypothesis.trimmingCharacters(in: .whitespaces)
        return heard.isEmpty ? [] : [.final(text: heard, end: Double(fed) / Double(PocketSphinxDecoder.sampleRate))]
    }
}

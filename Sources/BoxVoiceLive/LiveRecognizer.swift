import Foundation

/// What a recognizer reports as audio flows in.
public enum RecognizerEvent: Sendable, Equatable {
    /// The running hypothesis for the utterance in progress.
    case partial(String)
    /// A finished utterance (or a spotted phrase) and where it ends, in seconds from the start of the stream.
    case final(text: String, end: Double)
}

/// 100 ms steps: speech/silence transitions and spotted phrases are placed within that.
func steps(_ samples: [Int16]) -> [[Int16]] {
    stride(from: 0, to: samples.count, by: 1_600).map { Array(samples[$0..<min($0 + 1_600, samples.count)]) }
}

/// A streaming recognizer: feed 16 kHz mono 16-bit samples, get partial and final text with positions.
public protocol LiveRecognizer: AnyObject {
    func feed(_ samples: [Int16]) throws -> [RecognizerEvent]
    /// Ends the stream, closing any utterance in progress.
    func finish() throws -> [RecognizerEvent]
    /// Closes the utterance in progress now (a key was pressed) and keeps listening.
    func endUtterance() throws -> [RecognizerEvent]
    /// Whether an utterance is open: speech was detected and has not ended.
    var inUtterance: Bool { get }
    /// Adapts the decoders' feature normalization to audio, as decoding it would, and keeps nothing else of it.
    func prime(_ samples: [Int16]) throws
}

/// pocketsphinx with its language model; utterance ends come from its own speech/silence detection.
public final class PocketSphinxRecognizer: LiveRecognizer {
    private let decoder: PocketSphinxDecoder
    /// Where the decoder goes when this recognizer is done, and under what (nil: it is freed).
    private let pooled: (pool: DecoderPool, key: String)?
    private var fed: Int64 = 0
    private var inSpeech = false
    private var lastPartial = ""

    /// - Parameter dictionaryCache: where the dictionary cut to the language model's words is kept between runs;
    ///   nil makes it afresh in a temporary folder. If it cannot be made, the full dictionary is used (same
    ///   hypotheses, more memory). With a cache, the decoder is taken from and given back to `pool`
    ///   (`DecoderPool`): a decoder built from a temporary cut could never be asked for again.
    ///   - activeHMMLimit: the most HMMs the search keeps alive per frame (pocketsphinx's `-maxhmmpf`); nil keeps
    ///     pocketsphinx's own limit (30,000).
    ///   - secondPass: pocketsphinx's flat-lexicon pass over each ended utterance (`-fwdflat`), which re-scores
    ///     every frame of it (`LiveTranscriber.Options.languageModelSecondPass` says where it is off).
    public convenience init(
        model: PocketSphinxModel = .debianEnglish, dictionaryCache: String? = nil, activeHMMLimit: Int? = nil,
        secondPass: Bool = true
    ) throws {
        try self.init(
            model: model, dictionaryCache: dictionaryCache, activeHMMLimit: activeHMMLimit, secondPass: secondPass,
            pool: .languageModel)
    }

    init(
        model: PocketSphinxModel, dictionaryCache: String?, activeHMMLimit: Int?, secondPass: Bool, pool: DecoderPool
    ) throws {
        let folder = try dictionaryCache ?? PrivateTemporaryFolder.make("lm-dictionary")
        defer { if dictionaryCache == nil { try? FileManager.default.removeItem(atPath: folder) } }
        let limited = model.limitedToLanguageModelWords(keptIn: folder)
        let arguments = Self.searchArguments(activeHMMLimit: activeHMMLimit, secondPass: secondPass)
        pooled = dictionaryCache == nil ? nil : DecoderPool.key(limited, arguments: arguments).map { (pool, $0) }
        decoder =
            try pooled.flatMap { $0.pool.take($0.key) }
            ?? PocketSphinxDecoder(
                model: limited, extraArguments: arguments)
        try decoder.start()
    }

    deinit {
        if let pooled { pooled.pool.give(decoder, as: pooled.key) }
    }

    /// pocketsphinx's arguments for the search `init` describes, for a decoder made by hand to hear as this one does.
    public static func searchArguments(activeHMMLimit: Int?, secondPass: Bool) -> [String] {
        (activeHMMLimit.map { ["-maxhmmpf", String($0)] } ?? []) + (secondPass ? [] : ["-fwdflat", "no"])
    }

    private var seconds: Double { Double(fed) / Double(PocketSphinxDecoder.sampleRate) }

    public var inUtterance: Bool { inSpeech }

    public func feed(_ samples: [Int16]) throws -> [RecognizerEvent] {
        var events: [RecognizerEvent] = []
        for chunk in steps(samples) {
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

    public func prime(_ samples: [Int16]) throws {
        try decoder.adaptNormalization(to: samples)
    }

    public func endUtterance() throws -> [RecognizerEvent] {
        let text = try decoder.end()
        try decoder.start()
        inSpeech = false
        lastPartial = ""
        return text.isEmpty ? [] : [.final(text: text, end: seconds)]
    }
}

/// pocketsphinx in keyword-search mode over the command phrases of a list file (`phrase /threshold/` per line,
/// Models/command-spotter.en.txt). Phrases in one keyword search compete: the first to fire resets the search, so a
/// short phrase can pre-empt a longer one that shares its first word. Blank-line
/// separated groups therefore get a decoder each; each spotted phrase is a final event.
public final class CommandSpotter: LiveRecognizer {
    private let decoders: [PocketSphinxDecoder]
    private var fed: Int64 = 0

    /// - Parameters:
    ///   - narrowband: with the list's thresholds for a band-limited microphone (`SpotterPhrase.narrowbandThreshold`).
    ///   - position: seconds of the stream already heard before this spotter (one swapped in mid-stream reports its
    ///     hits on the stream's clock).
    public init(
        phrases: String, model: PocketSphinxModel = .debianEnglish, narrowband: Bool = false, position: Double = 0
    ) throws {
        fed = Int64((position * Double(PocketSphinxDecoder.sampleRate)).rounded())
        let listed = try SpotterPhrases.load(phrases)
        let groups = Dictionary(grouping: listed, by: \.group).sorted { $0.key < $1.key }.map {
            $0.value.map { narrowband ? $0.narrowbandLine : $0.line }
        }
        let folder = try PrivateTemporaryFolder.make("spotter")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Each decoder holds its dictionary in memory; the phrases need a few dozen of its 130,000 words, so the
        // spotter loads only those (about 50 MB less per decoder).
        var small = model
        small.dictionary = folder + "/phrases.dict"
        try Self.dictionary(for: groups.joined(), from: model.dictionary).write(
            toFile: small.dictionary, atomically: true, encoding: .utf8)
        decoders = try groups.enumerated().map { index, group in
            let list = folder + "/group-\(index).txt"
            try (group.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
            let decoder = try PocketSphinxDecoder(model: small, keyphrases: list)
            try decoder.start()
            return decoder
        }
    }

    /// The lines of the pronunciation dictionary (alternates included) for the words of `phrases` lines.
    static func dictionary(for phrases: some Sequence<String>, from path: String) throws -> String {
        var words = Set<Substring>()
        for phrase in phrases {
            for word in phrase.prefix(while: { $0 != "/" }).split(separator: " ") {
                words.insert(Substring(word.lowercased()))
            }
        }
        return try phraseLines.value(of: path, key: words.sorted().joined(separator: " ")) {
            try PronunciationDictionary.subset(of: path, keeping: words)
        }
    }

    private static let phraseLines = ModelFileMemo<String>()

    private var seconds: Double { Double(fed) / Double(PocketSphinxDecoder.sampleRate) }

    public func feed(_ samples: [Int16]) throws -> [RecognizerEvent] {
        var events: [RecognizerEvent] = []
        for chunk in steps(samples) {
            fed += Int64(chunk.count)
            for decoder in decoders {
                try decoder.process(chunk)
                let heard = decoder.hypothesis.trimmingCharacters(in: .whitespaces)
                if !heard.isEmpty {
                    // Reset the search so the next occurrence is counted afresh.
                    try decoder.end()
                    try decoder.start()
                    events.append(.final(text: heard, end: seconds))
                }
            }
        }
        return events
    }

    public func finish() throws -> [RecognizerEvent] {
        var events: [RecognizerEvent] = []
        for decoder in decoders {
            try decoder.end()
            let heard = decoder.hypothesis.trimmingCharacters(in: .whitespaces)
            if !heard.isEmpty { events.append(.final(text: heard, end: seconds)) }
        }
        return events
    }

    public func prime(_ samples: [Int16]) throws {
        for decoder in decoders { try decoder.adaptNormalization(to: samples) }
    }

    /// A spotted phrase is final the moment it fires: nothing is held back.
    public func endUtterance() throws -> [RecognizerEvent] { [] }

    /// The spotter has no utterances of its own: each hit stands alone.
    public var inUtterance: Bool { false }
}

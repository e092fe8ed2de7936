import BoxVoiceAudio
import BoxVoiceKeywords
import Foundation

/// The live recognition path: 48 kHz Float32 in, resampled to 16 kHz, decoded by pocketsphinx with its language
/// model (utterance ends from its own speech/silence detection) while a second decoder spots command phrases in
/// keyword-search mode. A spotted phrase the language model's text does not already hold is written into that
/// utterance's text, so the contract's keyword detector — not a second rule set — decides the action.
public final class LiveTranscriber {
    var options: Options
    let language: LiveRecognizer?
    private var spotter: LiveRecognizer?
    /// Judges the microphone's band (`Options.followsInputBand`).
    private var band: InputBand?
    /// Whether the spotter's phrases list thresholds for a band-limited microphone to switch to.
    private let spotterHasNarrowband: Bool
    private var spotterIsNarrowband = false
    private var bandCarry: [Int16] = []
    /// The last seconds the decoders heard, to prime a spotter swapped in mid-stream with.
    private var recentHeard: [Int16] = []
    private let resampler: Resampler
    private let frontEnd: SpeechFrontEnd?
    /// Judges the room when the front end cleans only in noise.
    private var room: RoomNoise?
    /// The opening audio as it came in, beside `priming` (cleaned), until the room is first judged.
    private var primingRaw: [Int16] = []
    private var fed: Int64 = 0
    /// Samples taken at the input rate, before any resampling: where the stream ends, to the sample.
    private var received: Int64 = 0
    private var pendingSpots: [SpotterHit] = []
    let evidence: CommandEvidence
    /// Hears the speaker pause (`Options.commandPauseSeconds`), from what the recognizers hear.
    private var speakerPause = SpeakerPause()
    /// The end of the last chunk that did not fill a 20 ms frame.
    private var pauseCarry: [Int16] = []
    /// The opening audio, held until there is enough to prime the decoders with (nil once primed).
    var priming: [Int16]? = []
    /// An utterance held until the speaker has paused after its command (`Options.spottedCommandHold`).
    private var held: CommandHold?
    /// The utterance-end road (`Options.whisper`).
    let ends: UtteranceEnds?
    /// pocketsphinx's utterances since the last utterance end the VAD cut: what stands in if Whisper misses it.
    var standIns: [LiveUtterance] = []

    public init(options: Options) throws {
        self.options = options
        language =
            options.useLanguageModel
            ? try PocketSphinxRecognizer(
                model: options.model, dictionaryCache: options.dictionaryCache, activeHMMLimit: options.activeHMMLimit,
                secondPass: options.secondPassIsOn)
            : nil
        spotter = try options.spotting.map { try CommandSpotter(phrases: $0, model: options.model) }
        evidence = try CommandEvidence(options)
        guard language != nil || spotter != nil || options.whisper != nil else {
            throw PocketSphinxError(
                operation: "configuring", detail: "neither the language model nor the spotter is on")
        }
        resampler = try Resampler(from: AudioRate.perSecond, to: Double(PocketSphinxDecoder.sampleRate))
        ends = try options.whisper.map {
            try UtteranceEnds(
                settings: $0, holdsCommand: options.holdsCommand, commandPlaces: options.commandPlaces,
                vocabulary: options.vocabulary, dictionary: options.model.dictionary)
        }
        frontEnd = try self.options.frontEnd.map { try SpeechFrontEnd(settings: $0) }
        room = self.options.frontEnd != nil && options.frontEndOnlyInNoise ? RoomNoise() : nil
        spotterHasNarrowband =
            try options.spotting.map { try SpotterPhrases.load($0).contains { $0.narrowbandThreshold != nil } }
            ?? false
        // The band only picks the spotter's and the sound-alikes' thresholds: where neither listens, it is not judged.
        band = options.followsInputBand && options.spotting != nil ? InputBand() : nil
    }

    /// Whether the microphone is judged band-limited now (the spotter then uses its narrowband thresholds).
    public var hearsNarrowband: Bool { band?.isNarrow ?? false }

    /// Whether the recognizers hear the audio cleaned now.
    public var cleansNow: Bool { frontEnd != nil && (room?.cleans ?? true) }

    /// Position of what has been fed, in seconds.
    public var seconds: Double { Double(fed) / Double(PocketSphinxDecoder.sampleRate) }

    /// The decodes asked of Whisper so far, by why (nil: the utterance-end road is off).
    public var whisperDecodes: WhisperDecodes? { ends?.decodes }

    /// Feeds 48 kHz mono Float32.
    public func feed(_ samples: [Float]) throws -> [LiveUpdate] {
        received += Int64(samples.count)
        let heard = try resampler.process(samples)
        return ends == nil ? try feed16k(heard) : try feed16k(heard) + hearEnds(heard)
    }

    /// Decides every ended utterance now, waiting for Whisper's words (each up to its deadline). For audio fed
    /// faster than it was spoken (a file): there hearing goes on far ahead of Whisper, the wall-clock deadline runs
    /// out on utterances still queued, and the stand-in's words would be measured instead of Whisper's.
    public func decideWaiting() -> [LiveUpdate] { ends == nil ? [] : decideInOrder(all: true) }

    /// Ends the stream: flushes the resampler and closes the utterance in progress.
    public func finish() throws -> [LiveUpdate] {
        options.primeSeconds = 0  // whatever was held back for priming is decoded now
        guard let ends else {
            let updates = try feed16k(try resampler.flush())
            // The stream ended after the command: nothing went on.
            let closed = closing(spotted: try spotter?.finish() ?? [], heard: try language?.finish() ?? [])
            return endingAtStreamEnd(updates + release() + closed + release())
        }
        let tail = try resampler.flush()
        var updates = try feed16k(tail) + hearEnds(tail)
        updates += closing(spotted: try spotter?.finish() ?? [], heard: try language?.finish() ?? [])
        ends.finish().forEach(waitForWords)
        updates += decideInOrder(all: true)
        // Words pocketsphinx made of what the VAD never took for speech are noise.
        standIns = []
        return endingAtStreamEnd(updates)
    }

    /// The last utterance, when its speech ran into the end of the stream, ends where the stream does: the
    /// recognizers' ends are rounded to their frames and windows, and a message ending with it keeps every sample
    /// up to its command (the input ended there).
    private func endingAtStreamEnd(_ updates: [LiveUpdate]) -> [LiveUpdate] {
        let streamEnd = Double(received) / AudioRate.perSecond
        guard let last = updates.lastIndex(where: { if case .utterance = $0 { true } else { false } }),
            case .utterance(var utterance) = updates[last], streamEnd - utterance.end < Self.endsWithStream
        else {
            return updates
        }
        utterance.end = max(utterance.end, streamEnd)
        var updated = updates
        updated[last] = .utterance(utterance)
        return updated
    }

    /// How close to the stream's end an utterance's end must be to count as running into it (less than the quiet
    /// either recognizer needs to end an utterance itself).
    static let endsWithStream = 0.25

    /// The utterances ended and not yet decided, in order: a late decode holds up only the utterances after it, never
    /// the hearing of the audio, and never hands its utterance to another recognizer before `due`.
    var undecided: [Undecided] = []

    /// Closes the utterance in progress now, without waiting for silence (Enter was pressed), and keeps listening.
    public func endUtterance() throws -> [LiveUpdate] {
        var updates: [LiveUpdate] = []
        if priming != nil {
            // Enter before the priming audio filled up: decode what there is now.
            let wanted = options.primeSeconds
            options.primeSeconds = 0
            updates = try feed16k([])
            options.primeSeconds = wanted
        }
        // The user ended the utterance: a command held for the pause after it counts now.
        updates += release() + closing(heard: try language?.endUtterance() ?? []) + release()
        guard let ends else { return updates }
        let cuts = ends.finish()
        cuts.forEach(waitForWords)
        // What was said before the key is decided before the key acts.
        updates += decideInOrder(all: true)
        if !cuts.isEmpty { return updates }
        // The user ended words the VAD did not take for speech: pocketsphinx's text is all there is of them.
        defer { standIns = [] }
        return updates + standIns.map { .utterance($0) }
    }

    private func feed16k(_ samples: [Float]) throws -> [LiveUpdate] {
        var pcm = samples.map(SampleSanitizer.int16)
        if band != nil { judgeBand(pcm) }
        var raw: [Int16] = []
        if let frontEnd {
            if room != nil {
                (raw, pcm) = frontEnd.processKeepingRaw(pcm)
                if priming == nil { pcm = chooseByRoom(raw: raw, cleaned: pcm) }
            } else {
                pcm = frontEnd.process(pcm)
            }
        }
        if let waiting = priming {
            // The decoders' cepstral mean starts from the model's defaults; a first pass over the opening seconds
            // adapts it to this microphone and voice before anything is decoded for real.
            let wanted = Int(options.primeSeconds * Double(PocketSphinxDecoder.sampleRate))
            priming = waiting + pcm
            if room != nil { primingRaw += raw }
            guard priming!.count >= wanted else { return [] }
            pcm = priming!
            if room != nil {
                // The opening seconds decide how the room is first heard, all of them the same way.
                for start in stride(
                    from: 0, to: primingRaw.count - SpeechFrontEnd.frameSamples + 1, by: SpeechFrontEnd.frameSamples)
                {
                    room!.add(frameLevel: RoomNoise.level(primingRaw[start..<start + SpeechFrontEnd.frameSamples]))
                }
                room!.judge()
                if !room!.cleans { pcm = primingRaw }
                primingRaw = []
            }
            // Exactly the opening `primeSeconds` (however the audio was chunked), then everything is decoded.
            let opening = Array(pcm.prefix(max(wanted, 0)))
            band?.judge()
            try useSpotterForBand(primedWith: [])
            try language?.prime(opening)
            try spotter?.prime(opening)
            priming = nil
        }
        try useSpotterForBand(primedWith: recentHeard)
        if spotterHasNarrowband { recentHeard = Array((recentHeard + pcm).suffix(Self.recentSamples)) }
        fed += Int64(pcm.count)
        // The levels first: a hit in this chunk is then stamped with how long the speaker had been quiet, and a held
        // command is judged on the frames before anything later is given.
        var updates: [LiveUpdate] = []
        if options.commandPauseSeconds != nil { updates += hearLevels(pcm) }
        let spotted = try spotter?.feed(pcm) ?? []
        let heard = try language?.feed(pcm) ?? []
        updates += combine(spotted: spotted, heard: heard)
        if let pause = options.commandPauseSeconds { updates += try endAtPause(lasting: pause) }
        return updates
    }

    /// Feeds the speaker's pause whole 20 ms frames of what the recognizers hear, and a held command what they tell
    /// of the speaker: the held utterance once it is decided.
    private func hearLevels(_ pcm: [Int16]) -> [LiveUpdate] {
        var verdict = CommandHold.Verdict.waiting
        Self.wholeFrames(of: pcm, carry: &pauseCarry) { frame in
            speakerPause.add(frameLevel: RoomNoise.level(frame))
            guard held != nil, verdict == .waiting else { return }
            verdict = held!.hear(quiet: speakerPause.lastFrameIsQuiet)
        }
        if verdict == .refused, let hold = held {
            held = nil
            return [.utterance(hold.utterance.refusingSpottedCommand)]
        }
        if let hold = held, hold.expired(at: seconds) { return release() }
        return []
    }

    /// Gives the held utterance, its command standing.
    private func release() -> [LiveUpdate] {
        defer { held = nil }
        return held.map { [.utterance($0.utterance)] } ?? []
    }

    /// Gives an utterance the language model closed, or holds it while its command waits for the speaker's pause.
    private func deliver(_ utterance: LiveUtterance) -> [LiveUpdate] {
        if ends != nil {
            // The utterance-end road decides what is said; pocketsphinx's utterance waits as its stand-in.
            standIns.append(utterance)
            return []
        }
        // Another utterance closing while one is held: the earlier one is given first, its command standing (the
        // pause detector heard no speech going on).
        var updates = release()
        if let rule = options.spottedCommandHold, options.commandPauseSeconds != nil, CommandHold.holds(utterance) {
            held = CommandHold(utterance, rule: rule, quietNow: speakerPause.quietSeconds > 0)
            updates.append(.holding(utterance))
        } else {
            updates.append(.utterance(utterance))
        }
        return updates
    }

    /// Calls `body` with each whole 20 ms frame of `carry + pcm`, keeping the rest in `carry` for the next chunk.
    private static func wholeFrames(of pcm: [Int16], carry: inout [Int16], _ body: (ArraySlice<Int16>) -> Void) {
        let frames = carry + pcm
        var start = 0
        while start + SpeechFrontEnd.frameSamples <= frames.count {
            body(frames[start..<start + SpeechFrontEnd.frameSamples])
            start += SpeechFrontEnd.frameSamples
        }
        carry = Array(frames[start...])
    }

    /// Ends the utterance holding a spotter hit once the speaker has paused after it, when the language model's
    /// speech detector has not (noise it takes for speech keeps its utterance open).
    private func endAtPause(lasting pause: Double) throws -> [LiveUpdate] {
        guard let hit = pendingSpots.last, let language, language.inUtterance, speakerPause.quietSeconds >= pause,
            seconds - speakerPause.quietSeconds >= hit.end - Self.pauseLead
        else { return [] }
        return closing(heard: try language.endUtterance())
    }

    /// How long before the spotter fired the pause may have begun: it fires a little after the phrase's end.
    static let pauseLead = 0.5

    /// Feeds the band judgement whole 20 ms frames of the audio as it came in.
    private func judgeBand(_ pcm: [Int16]) {
        Self.wholeFrames(of: pcm, carry: &bandCarry) { band!.add(frame: $0) }
    }

    /// How much recent audio a spotter swapped in mid-stream is primed with: 2 s, as at the start.
    static let recentSamples = 2 * PocketSphinxDecoder.sampleRate

    /// Swaps the spotter for the one with the other thresholds when the band judgement changed. Its search starts
    /// afresh (a phrase half-heard when the judgement flips is lost), its feature normalization primed on `recent`.
    private func useSpotterForBand(primedWith recent: [Int16]) throws {
        guard spotterHasNarrowband, let band, band.isNarrow != spotterIsNarrowband, let phrases = options.spotting
        else { return }
        let swapped = try CommandSpotter(
            phrases: phrases, model: options.model, narrowband: band.isNarrow, position: seconds)
        if !recent.isEmpty { try swapped.prime(recent) }
        spotter = swapped
        spotterIsNarrowband = band.isNarrow
    }

    /// Frame by frame, the audio as it came in or as cleaned, as the room is judged at that frame.
    private func chooseByRoom(raw: [Int16], cleaned: [Int16]) -> [Int16] {
        var heard = cleaned
        for start in stride(from: 0, to: raw.count, by: SpeechFrontEnd.frameSamples) {
            let frame = start..<min(start + SpeechFrontEnd.frameSamples, raw.count)
            room!.add(frameLevel: RoomNoise.level(raw[frame]))
            if !room!.cleans { heard.replaceSubrange(frame, with: raw[frame]) }
        }
        return heard
    }

    /// Spotted phrases wait for the language model's next utterance end, which takes those its text lacks.
    private func combine(spotted: [RecognizerEvent], heard: [RecognizerEvent]) -> [LiveUpdate] {
        var updates: [LiveUpdate] = []
        for case .final(let phrase, let end) in spotted {
            if language == nil {
                // The spotter alone (measuring it): each hit is its utterance, given at once.
                updates.append(
                    .utterance(
                        LiveUtterance(
                            text: phrase, recognized: "",
                            spots: [SpottedPhrase(phrase: phrase, end: end, accepted: true)], end: end)))
            } else {
                pendingSpots.append(
                    SpotterHit(
                        phrase: phrase, end: end,
                        quietBefore: options.commandPauseSeconds == nil ? nil : speakerPause.quietSeconds))
            }
        }
        for event in heard {
            switch event {
            case .partial(let text):
                // What follows a held utterance is not shown before it (the next partial after it is).
                if held == nil { updates.append(.partial(text)) }
            case .final(let text, let end):
                // Noise the detector took for speech ends an "utterance" with no words: nothing to show.
                if text.isEmpty && pendingSpots.isEmpty { continue }
                updates += deliver(close(recognized: text, end: end))
            }
        }
        return updates
    }

    /// The last events of an utterance ended now (the stream ended, a key was pressed, the speaker paused): hits the
    /// spotter made after the language model's last words still count, as an utterance of their own.
    func closing(spotted: [RecognizerEvent] = [], heard: [RecognizerEvent]) -> [LiveUpdate] {
        var updates = combine(spotted: spotted, heard: heard)
        if !pendingSpots.isEmpty { updates += deliver(close(recognized: "", end: seconds)) }
        return updates
    }

    private func close(recognized: String, end: Double) -> LiveUtterance {
        defer { pendingSpots.removeAll() }
        return evidence.utterance(recognized: recognized, hits: pendingSpots, end: end, narrowband: hearsNarrowband)
    }
}

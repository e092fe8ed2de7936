import CPocketSphinx
import Foundation

/// Where pocketsphinx finds its model: acoustic model folder, language model, pronunciation dictionary.
public struct PocketSphinxModel: Sendable, Equatable {
    public var acousticModel: String
    public var languageModel: String
    public var dictionary: String
    /// An MLLR transform of the acoustic model's means for one voice and microphone (`AcousticAdaptation`, made by
    /// `boxvoice calibrate`); nil hears with the model as shipped.
    public var adaptation: String?

    public init(acousticModel: String, languageModel: String, dictionary: String, adaptation: String? = nil) {
        self.acousticModel = acousticModel
        self.languageModel = languageModel
        self.dictionary = dictionary
        self.adaptation = adaptation
    }

    /// Debian's `pocketsphinx-en-us` package.
    public static let debianEnglish = PocketSphinxModel(
        acousticModel: "/usr/share/pocketsphinx/model/en-us/en-us",
        languageModel: "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin",
        dictionary: "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict")
}

extension PocketSphinxModel {
    /// The words the language model can produce (its unigrams). A dictionary word outside them is never part of a
    /// hypothesis, so a decoder needs no pronunciation for it.
    public func languageModelWords() throws -> [String] {
        guard FileManager.default.fileExists(atPath: languageModel) else {
            throw PocketSphinxError(
                operation: "loading the language model",
                detail: "\(languageModel) is missing; install the Debian package pocketsphinx-en-us")
        }
        PocketSphinxDecoder.silenceLogs()
        guard let logmath = logmath_init(1.0001, 0, 0) else {
            throw PocketSphinxError(operation: "loading the language model", detail: "logmath_init failed")
        }
        defer { logmath_free(logmath) }
        guard let model = ngram_model_read(nil, languageModel, NGRAM_AUTO, logmath) else {
            throw PocketSphinxError(
                operation: "loading the language model",
                detail: "\(languageModel) is not a language model sphinxbase can read")
        }
        defer { ngram_model_free(model) }
        guard let counts = ngram_model_get_counts(model) else { return [] }
        return (0..<Int32(counts[0])).compactMap { ngram_word(model, $0).map { String(cString: $0) } }
    }
}

/// A failure reported by pocketsphinx.
public struct PocketSphinxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let operation: String
    public let detail: String
    public var description: String { "speech recognizer: \(operation) failed (\(detail))" }
}

/// A pocketsphinx decoder over 16 kHz mono 16-bit audio. This file is the only place that imports the
/// pocketsphinx C module. Not thread-safe: one owner at a time.
public final class PocketSphinxDecoder {
    public static let sampleRate = 16_000
    private let decoder: OpaquePointer
    private var inUtterance = false
    /// Audio was fed since the utterance started (`adaptNormalization` needs a decoder that has heard none).
    private var heardInUtterance = false

    /// Loads the model (a second or so for Debian's en-us), with pocketsphinx's log off (`silenceLogs`).
    /// - Parameter keyphrases: a keyword-search list (`phrase /threshold/` per line) to spot instead of decoding
    ///   with the language model.
    public init(model: PocketSphinxModel = .debianEnglish, keyphrases: String? = nil, extraArguments: [String] = [])
        throws
    {
        for path in [model.acousticModel, model.languageModel, model.dictionary] + (keyphrases.map { [$0] } ?? [])
        where !FileManager.default.fileExists(atPath: path) {
            throw PocketSphinxError(
                operation: "loading the model",
                detail: "\(path) is missing; install the Debian package pocketsphinx-en-us")
        }
        if let adaptation = model.adaptation, !FileManager.default.fileExists(atPath: adaptation) {
            throw PocketSphinxError(
                operation: "loading the model",
                detail: "the voice adaptation \(adaptation) is missing; run boxvoice calibrate again")
        }
        let search = keyphrases.map { ["-kws", $0] } ?? ["-lm", model.languageModel]
        let adapted = model.adaptation.map { ["-mllr", $0] } ?? []
        let arguments =
            ["boxvoice", "-hmm", model.acousticModel] + search + ["-dict", model.dictionary]
            + adapted + extraArguments
        Self.silenceLogs()
        var cStrings = arguments.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        let config = cStrings.withUnsafeMutableBufferPointer { buffer in
            cmd_ln_parse_r(nil, ps_args(), Int32(buffer.count), buffer.baseAddress, 1)
        }
        guard let config else {
            throw PocketSphinxError(operation: "configuring", detail: "the arguments were refused")
        }
        defer { cmd_ln_free_r(config) }
        guard let created = ps_init(config) else {
            throw PocketSphinxError(
                operation: "loading the model", detail: "ps_init returned nothing for \(model.acousticModel)")
        }
        decoder = created
        if let features = ps_get_feat(created), let state = normalization {
            pristine = (features.pointee.cmn, state)
        }
    }

    deinit { ps_free(decoder) }

    /// The kind of cepstral normalization and its running state as `ps_init` left them (`resetForReuse`).
    private var pristine: (kind: cmn_type_t, state: Normalization)?

    /// Puts the decoder back as `ps_init` left it, for another owner to hear with as with a new one
    /// (`DecoderPoolTests`). What an utterance leaves behind for the next is the running cepstral mean, and the kind
    /// of normalization (live decoding turns the model's batch mean into a running one); a new stream clears the
    /// front end's noise estimate and sample count; the search, the voice-activity detector and the feature buffers
    /// start afresh with every utterance.
    func resetForReuse() throws {
        if inUtterance { try end() }
        guard ps_start_stream(decoder) >= 0 else {
            throw PocketSphinxError(operation: "starting a stream", detail: "ps_start_stream")
        }
        heardInUtterance = false
        guard let pristine else { return }
        guard let features = ps_get_feat(decoder), let state = features.pointee.cmn_struct,
            Int(state.pointee.veclen) == pristine.state.mean.count
        else {
            throw PocketSphinxError(operation: "resetting the normalization", detail: "no cepstral normalization")
        }
        features.pointee.cmn = pristine.kind
        for index in pristine.state.mean.indices {
            state.pointee.cmn_mean[index] = pristine.state.mean[index]
            state.pointee.sum[index] = pristine.state.sum[index]
        }
        state.pointee.nframe = Int32(pristine.state.frames)
    }

    /// Turns sphinxbase's log off, for every thread: it logs to stderr unless told otherwise. Its log is one global
    /// stream, so a decoder must not be given a log file of its own (`-logfn`): each new one closed the stream
    /// another thread's decoder was writing to, which crashed the test process (two transcribers built at once).
    static func silenceLogs() { _ = logsSilenced }

    private static let logsSilenced: Void = err_set_logfp(nil)

    /// Starts an utterance.
    public func start() throws {
        guard ps_start_utt(decoder) >= 0 else {
            throw PocketSphinxError(operation: "starting an utterance", detail: "ps_start_utt")
        }
        inUtterance = true
        heardInUtterance = false
    }

    /// Feeds 16 kHz mono samples.
    public func process(_ samples: [Int16]) throws {
        heardInUtterance = true
        let rc = samples.withUnsafeBufferPointer { ps_process_raw(decoder, $0.baseAddress, $0.count, 0, 0) }
        guard rc >= 0 else {
            throw PocketSphinxError(operation: "decoding audio", detail: "ps_process_raw returned \(rc)")
        }
    }

    /// Adapts the decoder's running cepstral mean to `samples` as decoding them as an utterance would, without the
    /// search: the mean is the only thing an utterance leaves behind for the next one, and the search over it is
    /// what costs (for the language model, about a seventh of a core per second of audio). The cepstra come from
    /// the decoder's own front end and go through sphinxbase's own live normalization, frame by frame in the same
    /// order, then the utterance is ended as `end()` ends one, which takes the new mean: `PrimingTests` pins the
    /// means and the decodes after them equal to a searched priming's. A model whose features are normalized
    /// otherwise (no running mean, gain control, variance normalization) is primed by searching, as before. Needs a
    /// decoder between utterances, as `start()` leaves it.
    public func adaptNormalization(to samples: [Int16]) throws {
        if !inUtterance { try start() }
        guard !heardInUtterance else {
            throw PocketSphinxError(
                operation: "adapting the feature normalization", detail: "the decoder is inside an utterance")
        }
        guard let frontEnd = ps_get_fe(decoder), let features = ps_get_feat(decoder) else {
            throw PocketSphinxError(operation: "adapting the feature normalization", detail: "no front end")
        }
        guard features.pointee.cmn != CMN_NONE, features.pointee.agc == AGC_NONE, features.pointee.varnorm == 0 else {
            for chunk in steps(samples) { try process(chunk) }
            try end()
            try start()
            return
        }
        // What sphinxbase does to the first frames fed live: the model's `current` mean becomes a running one.
        features.pointee.cmn = CMN_LIVE
        let normalization = features.pointee.cmn_struct
        let width = Int(fe_get_output_size(frontEnd))
        let capacity = 256
        var block = [mfcc_t](repeating: 0, count: capacity * width)
        block.withUnsafeMutableBufferPointer { cepstra in
            var rows = (0..<capacity).map { Optional(cepstra.baseAddress! + $0 * width) }
            rows.withUnsafeMutableBufferPointer { rows in
                samples.withUnsafeBufferPointer { pcm in
                    var next = pcm.baseAddress
                    var left = pcm.count
                    while left > 0 {
                        var frames = Int32(capacity)
                        let before = left
                        fe_process_frames(frontEnd, &next, &left, rows.baseAddress, &frames, nil)
                        cmn_live(normalization, rows.baseAddress, 0, frames)
                        if frames == 0 && left == before { break }
                    }
                }
                var last: Int32 = 0
                fe_end_utt(frontEnd, rows[0], &last)
                cmn_live(normalization, rows.baseAddress, 0, last)
            }
        }
        // An utterance with no frames left: ending it takes the mean from what was summed above.
        try end()
        try start()
    }

    /// sphinxbase's running cepstral normalization: the mean the next utterance is normalized with, and the sum and
    /// frame count it is taken from.
    struct Normalization: Equatable {
        var mean: [Float]
        var sum: [Float]
        var frames: Int
    }

    var normalization: Normalization? {
        guard let state = ps_get_feat(decoder)?.pointee.cmn_struct?.pointee else { return nil }
        let width = Int(state.veclen)
        return Normalization(
            mean: Array(UnsafeBufferPointer(start: state.cmn_mean, count: width)),
            sum: Array(UnsafeBufferPointer(start: state.sum, count: width)), frames: Int(state.nframe))
    }

    /// The best hypothesis so far (partial while the utterance runs).
    public var hypothesis: String {
        var score: Int32 = 0
        return ps_get_hyp(decoder, &score).map { String(cString: $0) } ?? ""
    }

    /// Whether the decoder's voice-activity detector currently hears speech.
    public var inSpeech: Bool { ps_get_in_speech(decoder) != 0 }

    /// Ends the utterance and returns its final text.
    @discardableResult
    public func end() throws -> String {
        guard inUtterance else { return hypothesis }
        inUtterance = false
        guard ps_end_utt(decoder) >= 0 else {
            throw PocketSphinxError(operation: "ending an utterance", detail: "ps_end_utt")
        }
        return hypothesis
    }

    /// How strongly a keyword search spotted its phrase, on the scale its thresholds are compared on.
    public struct SpotStrength: Comparable, Sendable {
        let score: Int32
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.score < rhs.score }
    }

    /// The strongest spot of a keyword search's phrase in one recording (fed in live-sized pieces), nil if the
    /// search's own threshold spotted nothing. A threshold no more lenient than the search's spots the phrase in
    /// this recording exactly when `strength(of:)` of it is at most this: the search's path through the audio does
    /// not depend on the threshold, which only decides which of its scores count as spots. So one decode at the most
    /// lenient threshold a caller needs answers for every stricter one, which is what makes tuning a threshold cheap.
    public func strongestSpot(in samples: [Int16]) throws -> SpotStrength? {
        try start()
        for chunk in steps(samples) { try process(chunk) }
        try end()
        var strongest: Int32?
        var segment = ps_seg_iter(decoder)
        while let current = segment {
            let probability = ps_seg_prob(current, nil, nil, nil)
            strongest = max(strongest ?? probability, probability)
            segment = ps_seg_next(current)
        }
        return strongest.map { SpotStrength(score: $0) }
    }

    /// A keyword threshold (`/1e-20/` in a list) on the scale of `strongestSpot`. pocketsphinx's keyword search turns
    /// the threshold into its senone-score scale (log base 1.0001, shifted by 10 bits) and reports a spot's score
    /// less a constant 1,500 (`SENSCR_SHIFT`, `KWS_MAX` in its source, not its headers): `SpotStrengthTests` checks
    /// this against a decode at each threshold, so a library that changes them fails a test, not a calibration.
    public func strength(of threshold: Double) -> SpotStrength {
        SpotStrength(score: (logmath_log(ps_get_logmath(decoder), threshold) >> 10) - 1_500)
    }

    /// Decodes a whole recording as one utterance, handed over at once (`full_utt`): its cepstral mean is taken over
    /// the recording itself, so the text depends on this recording alone — not on what the decoder heard before, as a
    /// live utterance's running estimate does. What an HQ service transcribing files one by one needs.
    public func transcribe(_ samples: [Int16]) throws -> String {
        try start()
        let rc = samples.withUnsafeBufferPointer { ps_process_raw(decoder, $0.baseAddress, $0.count, 0, 1) }
        guard rc >= 0 else {
            throw PocketSphinxError(operation: "decoding audio", detail: "ps_process_raw returned \(rc)")
        }
        return try end()
    }
}

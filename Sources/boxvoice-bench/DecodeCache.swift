import BoxVoiceLive
import Foundation

/// Keeps each live decode of the real-speech bench on disk, keyed by the audio and the spotter phrases it was decoded
/// with, so a rule tried on the same inputs costs milliseconds instead of another half hour of decoding. It lives in
/// the bench's work folder, which `make bench` makes fresh: a cached decode is only ever reused by a hand-run bench
/// on the same build (the CPU seconds it reports are those measured when it was decoded).
struct DecodeCache {
    let folder: String

    init(work: String) throws {
        folder = work + "/decodes"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// The decode of `samples` with `options`, from disk when the same audio was decoded with the same phrases.
    /// - Parameters:
    ///   - phrasesFile: the spotter phrase file `options` names (its text is part of the key).
    ///   - hearing: how `options` hears the audio (raw, cleaned, …): part of the key.
    func decode(_ samples: [Float], options: LiveTranscriber.Options, phrasesFile: String, hearing: String) throws
        -> (utterances: [LiveUtterance], cpuSeconds: Double)
    {
        var phrases = (try? String(contentsOfFile: phrasesFile, encoding: .utf8)) ?? phrasesFile
        // A decode that does not follow the microphone's band never reads the narrowband thresholds.
        if !options.followsInputBand { phrases = phrases.replacing(try Regex(" narrowband /[^/]*/"), with: "") }
        let key = String(
            format: "%016llx-%016llx-%@", Self.fingerprint(samples), Self.fingerprint(Array(phrases.utf8)), hearing)
        let path = folder + "/" + key + ".json"
        if let data = FileManager.default.contents(atPath: path),
            let stored = try? JSONDecoder().decode(Stored.self, from: data)
        {
            return (stored.utterances.map(\.utterance), stored.cpuSeconds)
        }
        let decoded = try LiveDecode.run(samples, options: options)
        let stored = Stored(utterances: decoded.utterances.map(Stored.Utterance.init), cpuSeconds: decoded.cpuSeconds)
        try JSONEncoder().encode(stored).write(to: URL(fileURLWithPath: path), options: .atomic)
        return (decoded.utterances, decoded.cpuSeconds)
    }

    /// FNV-1a over the bytes: enough to tell inputs apart within one bench's work folder.
    static func fingerprint<T>(_ values: [T]) -> UInt64 {
        values.withUnsafeBytes { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
            return hash
        }
    }

    private struct Stored: Codable {
        struct Spot: Codable {
            var phrase: String
            var end: Double
            var accepted: Bool
            var quietBefore: Double?
        }

        struct Utterance: Codable {
            var text: String
            var recognized: String
            var spots: [Spot]
            var end: Double
            /// Absent from decodes made before the live path judged the microphone's band.
            var narrowband: Bool?
            /// Absent from decodes made before a spotted command waited for the speaker's pause.
            var speechWentOn: Bool?

            init(_ utterance: LiveUtterance) {
                text = utterance.text
                recognized = utterance.recognized
                spots = utterance.spots.map {
                    Spot(phrase: $0.phrase, end: $0.end, accepted: $0.accepted, quietBefore: $0.quietBefore)
                }
                end = utterance.end
                narrowband = utterance.narrowband
                speechWentOn = utterance.speechWentOn
            }

            var utterance: LiveUtterance {
                LiveUtterance(
                    text: text, recognized: recognized,
                    spots: spots.map {
                        SpottedPhrase(
                            phrase: $0.phrase, end: $0.end, accepted: $0.accepted, quietBefore: $0.quietBefore)
                    }, end: end,
                    narrowband: narrowband ?? false, speechWentOn: speechWentOn ?? false)
            }
        }

        var utterances: [Utterance]
        var cpuSeconds: Double
    }
}

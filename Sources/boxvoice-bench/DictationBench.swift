import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceStore
import Foundation
import Synchronization

/// Keyword-free sample clips, repeated to fill a recording of any length.
private let fillerClips = [
    "none-weather.wav", "none-budget.wav", "none-table.wav", "none-garden.wav", "none-rms-coffee.wav",
    "none-awb-meeting.wav", "none-slt-books.wav", "none-kal-car.wav",
]

/// Writes `seconds` of speech (keyword-free clips with half-second gaps) ending in a spoken send.
func speechRecording(seconds: Double, samples: String, path: String) throws {
    let file = try SoundFile.createFloatWAV(path: path)
    let gap = [Float](repeating: 0, count: 24_000)
    let closing = try SoundFile.open(path: samples + "/send-buy-milk.wav").readAll()
    let fillers = try fillerClips.map { try SoundFile.open(path: samples + "/" + $0).readAll() }
    var written = 0
    var next = 0
    while Double(written + closing.count) < seconds * AudioRate.perSecond {
        let clip = fillers[next % fillers.count]
        try file.write(clip)
        try file.write(gap)
        written += clip.count + gap.count
        next += 1
    }
    try file.write(closing)
    try file.close()
}

private func now() -> Double { Date().timeIntervalSince1970 }

/// `boxvoice-bench dictation`: the latency from the end of the spoken send to the box's 200, for recordings of
/// several lengths fed at real-time pace, against a box whose HQ takes 2 s per segment — with segments uploaded as
/// they close (boxvoice) and with every upload held until the send (the baseline), in the same run.
func benchDictation(models: String, samples: String, lengths: [Double]) throws {
    let work = NSTemporaryDirectory() + "boxvoice-dictation-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: work) }
    let detector = try KeywordDetector(contentsOf: models + "/speech-keywords.en.txt")
    var rows: [String] = []
    var headline = (ours: 0.0, base: 0.0)
    for length in lengths {
        let clip = work + "/recording-\(Int(length)).wav"
        try speechRecording(seconds: length, samples: samples, path: clip)
        var latency: [Bool: (seconds: Double, segments: Int)] = [:]
        for pipelined in [true, false] {
            let data = work + "/run-\(Int(length))-\(pipelined)"
            var boxConfiguration = BoxSimConfiguration(
                dataDirectory: data + "/box", hq: .slow(2), hqText: "Please buy milk and eggs.")
            boxConfiguration.defaultSession = "s1"
            let box = try BoxSimServer(configuration: boxConfiguration)
            defer { box.stop() }
            let client = BoxClient(baseURL: box.baseURL, token: try pairedToken(box))
            let store = try MessageStore(directory: data + "/store")
            var configuration = DictationSession.Configuration(
                box: "bench", client: client, session: "s1",
                spotterPhrases: models + "/command-spotter.en.txt")
            configuration.uploadWhileRecording = pipelined
            configuration.once = true
            let log = EventLog()
            let session = DictationSession(configuration: configuration, detector: detector, store: store) {
                log.add($0)
            }
            try session.run(pcm: PacedCapturePCM(WAVCapturePCM(path: clip)), stop: StopSignal())
            guard let measured = log.latency() else {
                throw BenchFailure(message: "no spoken send was delivered for the \(Int(length)) s recording")
            }
            latency[pipelined] = measured
        }
        let ours = latency[true]!, base = latency[false]!
        if length == lengths.max() { headline = (ours.seconds, base.seconds) }
        rows.append(
            "| \(describe(length)) | \(ours.segments) | \(format(ours.seconds)) s | \(format(base.seconds)) s | "
                + "\(format(base.seconds / ours.seconds))× |"
        )
    }
    let longest = lengths.max() ?? 0
    print(
        """
        ### From the spoken send to the box's 200

        <!-- headline: a \(describe(longest)) dictation reaches the box \(format(headline.ours)) s after the spoken \
        send, \(format(headline.base)) s when every upload waits for the send: \
        \(format(headline.base / headline.ours))× -->

        A recording of keyword-free sample speech ending in a spoken send, fed at real-time pace through the capture \
        path into `DictationSession`, boxsim on loopback with every HQ call taking 2 s (`--hq slow:2`). From the \
        end of the send's utterance to the box's 200. boxvoice uploads each 60 s segment as it closes; the baseline \
        holds every upload until the send. Aim: no growth with length, ≤ one segment's HQ time + 1 s (3 s here).

        | recording (real-time pace) | segments | end of spoken send → box's 200, per-segment HQ | same, all HQ at the \
        send (pipelining off) | gain |
        |---|---|---|---|---|
        \(rows.joined(separator: "\n"))
        """)
}

private func describe(_ seconds: Double) -> String { seconds < 60 ? "\(Int(seconds)) s" : "\(Int(seconds / 60)) min" }
private func format(_ value: Double) -> String { String(format: "%.2f", value) }

/// Wall times of the events the latency needs.
private final class EventLog: Sendable {
    private struct Seen {
        /// The wall time audio position 0 was captured at: the earliest (event time − audio position) seen.
        var origin = Double.infinity
        var keywordAt: Double?
        var deliveredAt: Double?
        var segments = 0
    }
    private let seen = Mutex(Seen())

    func add(_ event: DictationEvent) {
        let time = now()
        seen.withLock { seen in
            switch event {
            case .level(let elapsed, _): seen.origin = min(seen.origin, time - elapsed)
            case .keyword(let action, _, let at) where action.isSend: if seen.keywordAt == nil { seen.keywordAt = at }
            case .segment: seen.segments += 1
            case .delivered: if seen.deliveredAt == nil { seen.deliveredAt = time }
            default: break
            }
        }
    }

    func latency() -> (seconds: Double, segments: Int)? {
        seen.withLock { seen in
            guard let keywordAt = seen.keywordAt, let deliveredAt = seen.deliveredAt, seen.origin.isFinite else {
                return nil
            }
            return (deliveredAt - (seen.origin + keywordAt), seen.segments)
        }
    }
}

import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

/// One dictation run on real parts: sample clips joined into one WAV and played through the capture path,
/// pocketsphinx, boxsim over loopback, SQLite on disk.
final class DictationRun: @unchecked Sendable {
    let box: SimulatedBox
    let data = TemporaryDirectory("dictate")
    let store: MessageStore
    let control = DictationControl()
    private let lock = NSLock()
    private var list: [(event: DictationEvent, at: Date)] = []
    /// Called for each event, on the thread that sent it.
    var onEvent: @Sendable (DictationEvent, DictationRun) -> Void = { _, _ in }

    init(box: SimulatedBox) throws {
        self.box = box
        store = try MessageStore(directory: data.file("store"))
    }

    var events: [DictationEvent] { lock.withLock { list.map(\.event) } }
    var timedEvents: [(event: DictationEvent, at: Date)] { lock.withLock { list } }
    var delivered: [SimMessage] { box.server.messages }
    var fallbacks: Int { events.filter { if case .fallback = $0 { true } else { false } }.count }

    /// Plays `clips` (joined with `gap` seconds of silence, `trailing` seconds of it after the last; at real-time
    /// pace when `paced`) and returns the input's total frames.
    @discardableResult
    func run(
        _ clips: [String], gap: Double = 0.5, trailing: Double = 0, tight: Bool = false, paced: Bool = false,
        stop: StopSignal = StopSignal(),
        configure: (inout DictationSession.Configuration) -> Void = { _ in }
    ) throws -> Int {
        let token = try BoxClient(baseURL: box.baseURL, token: nil).redeem(
            pairingToken: box.mintTicket(), deviceLabel: "dictate")
        Secrets.register(token)
        let input = data.file("input.wav")
        let frames = try WAV.concatenate(clips, gap: gap, trailing: trailing, tight: tight, to: input).frames
        var configuration = DictationSession.Configuration(
            box: "home", client: BoxClient(baseURL: box.baseURL, token: token), session: "s1",
            spotterPhrases: Checkout.root + "/Models/command-spotter.en.txt")
        configuration.hqRetryDelays = [0.1, 0.2]
        configuration.dictionaryCache = SharedCache.dictionaryFolder
        configure(&configuration)
        let session = DictationSession(
            configuration: configuration, detector: try KeywordDetector(contentsOf: Checkout.keywordVocabulary),
            store: store
        ) { [weak self] event in
            // Weakly: `control` keeps the session's finisher (and so this closure) for Enter's live-text send, and a
            // strong capture would keep this run, its box and its folders alive until the process exits.
            guard let self else { return }
            lock.withLock { list.append((event, Date())) }
            onEvent(event, self)
        }
        let pcm: CapturePCM = paced ? PacedCapturePCM(try WAVCapturePCM(path: input)) : try WAVCapturePCM(path: input)
        try session.run(pcm: pcm, stop: stop, control: control)
        return frames
    }

    /// The audio retained for a delivered message, its segments joined.
    func retainedAudio(_ messageId: String) throws -> [Float] {
        let ownId = try #require(MessageID(exactly: messageId))
        let kept = try #require(try store.retainedRecording(box: "home", id: ownId))
        return try kept.segments.flatMap { try WAV.samples($0) }
    }
}

@Suite struct DictationTableTests {
    @Test func aCheckpointDeliversThisPartAndTheNextPartIsANewMessageCutAtTheUtteranceEnd() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .describe; $0.defaultSession = "s1"
            })
        let first = try WAV.samples(Checkout.sample("checkpoint-report.wav")).count
        try run.store.setRetentionFormat(.wav)  // kept as recorded: compared sample for sample below
        // Only the spotter hears this command: it counts once the speaker has paused after it (`CommandHold`).
        try run.run(["checkpoint-report.wav", "send-buy-milk.wav"], gap: 2.5)
        let input = try WAV.samples(run.data.file("input.wav"))
        let messages = run.delivered
        try #require(messages.count == 2)
        #expect(messages[0].message.contains("<send-checkpoint-message phrase="))
        #expect(messages[1].message.contains("<send-message phrase="))
        #expect(messages[0].messageId != messages[1].messageId)
        // The first message's audio ends where the utterance holding its command ended — past the spoken words,
        // before the next clip begins — and the next message starts exactly there: no sample lost or doubled.
        let a = try run.retainedAudio(messages[0].messageId)
        let b = try run.retainedAudio(messages[1].messageId)
        #expect(firstDifference(a, Array(input[..<a.count])) == nil)
        #expect(firstDifference(b, Array(input[a.count..<(a.count + b.count)])) == nil)
        #expect(
            a.count > first - 48_000 && a.count <= first + 24_000,
            "first message holds \(a.count) frames; its clip has \(first)")
    }

    /// A busy machine (spinning threads at twice the cores) and a recognizer that loads and hears slowly: before,
    /// captured audio waited for the recognizer in one queue and was dropped from the recording when it filled.
    /// Now the recording has its own road and the recognizer skips ahead: not one frame is missing.
    @Test func aBusyMachineNeverCostsTheRecordingAFrame() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .describe; $0.defaultSession = "s1"
            })
        try run.store.setRetentionFormat(.wav)  // kept as recorded: compared sample for sample below
        let hogs = CPUHogs()
        let frames = try run.run(["checkpoint-report.wav", "send-buy-milk.wav"], gap: 1, paced: true) { configuration in
            // A queue from the microphone far shorter than the recognizer takes to load: only a recording that
            // never waits for it keeps every frame.
            configuration.captureQueueSeconds = 0.25
            configuration.hearingLagSeconds = 1
        }
        hogs.stop()
        let input = try WAV.samples(run.data.file("input.wav"))
        let messages = run.delivered
        try #require(!messages.isEmpty)
        // The messages' recordings, one after another, are the input sample for sample: a frame lost anywhere would
        // shift everything after it. Only the pause after the last command is not in a message (nothing was said).
        let recorded = try messages.flatMap { try run.retainedAudio($0.messageId) }
        #expect(
            recorded.count <= frames && recorded.count > frames - 48_000,
            "recorded \(recorded.count) of \(frames) frames")
        #expect(firstDifference(recorded, Array(input.prefix(recorded.count))) == nil)
        #expect(!run.events.contains { if case .captureLost = $0 { true } else { false } })
        let skipped = run.events.compactMap { if case .notHeardLive(let seconds, _) = $0 { seconds } else { nil } }
        print(
            "busy machine: \(messages.count) message(s), \(skipped.count) skip(s) of \(skipped.reduce(0, +)) s not "
                + "heard live"
        )
    }

    @Test func eraseDropsTheMessageAndItsAudioAndKeepsListening() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .fail(code: "missing_api_key"); $0.defaultSession = "s1"
            })
        let total = try run.run(["erase-start-over.wav", "send-buy-milk.wav"])
        let messages = run.delivered
        try #require(messages.count == 1)
        #expect(messages[0].message.contains("milk"))
        #expect(!messages[0].message.contains("start over"))
        let kept = try run.retainedAudio(messages[0].messageId).count
        #expect(kept < total - 3 * 48_000, "only the second clip's audio is kept, not the erased one")
        let folders = try FileManager.default.contentsOfDirectory(atPath: run.data.file("store/recordings/home"))
        #expect(folders == [messages[0].messageId])
    }

    @Test func sendAndCloseDeliversAndStopsListening() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .describe; $0.defaultSession = "s1"
            })
        // a spotter-only command: the speaker pauses
        try run.run(["sendclose-flight.wav", "send-buy-milk.wav"], gap: 2.5)
        let messages = run.delivered
        #expect(messages.count == 1)
        #expect(messages.first?.message.contains("<send-close-message phrase=") == true)
    }

    @Test func theEndOfTheInputSendsWithoutASpokenTagOrKeepsADraftWhenAsked() throws {
        let sent = try DictationRun(
            box: SimulatedBox {
                $0.hq = .fixed("The weather today is sunny."); $0.defaultSession = "s1"
            })
        try sent.run(["none-weather.wav"])
        #expect(sent.delivered.map(\.message).first?.hasSuffix(">The weather today is sunny.</speech>") == true)

        let kept = try DictationRun(
            box: SimulatedBox {
                $0.hq = .describe; $0.defaultSession = "s1"
            })
        try kept.run(["none-weather.wav"]) { $0.endOfInput = .draft }
        #expect(kept.delivered.isEmpty)
        #expect(try kept.store.messages().map(\.state) == [.draft])
    }

    @Test func enterSendsWhatWasSaidSoFarAndEscapeCancelsAndStops() throws {
        let entered = try DictationRun(
            box: SimulatedBox {
                $0.hq = .fixed("Dinner is at eight."); $0.defaultSession = "s1"
            })
        // Enter right after the first words are heard, long before the clip (and its spoken send) ends.
        entered.onEvent = { event, run in
            if case .partial = event, run.events.filter({ if case .partial = $0 { true } else { false } }).count == 1 {
                run.control.press(.enter)
            }
        }
        try entered.run(["none-budget.wav", "none-weather.wav"]) { $0.endOfInput = .discard }
        let messages = entered.delivered
        #expect(messages.count == 1)
        #expect(
            messages.first?.message.hasSuffix(">Dinner is at eight.</speech>") == true,
            "Enter sends without a spoken tag")

        let escaped = try DictationRun(
            box: SimulatedBox {
                $0.hq = .describe; $0.defaultSession = "s1"
            })
        escaped.onEvent = { event, run in if case .final = event { run.control.press(.escape) } }
        try escaped.run(["none-budget.wav", "send-buy-milk.wav"])
        #expect(escaped.delivered.isEmpty)
        #expect(try escaped.store.messages().isEmpty)
        #expect(
            !escaped.events.contains { if case .keyword = $0 { true } else { false } },
            "Esc stopped it before the spoken send")
    }

    @Test func hqThatLosesTheKeywordGetsTheLiveTagMarkedHeardLive() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .fixed("Please buy milk and eggs on the way home."); $0.defaultSession = "s1"
            })
        try run.run(["send-buy-milk.wav"])
        let body = try #require(run.delivered.first?.message)
        let heard = try #require(
            run.events.compactMap { if case .keyword(.send, let phrase, _) = $0 { phrase } else { nil } }.first)
        #expect(
            body.contains(
                ">Please buy milk and eggs on the way home. <send-message phrase=\"\(heard)\" heard=\"live\" "
                    + "/></speech>"
            ), "\(body)")
        #expect(body.hasPrefix("<speech stt-service=\"boxsim\" message-id=\""))
    }

    @Test func aPermanentHQFailureIsReportedOnceForThreeMessagesSentWithTheirLiveText() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .fail(code: "missing_api_key"); $0.defaultSession = "s1"
            })
        try run.run(["send-buy-milk.wav", "send-kal-dinner.wav", "send-buy-milk.wav"])
        let messages = run.delivered
        #expect(messages.count == 3)
        #expect(messages.allSatisfy { $0.message.hasPrefix("<speech stt=\"live\" message-id=\"\($0.messageId)\"") })
        #expect(run.fallbacks == 1)
        // Uploads already under way when the failure came back may still arrive (on a busy machine the next
        // messages are heard before the first one's answer); none may start after it.
        let failedAt = try #require(run.timedEvents.first { if case .fallback = $0.event { true } else { false } }?.at)
        let later = run.box.server.transcriptions.filter { $0.at > failedAt }
        #expect(later.isEmpty, "after the permanent failure no more segments are uploaded")
        #expect(!run.box.server.transcriptions.isEmpty)
    }

    @Test func flakyHQSucceedsAfterRetries() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .flaky(2); $0.hqText = "Buy milk."; $0.defaultSession = "s1"
            })
        try run.run(["send-buy-milk.wav"])
        let body = try #require(run.delivered.first?.message)
        #expect(body.hasPrefix("<speech stt-service=\"boxsim\""))
        #expect(body.contains(">Buy milk."))
        let hq = run.events.filter { if case .hq = $0 { true } else { false } }
        #expect(hq.contains { if case .hq(_, 1, .retrying(2)) = $0 { true } else { false } }, "\(hq)")
        #expect(run.fallbacks == 0)
    }

    /// A long recording (here about 35 s, cut into segments of at most 8 s, so it costs the suite a fifth of a
    /// three-minute one with 60 s segments): its first segment reaches the box while the rest is still being heard.
    @Test func aLongRecordingUploadsSegmentsWhileRecording() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .describe; $0.defaultSession = "s1"
            })
        let speech = [
            "none-weather.wav", "none-budget.wav", "none-table.wav", "none-garden.wav", "none-rms-coffee.wav",
            "none-awb-meeting.wav", "none-slt-books.wav", "none-kal-car.wav",
        ]
        let total = try run.run(speech + ["send-buy-milk.wav"]) {
            $0.segmentPolicy = SegmentPolicy(maxSeconds: 8, searchSeconds: 2)
        }
        #expect(total > 30 * 48_000)
        // Capture runs ahead of the recognizer on a file, so "the end of the recording" is the moment the send at
        // its end is heard, not the moment its last samples were read.
        let heard = try #require(run.timedEvents.first { if case .keyword = $0.event { true } else { false } }?.at)
        let firstUpload = try #require(run.box.server.transcriptions.first?.at)
        let start = try #require(run.timedEvents.first?.at)
        let timeline = run.timedEvents.compactMap { item -> String? in
            switch item.event {
            case .segment, .hq, .keyword, .committed:
                "\(String(format: "%.2f", item.at.timeIntervalSince(start))) s \(item.event)"
            default: nil
            }
        }
        #expect(
            firstUpload < heard,
            """
            the first segment reached the box (\(String(format: "%.2f", firstUpload.timeIntervalSince(start))) s) \
            before the send at the end was heard: \(timeline)
            """)
        #expect(run.box.server.transcriptions.count >= 3)
        #expect(run.delivered.count == 1, "\(run.events.filter { if case .keyword = $0 { true } else { false } })")
    }
}

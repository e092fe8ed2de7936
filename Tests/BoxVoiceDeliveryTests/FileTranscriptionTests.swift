import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct FileTranscriptionTests {
    private func client(_ box: SimulatedBox) throws -> BoxClient {
        let token = try BoxClient(baseURL: box.baseURL, token: nil).redeem(
            pairingToken: box.mintTicket(), deviceLabel: "core")
        Secrets.register(token)
        return BoxClient(baseURL: box.baseURL, token: token)
    }

    @Test func aStereo16kFileIsConvertedTo48kMonoFloatSegments() throws {
        let box = try SimulatedBox { $0.hq = .describe }
        let dir = TemporaryDirectory("core")
        let path = dir.file("stereo16k.wav")
        let file = try SoundFile.createPCM16WAV(path: path, sampleRate: 16_000, channels: 2)
        try file.write((0..<(16_000 * 2 * 3)).map { Float(sin(Double($0 / 2) / 7)) * 0.3 })
        try file.close()
        var transcription = FileTranscription(client: try client(box), session: "s1")
        transcription.policy = SegmentPolicy(sampleRate: 48_000, maxSeconds: 1, searchSeconds: 0.2)
        let result = try transcription.run(file: path, workDirectory: dir.file("work"))
        // 3 s in segments of at most 1 s, each cut inside its last 0.2 s: three or four uploads.
        #expect((3...4).contains(result.segments.count))
        #expect(result.segments.allSatisfy { $0.seconds <= 1.0 })
        let seen = box.server.transcriptions
        #expect(seen.count == result.segments.count)
        #expect(
            seen.allSatisfy { $0.sampleRate == 48_000 && $0.channels == 1 && $0.float32 == true && $0.session == "s1" })
        let frames = seen.compactMap(\.frames).reduce(0, +)
        #expect(abs(frames - 144_000) <= 48)
        #expect(result.text == result.segments.compactMap { $0.transcription?.text }.joined(separator: " "))
    }

    @Test func transientFailuresAreRetriedWithinTheBudget() throws {
        let box = try SimulatedBox {
            $0.hq = .flaky(2); $0.hqText = "ok"
        }
        var transcription = FileTranscription(client: try client(box), session: nil)
        transcription.retryDelays = [0.05, 0.05]
        let events = EventCounter()
        let result = try transcription.run(
            file: Checkout.sample("none-table.wav"), workDirectory: box.directory.file("work")
        ) { events.add($0) }
        #expect(result.text == "ok")
        #expect(events.retries == 2)
    }

    @Test func aPermanentFailureStopsTheRestAndSaysHowFarItGot() throws {
        let box = try SimulatedBox { $0.hq = .fail(code: "missing_api_key") }
        var transcription = FileTranscription(client: try client(box), session: nil)
        transcription.policy = SegmentPolicy(sampleRate: 48_000, maxSeconds: 1, searchSeconds: 0.2)
        transcription.maxParallel = 1
        #expect {
            _ = try transcription.run(
                file: Checkout.sample("middle-pilot.wav"), workDirectory: box.directory.file("work"))
        } throws: { error in
            let text = String(describing: error)
            return text.contains("missing_api_key") && text.contains("0 of ")
        }
        #expect(box.server.transcriptions.count == 1)  // one upload, then it stopped
    }

    @Test func anUnreadableFileIsAnError() throws {
        let box = try SimulatedBox()
        let dir = TemporaryDirectory("core")
        try "not audio".write(toFile: dir.file("notes.wav"), atomically: true, encoding: .utf8)
        #expect(throws: SoundFileError.self) {
            _ = try FileTranscription(client: try client(box), session: nil).run(
                file: dir.file("notes.wav"), workDirectory: dir.file("work"))
        }
    }
}

final class EventCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var retryCount = 0
    func add(_ event: FileTranscription.Event) {
        if case .retrying = event { lock.withLock { retryCount += 1 } }
    }
    var retries: Int { lock.withLock { retryCount } }
}

import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDictation
import BoxVoiceDaemon
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct LastAudioResponderTests {
    /// Four minutes at 48 kHz Float32 (46 MB, several segments) is over the 45 MB an answer may be: it goes whole as
    /// Ogg Opus; to a box that refused Opus, as 16 kHz 16-bit WAV, all of it.
    @Test(arguments: [false, true])
    func aRecordingOver45MBIsAnsweredWhole(wavOnly: Bool) throws {
        let box = try SimulatedBox { $0.defaultSession = "s1" }
        let token = try BoxClient(baseURL: box.baseURL, token: nil).redeem(
            pairingToken: box.mintTicket(), deviceLabel: "answer")
        Secrets.register(token)
        let data = TemporaryDirectory("answer-big")
        let store = try MessageStore(directory: data.file("store"))
        let recording = try store.beginRecording(box: "home", session: "s1")
        let writer = SegmentWriter(directory: recording.folder)
        let tone = (0..<48_000).map { Float(sin(Double($0) * 2 * .pi * 440 / 48_000)) * 0.25 }
        var segments: [ClosedSegment] = []
        for _ in 0..<240 { segments += try writer.append(tone) }
        if let last = try writer.finish() { segments.append(last) }
        #expect(segments.count >= 4)  // a steady tone has no quiet point: each cut lands early in its last 5 s
        let bytes = segments.reduce(0) { $0 + Int($1.frames) * 4 }
        #expect(bytes > LastAudioResponder.maxAnswerBytes)

        try store.commitSend(
            recording.id, MessageStore.Ending(heardText: "a long one", command: nil, liveText: "a long one"),
            liveBody: "<speech>a long one</speech>")
        if wavOnly { try store.recordUploadProfile(box: "home", wavOnly: true, linkBytesPerSecond: nil) }
        try FileManager.default.createDirectory(atPath: data.file("work"), withIntermediateDirectories: true)
        let responder = LastAudioResponder(
            box: "home", client: BoxClient(baseURL: box.baseURL, token: token), store: store,
            workDirectory: data.file("work"))
        let ids = LastAudioRequestIds(box.server)
        let big = recording.id.rawValue
        let agent = RetranscribeAgent(port: box.server.port, messageId: big, timeoutMs: 20_000)
        let requestId = try #require(ids.first(within: 5))
        let answered = try responder.answer(LastAudioRequest(requestId: requestId, messageId: big, sessionId: nil))
        guard case .audio(.settled, let format, let sent) = answered else {
            Issue.record("expected audio, got \(answered)")
            return
        }
        #expect(format == (wavOnly ? .wav(.pcm16k) : .oggOpus))
        #expect(sent < LastAudioResponder.maxAnswerBytes)
        let response = try #require(agent.wait())
        #expect(response.status == 200)
        #expect(response.header("content-type") == (wavOnly ? "audio/wav" : "audio/ogg"))
        let path = data.file(wavOnly ? "answer.wav" : "answer.ogg")
        try Data(response.body).write(to: URL(fileURLWithPath: path))
        let file = try SoundFile.open(path: path)
        if wavOnly {
            #expect(file.sampleRate == 16_000 && file.channels == 1 && !file.isFloat32)
            #expect(abs(Int(file.frames) - 240 * 16_000) <= 16, "all four minutes, resampled")
        } else {
            #expect(file.container == .oggOpus && file.sampleRate == 48_000)
            #expect(abs(try file.readAll().count - 240 * 48_000) <= 960, "all four minutes")
        }
    }
}

import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

/// Capture from a real sound server (PipeWire with its session manager, in a private runtime folder), as most
/// desktops record today.
@Suite struct PipeWireCaptureTests {
    /// Unplugging a microphone under PipeWire stops the stream without an ALSA error: the read would wait forever.
    /// The capture watchdog ends it within two seconds, and everything recorded before stays in the segments.
    @Test func aSourceRemovedWhileRecordingIsDetectedWithinTwoSecondsAndWhatCameBeforeIsKept() throws {
        let server = try PipeWireSession()
        try server.addSource("mic")
        let dir = TemporaryDirectory("pw-record")
        let config = try server.alsaConfig(for: ["mic"], in: dir)
        try server.play(Checkout.sample("long-meeting-notes.wav"), into: "mic")
        let pcm = try ALSACapturePCM(name: "mic", configFile: config)
        defer { pcm.close() }
        #expect(pcm.hasDeviceClock)
        let capture = AudioCapture(pcm: pcm)
        let recorder = Recorder(capture: capture, writer: SegmentWriter(directory: dir.file("out")), maxFrames: 60 * 48_000)
        let removed = RemovalClock()
        Thread {
            // Once a second of speech is in, the microphone goes away.
            let deadline = Date().addingTimeInterval(20)
            while capture.statistics.framesCaptured < 48_000, Date() < deadline { usleep(10_000) }
            removed.mark()
            server.removeSource("mic")
        }.start()
        let summary = try recorder.run(stop: StopSignal())
        let detected = Date()
        let removedAt = try #require(removed.at)
        guard case .deviceFailed(let reason) = summary.end else {
            Issue.record("expected the device to fail, got \(summary.end)")
            return
        }
        #expect(reason.contains("stopped delivering audio"))
        let seconds = detected.timeIntervalSince(removedAt)
        #expect(seconds < 2, "the stall was detected \(seconds) s after the source was removed")
        print("pipewire watchdog: detected \(String(format: "%.2f", seconds)) s after the source was removed")
        let recorded = try summary.segments.flatMap { try WAV.samples($0.path) }
        #expect(recorded.count >= 48_000)
        #expect(recorded.map(abs).max() ?? 0 > 0.05, "speech reached the recording")
    }
}

/// When the source was removed, set on one thread and read on another.
final class RemovalClock: @unchecked Sendable {
    // @unchecked: `moment` is touched under `lock` only.
    private let lock = NSLock()
    private var moment: Date?
    func mark() { lock.withLock { moment = Date() } }
    var at: Date? { lock.withLock { moment } }
}

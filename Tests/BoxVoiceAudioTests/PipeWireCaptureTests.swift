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
        let folder = TemporaryDirectory("pw-record")
        let outcome = try UnpluggedRecording.run(Checkout.sample("long-meeting-notes.wav"), folder: folder)
        guard case .deviceFailed(let reason) = outcome.summary.end else {
            Issue.record("expected the device to fail, got \(outcome.summary.end)")
            return
        }
        #expect(reason.contains("stopped delivering audio"))
        #expect(
            outcome.detectedAfter < 2, "the stall was detected \(outcome.detectedAfter) s after the source was removed")
        let recorded = try outcome.summary.segments.flatMap { try WAV.samples($0.path) }
        #expect(recorded.count >= 48_000)
        #expect(recorded.map(abs).max() ?? 0 > 0.05, "speech reached the recording")
    }
}

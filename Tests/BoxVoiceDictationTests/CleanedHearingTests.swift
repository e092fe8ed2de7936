import BoxSim
import BoxVoiceDictation
import BoxVoiceTestSupport
import Foundation
import Testing

/// The front end (`frontEnd`, the user's `front-end` setting) changes what the live recognizer hears, never what is
/// kept or sent: the retained recording is the captured audio sample for sample, and the HQ text is still the message.
@Suite struct CleanedHearingTests {
    @Test func withNoiseSuppressionTheCommandIsHeardAndTheRecordingStaysAsCaptured() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .fixed("Please buy milk and eggs. Send message."); $0.defaultSession = "s1"
            })
        try run.store.setRetentionFormat(.wav)
        try run.run(["send-buy-milk.wav"]) { $0.frontEnd = .on }
        let input = try WAV.samples(run.data.file("input.wav"))
        let messages = run.delivered
        try #require(messages.count == 1, "the spoken send was heard through the front end")
        #expect(messages[0].message.contains("Please buy milk and eggs."))
        let kept = try run.retainedAudio(messages[0].messageId)
        #expect(!kept.isEmpty)
        #expect(
            firstDifference(kept, Array(input[..<min(kept.count, input.count)])) == nil,
            "the recording is the raw capture")
    }
}

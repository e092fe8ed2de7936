import BoxVoiceCore
import BoxVoicePresentation
import BoxVoiceLive
import Testing

/// An utterance Whisper missed is said in `--json` (and `status --follow`), with whose words stand in.
@Suite struct WhisperMissedEventTests {
    @Test(arguments: [(HearingError.Code.abandoned, "late"), (.decodeFailed, "failed"), (.modelUnusable, "failed")])
    func aMissedUtteranceIsSaidWithItsReasonAndWhoseWordsStandIn(_ code: HearingError.Code, _ reason: String) throws {
        let object = try #require(DictationEvents.jsonObject(.whisperMissed(reason: code, at: 12.5)))
        #expect(object["event"] as? String == "whisper-missed")
        #expect(object["reason"] as? String == reason)
        #expect(object["heardBy"] as? String == "pocketsphinx")
        #expect(object["at"] as? Double == 12.5)
    }
}

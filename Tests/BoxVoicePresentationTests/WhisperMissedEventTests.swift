import BoxVoiceDictation
import BoxVoicePresentation
import BoxVoiceLive
import Testing

/// An utterance Whisper missed is said in `--json` (and `status --follow`), with whose words stand in.
@Suite struct WhisperMissedEventTests {
    @Test(arguments: [(HearingError.Code.abandoned, "late"), (.decodeFailed, "failed"), (.modelUnusable, "failed")])
    func aMissedUtteranceIsSaidWithItsReasonAndWhoseWordsStandIn(_ code: HearingError.Code, _ reason: String) throws {
        let record = try #require(EventRecord(.whisperMissed(reason: code, at: 12.5)))
        #expect(record.line == #"{"at":12.5,"event":"whisper-missed","heardBy":"pocketsphinx","reason":"\#(reason)"}"#)
    }
}

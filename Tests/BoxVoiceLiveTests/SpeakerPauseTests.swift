import BoxVoiceLive
import Testing

/// The speaker's pause heard from 20 ms frame levels against the room's own: pure, on made-up level tracks.
@Suite struct SpeakerPauseTests {
    /// A level that wobbles by ±20 % around `level`, the same on every run.
    struct Wobble {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        mutating func next(around level: Double) -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return level * (0.8 + 0.4 * Double(state >> 11) / Double(1 << 53))
        }
    }

    func feed(_ pause: inout SpeakerPause, _ wobble: inout Wobble, level: Double, seconds: Double) {
        for _ in 0..<Int((seconds / 0.02).rounded()) { pause.add(frameLevel: wobble.next(around: level)) }
    }

    @Test func aSteadyRoomWithNoSpeechIsNeverAPause() {
        var pause = SpeakerPause(), wobble = Wobble()
        feed(&pause, &wobble, level: 300, seconds: 5)
        #expect(pause.quietSeconds == 0, "with nothing louder than the room there is no speech to pause from")
    }

    /// Babble 20 dB under the voice: the speech detector hears speech throughout, the levels hear the voice stop.
    @Test func theSpeakerStoppingInNoiseIsHeardAsQuiet() {
        var pause = SpeakerPause(), wobble = Wobble()
        feed(&pause, &wobble, level: 300, seconds: 1)
        feed(&pause, &wobble, level: 3_000, seconds: 3)
        feed(&pause, &wobble, level: 300, seconds: 0.6)
        #expect(pause.quietSeconds >= 0.5 && pause.quietSeconds < 0.61)
        feed(&pause, &wobble, level: 3_000, seconds: 0.04)
        #expect(pause.quietSeconds == 0, "speech again ends the pause")
    }

    /// Between words the level dips for a stop or a breath, a tenth of a second or two: never half a second.
    @Test func theDipsOfRunningSpeechAreNotAPause() {
        var pause = SpeakerPause(), wobble = Wobble()
        feed(&pause, &wobble, level: 300, seconds: 1)
        var longest = 0.0
        for _ in 0..<20 {
            feed(&pause, &wobble, level: 3_000, seconds: 0.3)
            feed(&pause, &wobble, level: 300, seconds: 0.14)
            longest = max(longest, pause.quietSeconds)
        }
        #expect(longest > 0, "the dips themselves are quiet frames")
        #expect(longest < 0.2)
    }

    /// In a quiet room the speech detector already ends the utterance; the levels hear the same pause.
    @Test func silenceAfterSpeechInAQuietRoomIsAPause() {
        var pause = SpeakerPause(), wobble = Wobble()
        feed(&pause, &wobble, level: 20, seconds: 1)
        feed(&pause, &wobble, level: 2_000, seconds: 2)
        feed(&pause, &wobble, level: 0, seconds: 0.5)
        #expect(pause.quietSeconds >= 0.48)
    }
}

import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

/// Sound cues through real alsa-lib playback into an ALSA `file` PCM (no sound card here): what the file holds is
/// what a card would have played.
@Suite struct SoundCueTests {
    /// A playback PCM writing raw FLOAT_LE to `path`.
    static func playbackConfig(in directory: TemporaryDirectory, name: String = "cue_out") throws -> (
        config: String, raw: String
    ) {
        let raw = directory.file("\(name).raw")
        let config = directory.file("\(name).asound.conf")
        try """
        pcm.\(name) {
            type file
            slave.pcm { type null }
            file "\(raw)"
            format "raw"
        }
        """.write(toFile: config, atomically: true, encoding: .utf8)
        return (config, raw)
    }

    static func floats(_ path: String) throws -> [Float] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test(arguments: SoundCue.allCases)
    func eachCueIsPlayedSampleForSample(_ cue: SoundCue) throws {
        let directory = TemporaryDirectory("cue-\(cue.rawValue)")
        let (config, raw) = try Self.playbackConfig(in: directory)
        let pcm = try ALSAPlaybackPCM(name: "cue_out", configFile: config)
        try pcm.play(cue.samples())
        pcm.close()
        let played = try Self.floats(raw)
        let expected = cue.samples()
        #expect(played.count == expected.count)
        #expect(firstDifference(played, expected) == nil)
    }

    @Test func cuesAreShortSoftClickFreeAndTellApart() {
        for cue in SoundCue.allCases {
            let samples = cue.samples()
            #expect(Double(samples.count) / 48_000 < 0.2, "\(cue) is short")
            #expect(samples.map(abs).max()! <= SoundCue.amplitude + 1e-6)
            #expect(
                abs(samples.first!) < 0.01 && abs(samples.last!) < 0.01, "\(cue) starts and ends at silence (no click)")
        }
        // Rising and falling: the start cue's first note is the stop cue's second.
        #expect(SoundCue.start.samples() != SoundCue.stop.samples())
        #expect(
            Self.zeroCrossings(Array(SoundCue.start.samples().prefix(3_000)))
                < Self.zeroCrossings(Array(SoundCue.stop.samples().prefix(3_000))))
    }

    static func zeroCrossings(_ samples: [Float]) -> Int {
        zip(samples, samples.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
    }

    @Test func anUnknownPlaybackDeviceIsAClearError() throws {
        let directory = TemporaryDirectory("cue-missing")
        let (config, _) = try Self.playbackConfig(in: directory)
        #expect(throws: ALSAError.self) { try ALSAPlaybackPCM(name: "no_such_speaker", configFile: config) }
    }
}

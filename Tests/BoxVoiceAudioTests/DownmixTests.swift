import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

/// Every reader of a sound file mixes it down the same way (`SoundFile.readMono`), so a stereo file is the same audio
/// to the recorder, the recognizers and HQ.
@Suite struct DownmixTests {
    @Test func monoIsLeftAsItIs() {
        #expect(SoundFile.downmix([0.25, -0.5, 1], channels: 1) == [0.25, -0.5, 1])
    }

    @Test func eachFrameIsTheMeanOfItsChannels() {
        #expect(SoundFile.downmix([0.5, 0.25, -1, 1, 0, 0.5], channels: 2) == [0.375, 0, 0.25])
        #expect(SoundFile.downmix([0.3, 0.3, 0.3, 0.6, 0, 0], channels: 3).map { ($0 * 10).rounded() } == [3, 2])
    }

    @Test func aFrameCutShortIsDropped() {
        #expect(SoundFile.downmix([0.5, 0.5, 0.25], channels: 2) == [0.5])
    }

    /// A voice recorded on the right channel alone is heard, not dropped with the left.
    @Test func aVoiceOnOneChannelOfAStereoFileIsKept() throws {
        let dir = TemporaryDirectory("downmix")
        let path = dir.file("right-only.wav")
        let file = try SoundFile.createFloatWAV(path: path, channels: 2)
        try file.write([0, 0.8, 0, -0.4, 0, 0.2])
        try file.close()
        let stereo = try SoundFile.open(path: path)
        #expect(try stereo.readMono(maxFrames: 2) == [0.4, -0.2])
        #expect(try stereo.readAllMono() == [0.1])
        #expect(try WAVCapturePCM.load(path) == [0.4, -0.2, 0.1])
    }
}

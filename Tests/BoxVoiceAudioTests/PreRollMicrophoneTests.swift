import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

/// The held-open microphone through real alsa-lib: an ALSA `file` PCM paced like a microphone plays a counter (each
/// sample is its own index), so what a turn reads says exactly which moment it was recorded at.
@Suite struct PreRollMicrophoneTests {
    static let scale: Float = 16_777_216

    static func counter(seconds: Double) -> [Float] {
        (0..<Int(seconds * 48_000)).map { Float($0) / scale }
    }

    static func readFrames(_ pcm: CapturePCM, count: Int) throws -> [Int] {
        var out: [Int] = []
        var buffer = [Float](repeating: 0, count: 960)
        while out.count < count {
            let outcome = try buffer.withUnsafeMutableBytes {
                try pcm.read(into: $0.baseAddress!, frames: min(960, count - out.count))
            }
            guard case .frames(let got) = outcome, got > 0 else { break }
            out += buffer[..<got].map { Int(($0 * scale).rounded()) }
        }
        return out
    }

    @Test func aTurnStartsHalfASecondBeforeItWasAskedForAndRunsOnWithoutAGap() throws {
        let directory = TemporaryDirectory("pre-roll")
        let made = try FileCapturePCM.make(
            samples: Self.counter(seconds: 20), name: "counter", directory: directory.path)
        let device = try ALSACapturePCM(name: made.name, configFile: made.configPath, formats: [.float32LE]).paced()
        let opened = Date()
        let microphone = PreRollMicrophone(device, preRollSeconds: 0.5)
        defer { microphone.stop() }
        Thread.sleep(forTimeInterval: 1.5)  // the held-open time before the key press is the point of this test
        let pressedAt = Date().timeIntervalSince(opened)
        let turn = microphone.beginTurn()
        let frames = try Self.readFrames(turn, count: 48_000)
        turn.close()
        #expect(frames.count == 48_000)
        // The first frame is from half a second before the press (within two 20 ms periods of pacing slack).
        let startedAt = Double(frames.first ?? 0) / 48_000
        #expect(
            abs((pressedAt - startedAt) - 0.5) < 0.06, "the turn starts \(pressedAt - startedAt) s before the press")
        // Pre-roll and live audio join without a lost or repeated frame.
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1 == $0 + 1 }, "contiguous")

        // Between turns the microphone keeps only the newest half second: a second turn starts near its own press.
        Thread.sleep(forTimeInterval: 1)
        let secondPress = Date().timeIntervalSince(opened)
        let second = microphone.beginTurn()
        let next = try Self.readFrames(second, count: 4_800)
        second.close()
        #expect(abs((secondPress - Double(next.first ?? 0) / 48_000) - 0.5) < 0.06)
        #expect(next.first! > frames.last!, "nothing of the first turn is read again")
    }
}

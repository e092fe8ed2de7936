import BoxVoiceAudio
import Foundation

/// Key press → first captured sample, with the microphone opened at the press (the baseline: how every turn started
/// before) and with it held open (pre-roll). The "microphone" is an ALSA `file` PCM paced like a device, playing a
/// counter (each sample is its own index), so the turn's first sample says exactly when it was recorded. A real
/// card adds its own open time (often tens to hundreds of ms through a sound server) to the baseline only.
func benchPreRoll(trials: Int, holdSeconds: Double) throws {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("boxvoice-preroll-\(getpid())").path
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: work) }
    let scale: Float = 16_777_216
    let counter = (0..<Int((holdSeconds + 5) * AudioRate.perSecond)).map { Float($0) / scale }
    let made = try FileCapturePCM.make(samples: counter, name: "counter", directory: work)

    func firstFrame(_ pcm: CapturePCM) throws -> Int {
        var buffer = [Float](repeating: 0, count: 960)
        while true {
            let outcome = try buffer.withUnsafeMutableBytes { try pcm.read(into: $0.baseAddress!, frames: 960) }
            if case .frames(let count) = outcome, count > 0 { return Int((buffer[0] * scale).rounded()) }
        }
    }

    var without: [Double] = [], with: [Double] = []
    for _ in 0..<trials {
        // Baseline: the press opens the device; its first sample is recorded when the stream starts.
        let pressed = Date()
        let device = try ALSACapturePCM(name: made.name, configFile: made.configPath, formats: [.float32LE]).paced()
        let first = try firstFrame(device)
        // Paced from its first read: sample N was recorded N/48000 s after that read began.
        without.append(Date().timeIntervalSince(pressed) - Double(first) / AudioRate.perSecond)
        device.close()

        // Pre-roll: the device was opened `holdSeconds` before the press.
        let opened = Date()
        let microphone = PreRollMicrophone(
            try ALSACapturePCM(name: made.name, configFile: made.configPath, formats: [.float32LE]).paced())
        Thread.sleep(forTimeInterval: holdSeconds)
        let press = Date().timeIntervalSince(opened)
        let turn = microphone.beginTurn()
        let frame = try firstFrame(turn)
        turn.close()
        microphone.stop()
        with.append(Double(frame) / AudioRate.perSecond - press)
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    let base = median(without), held = median(with)
    print(
        """
        ### First words: key press to the first captured sample

        <!-- headline: pre-roll starts a turn \(String(format: "%.0f", (base - held) * 1000)) ms before opening the \
        microphone at the press does -->

        \(trials) turns each, an ALSA `file` PCM paced like a microphone playing a counter (so each captured sample \
        says when
        it was recorded); median, negative = recorded before the press. A real card's open time (tens to hundreds of ms
        through a sound server) adds to the baseline only; peers lose 0.5–3 s here.

        | how the turn's microphone is opened | first sample vs the press | speech kept from before the press |
        |---|---:|---:|
        | opened at the press (baseline) | \(String(format: "%+.1f", base * 1000)) ms | 0 ms |
        | held open, `pre-roll` on | \(String(format: "%+.1f", held * 1000)) ms | \
        \(String(format: "%.0f", max(0, -held) * 1000)) ms |

        Pre-roll moves the turn's start \(String(format: "%.0f", (base - held) * 1000)) ms earlier than the baseline; \
        the held audio never leaves memory
        (at most 0.5 s, overwritten as it ages).
        """)
}

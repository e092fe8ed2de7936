import Foundation
/// The short sounds a hotkey user hears instead of reading a screen: two rising notes when the microphone opens, two
/// falling notes when it closes, two quick high notes when a message is sent. Soft (−10 dBFS), with 5 ms fades so
/// no click, and short enough (under 0.2 s) not to talk over the user.
public enum SoundCue: String, Sendable, CaseIterable {
    case start, stop, sent

    /// (frequency in Hz, seconds) of each note, with a 20 ms gap between notes.
    var notes: [(frequency: Double, seconds: Double)] {
        switch self {
        case .start: [(660, 0.07), (880, 0.07)]
        case .stop: [(880, 0.07), (660, 0.07)]
        case .sent: [(1_320, 0.05), (1_320, 0.05)]
        }
    }

    public static let amplitude: Float = 0.316

    /// The cue's samples at `sampleRate`, mono.
    public func samples(sampleRate: Int = AudioRate.hertz) -> [Float] {
        let rate = Double(sampleRate)
        let fade = Int(0.005 * rate)
        let gap = [Float](repeating: 0, count: Int(0.02 * rate))
        var out: [Float] = []
        for (index, note) in notes.enumerated() {
            if index > 0 { out += gap }
            let count = Int(note.seconds * rate)
            for n in 0..<count {
                let envelope = Float(min(1, Double(min(n, count - 1 - n)) / Double(fade)))
                out.append(Self.amplitude * envelope * Float(sin(2 * Double.pi * note.frequency * Double(n) / rate)))
            }
        }
        return out
    }
}

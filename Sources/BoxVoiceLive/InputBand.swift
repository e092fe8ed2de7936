import Foundation

/// Whether the microphone's audio stops at the telephone band (nothing above about 4 kHz): a Bluetooth headset in its
/// call profile, a phone line or a narrowband codec. Debian ships only a wideband acoustic model, so under such a
/// microphone every command scores far worse in the spotter and the thresholds for wideband audio hear few of them
/// (BENCHMARKS.md at 7c182fc, "Spoken commands": the telephone band). The judgement is the share of the last seconds'
/// energy above 5 kHz: speech from a wideband microphone keeps a few percent of its energy there, a band-limited one
/// none.
public struct InputBand: Sendable {
    /// Narrowband while the energy above the cutoff is under this share of the whole (dB) …
    public static let narrowBelow = -38.0
    /// … and wideband again once it is over this one: a gap, so a voice at the line never flips back and forth.
    public static let wideAbove = -30.0
    /// Energy (sum of squared 16-bit samples) under which a window holds no sound worth judging: about −60 dBFS.
    static let leastEnergy = 1e3 * Double(windowFrames * frameSamples)

    /// 20 ms at 16 kHz, as `SpeechFrontEnd.frameSamples`.
    static let frameSamples = SpeechFrontEnd.frameSamples
    /// 20 ms frames judged: the last 5 s.
    static let windowFrames = 250
    static let judgeEvery = 25

    private var highPass = HighPass()
    private var bandPass = HighPass(cutoff: 2_000, order: 4)
    private var frames: [(high: Double, total: Double)] = []
    private var next = 0
    private var sinceJudged = 0
    private var settled = false
    /// Whether the audio is judged band-limited now.
    public private(set) var isNarrow = false
    /// The last judgement's share of energy above the cutoff, in dB (nil until there was sound to judge).
    public private(set) var highShare: Double?

    public init() {}

    /// Adds one 20 ms frame of 16 kHz audio (320 samples).
    public mutating func add(frame: ArraySlice<Int16>) {
        var high = 0.0, total = 0.0
        for sample in frame {
            let value = Double(sample)
            let filtered = highPass.process(value)
            let upper = bandPass.process(value)
            high += filtered * filtered
            total += upper * upper
        }
        // The filters start from rest: the first frame's onset rings through every band. They are settled after it.
        guard settled else { settled = true; return }
        if frames.count < Self.windowFrames { frames.append((high, total)) } else { frames[next] = (high, total) }
        next = (next + 1) % Self.windowFrames
        sinceJudged += 1
        if sinceJudged >= Self.judgeEvery { judge() }
    }

    /// Judges now on what has been heard (the opening audio, before decoding starts), however little.
    public mutating func judge() {
        sinceJudged = 0
        // Added up afresh at each judgement (every half second): a running sum would drift by rounding over hours.
        let sums = frames.reduce((high: 0.0, total: 0.0)) { ($0.high + $1.high, $0.total + $1.total) }
        guard sums.total >= Self.leastEnergy * Double(frames.count) / Double(Self.windowFrames) else { return }
        let share = 10 * log10(max(sums.high, 1e-3) / sums.total)
        highShare = share
        if isNarrow, share > Self.wideAbove {
            isNarrow = false
        } else if !isNarrow, share < Self.narrowBelow {
            isNarrow = true
        }
    }

    /// An eighth-order Butterworth high-pass at 5 kHz for 16 kHz audio: four biquads, designed once by the bilinear
    /// transform. Steep enough that what a 4 kHz band edge lets through is some 28 dB down, and speech under 3 kHz 55.
    struct HighPass: Sendable {
        struct Biquad: Sendable {
            var b0, b1, b2, a1, a2: Double
            var z1 = 0.0, z2 = 0.0

            mutating func process(_ x: Double) -> Double {
                let y = b0 * x + z1
                z1 = b1 * x - a1 * y + z2
                z2 = b2 * x - a2 * y
                return y
            }
        }

        static let cutoff = 5_000.0
        var stages: [Biquad]

        init(cutoff: Double = HighPass.cutoff, order: Int = 8, rate: Double = 16_000) {
            let k = tan(Double.pi * cutoff / rate)
            // The four pole pairs of an eighth-order Butterworth: Q = 1 / (2 cos θ), θ = π/16, 3π/16, 5π/16, 7π/16.
            stages = stride(from: 1, to: order, by: 2).map { Double.pi * Double($0) / Double(2 * order) }.map { angle in
                let q = 1 / (2 * cos(angle))
                let norm = 1 / (1 + k / q + k * k)
                return Biquad(
                    b0: norm, b1: -2 * norm, b2: norm, a1: 2 * (k * k - 1) * norm, a2: (1 - k / q + k * k) * norm)
            }
        }

        mutating func process(_ x: Double) -> Double {
            var value = x
            for index in stages.indices { value = stages[index].process(value) }
            return value
        }
    }
}

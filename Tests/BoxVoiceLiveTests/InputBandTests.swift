import BoxVoiceLive
import Foundation
import Testing

/// The microphone's band judged from 16 kHz audio: pure, on made-up signals whose spectrum is known.
@Suite struct InputBandTests {
    /// Sines at `frequencies` (Hz) with amplitudes `levels` (of full scale), from sample `offset`, as 16 kHz frames.
    static func tones(_ frequencies: [Double], levels: [Double], seconds: Double, offset: Int = 0) -> [Int16] {
        (0..<Int(seconds * 16_000)).map { index in
            let time = Double(offset + index) / 16_000
            let value = zip(frequencies, levels).reduce(0.0) { sum, tone in
                sum + tone.1 * sin(2 * .pi * tone.0 * time + tone.0)
            }
            return Int16(clamping: Int((value * 32_767).rounded()))
        }
    }

    /// Speech-like energy spread up to 3.4 kHz, as a telephone line or a headset's call profile passes it.
    static let telephone = (
        frequencies: [300.0, 700, 1_300, 2_100, 2_900, 3_400], levels: [0.2, 0.15, 0.1, 0.05, 0.03, 0.02]
    )
    /// The same with the fricative energy a wideband microphone keeps, 20–26 dB under the voice.
    static let wideband = (
        frequencies: telephone.frequencies + [5_500, 6_800], levels: telephone.levels + [0.01, 0.005]
    )

    func feed(_ band: inout InputBand, _ samples: [Int16]) {
        for start in stride(from: 0, to: samples.count - 319, by: 320) { band.add(frame: samples[start..<start + 320]) }
    }

    @Test func speechThatStopsAtTheTelephoneBandIsJudgedNarrow() throws {
        var band = InputBand()
        feed(&band, Self.tones(Self.telephone.frequencies, levels: Self.telephone.levels, seconds: 2))
        #expect(band.isNarrow)
        #expect(try #require(band.highShare) < InputBand.narrowBelow)
    }

    @Test func speechWithItsHighBandIsJudgedWide() throws {
        var band = InputBand()
        feed(&band, Self.tones(Self.wideband.frequencies, levels: Self.wideband.levels, seconds: 2))
        #expect(!band.isNarrow)
        #expect(try #require(band.highShare) > InputBand.wideAbove)
    }

    @Test func silenceIsNotJudgedAtAll() {
        var band = InputBand()
        feed(&band, [Int16](repeating: 0, count: 32_000))
        #expect(band.highShare == nil)
        #expect(!band.isNarrow, "no sound is no evidence of a band-limited microphone")
    }

    /// A headset unplugged mid-dictation: the laptop's own microphone is judged wide again once its audio fills the
    /// window, and a narrowband stretch shorter than a judgement's window never flips a wideband microphone.
    @Test func theJudgementFollowsAChangeOfMicrophoneButNotAMoment() {
        var band = InputBand()
        feed(&band, Self.tones(Self.telephone.frequencies, levels: Self.telephone.levels, seconds: 3))
        #expect(band.isNarrow)
        feed(&band, Self.tones(Self.wideband.frequencies, levels: Self.wideband.levels, seconds: 5, offset: 48_000))
        #expect(!band.isNarrow)
        feed(
            &band, Self.tones(Self.telephone.frequencies, levels: Self.telephone.levels, seconds: 0.5, offset: 128_000))
        #expect(!band.isNarrow, "half a second of low vowels is not a new microphone")
    }

    /// The opening audio is judged at once, before decoding starts, so a headset's first command is already heard
    /// with its thresholds.
    @Test func anExplicitJudgementNeedsNoFullWindow() {
        var band = InputBand()
        feed(&band, Self.tones(Self.telephone.frequencies, levels: Self.telephone.levels, seconds: 0.3))
        #expect(!band.isNarrow, "no periodic judgement within 0.3 s")
        band.judge()
        #expect(band.isNarrow)
    }
}

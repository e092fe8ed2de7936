import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

/// These run the real alsa-lib capture path: a `file`-plugin PCM over the `null` slave plays a sample.
@Suite struct ALSACaptureTests {
    /// Records `pcm` for exactly `frames` frames into `directory`.
    private func record(
        _ made: FileCapturePCM.Made, formats: [SampleFormat] = SampleFormat.capturePreference,
        policy: SegmentPolicy = SegmentPolicy(), into directory: String
    ) throws -> (RecordingSummary, SampleFormat) {
        let pcm = try ALSACapturePCM(name: made.name, configFile: made.configPath, formats: formats)
        defer { pcm.close() }
        let writer = SegmentWriter(directory: directory, policy: policy)
        let summary = try Recorder(capture: AudioCapture(pcm: pcm), writer: writer, maxFrames: Int64(made.frames)).run(
            stop: StopSignal())
        return (summary, pcm.format)
    }

    private func joined(_ summary: RecordingSummary) throws -> [Float] {
        try summary.segments.flatMap { try WAV.samples($0.path) }
    }

    @Test func floatDeviceSamplesArriveBitExact() throws {
        let dir = TemporaryDirectory("alsa")
        let input = try WAV.samples(Checkout.sample("send-buy-milk.wav"))
        let made = try FileCapturePCM.make(samples: input, name: "mic", directory: dir.path)
        let (summary, format) = try record(made, into: dir.file("out"))
        #expect(format == .float32LE)
        #expect(summary.end == .reachedMaxDuration)
        #expect(summary.capture.framesDropped == 0)
        #expect(summary.segments.count == 1)
        let read = try WAV.read(summary.segments[0].path)
        #expect(read.sampleRate == 48_000 && read.channels == 1 && read.isFloat32)
        #expect(read.samples == input)
    }

    /// A broken driver's NaN, ±Inf or wild values are repaired where they enter and counted; everything else
    /// arrives bit-exact. Before, one NaN reached the recognizer's 16-bit conversion and trapped.
    @Test func nonFiniteAndOutOfRangeDeviceSamplesAreRepairedAndCounted() throws {
        let dir = TemporaryDirectory("alsa-nan")
        var input = try WAV.samples(Checkout.sample("send-buy-milk.wav"))
        let damage: [(Int, Float, Float)] = [
            (100, .nan, 0), (2_000, .infinity, 1), (3_000, -.infinity, -1), (4_000, 1e30, 1), (5_000, -7, -1),
        ]
        for (index, bad, _) in damage { input[index] = bad }
        let made = try FileCapturePCM.make(samples: input, name: "mic-nan", directory: dir.path)
        let (summary, _) = try record(made, into: dir.file("out"))
        #expect(summary.capture.samplesRepaired == Int64(damage.count))
        var expected = input
        for (index, _, repaired) in damage { expected[index] = repaired }
        #expect(try joined(summary) == expected)
    }

    @Test func s16DeviceIsConvertedToFloat() throws {
        let dir = TemporaryDirectory("alsa")
        let input = try WAV.samples(Checkout.sample("none-weather.wav"))
        let made = try FileCapturePCM.make(
            samples: input, streamFormat: .signed16LE, name: "mic16", directory: dir.path)
        let (summary, format) = try record(made, formats: [.signed16LE], into: dir.file("out"))
        #expect(format == .signed16LE)
        let expected = input.map { Float(Int16(clamping: Int(($0 * 32_768).rounded()))) / 32_768 }
        #expect(try joined(summary) == expected)
    }

    @Test func s32DeviceIsConvertedToFloat() throws {
        let dir = TemporaryDirectory("alsa")
        let input = try WAV.samples(Checkout.sample("none-table.wav"))
        let made = try FileCapturePCM.make(
            samples: input, streamFormat: .signed32LE, name: "mic32", directory: dir.path)
        let (summary, format) = try record(made, formats: [.signed32LE], into: dir.file("out"))
        #expect(format == .signed32LE)
        let expected = input.map {
            Float(Double(Int32(clamping: Int64((Double($0) * 2_147_483_648.0).rounded()))) / 2_147_483_648.0)
        }
        let got = try joined(summary)
        #expect(got == expected)
        // And S32 keeps the Float32 input to within its 24-bit mantissa.
        #expect(zip(got, input).allSatisfy { abs($0 - $1) <= 1.0 / 8_388_608 })
    }

    @Test func deviceWithoutFloatNegotiatesS32() throws {
        let dir = TemporaryDirectory("alsa")
        let input = try WAV.samples(Checkout.sample("none-garden.wav"))
        let made = try FileCapturePCM.make(
            samples: input, streamFormat: .signed32LE, name: "intmic", directory: dir.path, integerOnly: true)
        let floatOnly = #expect(throws: ALSAError.self) {
            _ = try ALSACapturePCM(name: made.name, configFile: made.configPath, formats: [.float32LE])
        }
        #expect(floatOnly?.kind == .unsupportedConfiguration)
        let (summary, format) = try record(made, into: dir.file("out"))
        #expect(format == .signed32LE)  // FLOAT_LE refused, S32_LE is next in preference
        let expected = input.map {
            Float(Double(Int32(clamping: Int64((Double($0) * 2_147_483_648.0).rounded()))) / 2_147_483_648.0)
        }
        #expect(try joined(summary) == expected)
    }

    @Test func longClipIsCutIntoThreeSegmentsAtTheQuietestWindowBeforeSixtySeconds() throws {
        let dir = TemporaryDirectory("alsa")
        let input = try WAV.samples(Checkout.sample("long-meeting-notes.wav"))
        #expect(input.count >= 130 * 48_000)
        let made = try FileCapturePCM.make(samples: input, name: "long", directory: dir.path)
        let policy = SegmentPolicy()
        let (summary, _) = try record(made, policy: policy, into: dir.file("out"))
        let segments = summary.segments
        #expect(segments.count == 3)
        #expect(segments.reduce(0) { $0 + $1.frames } == Int64(input.count))
        for segment in segments.dropLast() {
            #expect(segment.frames <= Int64(policy.maxFrames))
            #expect(segment.frames >= Int64(policy.maxFrames - policy.searchFrames))
            // The cut is a window start (relative to the segment) and no window in the search region is quieter.
            #expect(segment.frames % Int64(policy.windowFrames) == 0)
            let start = Int(segment.startFrame)
            let cut = start + Int(segment.frames)
            let cutEnergy = Signal.energy(input, from: cut, count: policy.windowFrames)
            var window = start + Int(segment.frames) - Int(segment.frames) % policy.windowFrames
            window =
                start + ((policy.maxFrames - policy.searchFrames + policy.windowFrames - 1) / policy.windowFrames)
                * policy.windowFrames
            while window + policy.windowFrames <= start + policy.maxFrames {
                #expect(Signal.energy(input, from: window, count: policy.windowFrames) >= cutEnergy)
                window += policy.windowFrames
            }
        }
        #expect(try joined(summary) == input)
    }

    @Test func missingDeviceIsAClearErrorNamingItAndPointingAtDevices() throws {
        let dir = TemporaryDirectory("alsa")
        let made = try FileCapturePCM.make(samples: [0, 0], name: "present", directory: dir.path)
        let error = try #require(throws: ALSAError.self) {
            _ = try ALSACapturePCM(name: "no_such_mic", configFile: made.configPath)
        }
        #expect(error.kind == .deviceNotFound)
        #expect(error.description.contains("'no_such_mic'"))
        #expect(error.description.contains("boxvoice devices"))
        #expect(error.libraryMessage.contains("No such file or directory"))
    }

    @Test func unreadableConfigurationIsAConfigurationError() throws {
        let dir = TemporaryDirectory("alsa")
        let bad = dir.file("bad.conf")
        try "pcm.broken { type file ".write(toFile: bad, atomically: true, encoding: .utf8)
        let error = try #require(throws: ALSAError.self) {
            _ = try ALSACapturePCM(name: "broken", configFile: bad)
        }
        #expect(error.kind == .configuration)
        #expect(error.description.contains(bad))
    }

    @Test func filePluginReportsNoDeviceClock() throws {
        let dir = TemporaryDirectory("alsa")
        let made = try FileCapturePCM.make(samples: [0.5, 0.25], name: "clockless", directory: dir.path)
        let pcm = try ALSACapturePCM(name: made.name, configFile: made.configPath)
        #expect(!pcm.hasDeviceClock)
        #expect(pcm.sampleRate == 48_000)
        #expect(abs(pcm.periodFrames - 960) <= 64)
    }

    @Test func aPacedFilePCMDeliversItsAudioNoFasterThanRealTimeAndUnchanged() throws {
        let dir = TemporaryDirectory("alsa")
        let input = try WAV.samples(Checkout.sample("none-weather.wav"))
        let second = Array(input.prefix(48_000))
        let made = try FileCapturePCM.make(samples: second, name: "paced", directory: dir.path)
        let pcm = try ALSACapturePCM(name: made.name, configFile: made.configPath).paced()
        defer { pcm.close() }
        #expect(pcm.hasDeviceClock)
        let writer = SegmentWriter(directory: dir.file("out"), policy: SegmentPolicy())
        let clock = ContinuousClock()
        let started = clock.now
        let summary = try Recorder(capture: AudioCapture(pcm: pcm), writer: writer, maxFrames: Int64(made.frames)).run(
            stop: StopSignal())
        let took = started.duration(to: clock.now)
        // The last period is due 20 ms before the end of the second; reads never come early.
        #expect(took >= .milliseconds(970), "1 s of audio took \(took)")
        #expect(took < .seconds(10), "pacing must not add more than scheduling slack: \(took)")
        #expect(summary.capture.framesDropped == 0)
        #expect(try joined(summary) == second)
    }

    @Test func pacingWrapsOnlyClocklessDevicesAndOnlyOnce() throws {
        let dir = TemporaryDirectory("alsa")
        let made = try FileCapturePCM.make(samples: [0.5, 0.25], name: "clockless", directory: dir.path)
        let pcm = try ALSACapturePCM(name: made.name, configFile: made.configPath)
        let paced = pcm.paced()
        #expect(paced !== pcm && paced.hasDeviceClock)
        #expect(paced.paced() === paced, "already paced: not wrapped twice")
        #expect(pcm.paced(false) === pcm)
        paced.close()
    }
}

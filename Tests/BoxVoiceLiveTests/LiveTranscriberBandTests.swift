import BoxVoiceAudio
import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Testing

/// A microphone that stops at the telephone band (a headset in its call profile: 8 kHz audio the sound server
/// resamples to 48 kHz), made here the same way with libsoxr from a Samples clip.
@Suite struct LiveTranscriberBandTests {
    static let phrases = Checkout.root + "/Models/command-spotter.en.txt"

    static func throughA8kHzHeadset(_ clip: String) throws -> [Float] {
        let clean = try WAVCapturePCM.load(Checkout.sample(clip))
        let down = try Resampler(from: 48_000, to: 8_000), up = try Resampler(from: 8_000, to: 48_000)
        return try up.process(try down.process(clean) + down.flush()) + up.flush()
    }

    func hear(_ samples: [Float], followingTheBand: Bool, phrases: String = Self.phrases) throws -> (
        utterances: [LiveUtterance], narrow: Bool
    ) {
        var options = LiveTranscriber.Options.sharingTheCut(spotterPhrases: phrases)
        options.followsInputBand = followingTheBand
        let transcriber = try LiveTranscriber(options: options)
        var found: [LiveUtterance] = []
        for start in stride(from: 0, to: samples.count, by: 4_800) {
            for case .utterance(let utterance) in try transcriber.feed(
                Array(samples[start..<min(start + 4_800, samples.count)]))
            {
                found.append(utterance)
            }
        }
        let narrow = transcriber.hearsNarrowband
        for case .utterance(let utterance) in try transcriber.finish() { found.append(utterance) }
        return (found, narrow)
    }

    @Test func aHeadsetsBandIsHeardAndAWidebandMicrophonesIsNot() throws {
        let headset = try hear(try Self.throughA8kHzHeadset("cancel-kal-wrong.wav"), followingTheBand: true)
        #expect(headset.narrow)
        #expect(
            headset.utterances.allSatisfy { $0.narrowband }, "the opening audio is judged before anything is decoded")
        let laptop = try hear(try WAVCapturePCM.load(Checkout.sample("cancel-kal-wrong.wav")), followingTheBand: true)
        #expect(!laptop.narrow)
        #expect(!laptop.utterances.contains { $0.narrowband })
    }

    /// A list whose narrowband threshold no hit can pass: through the headset the command the wideband threshold
    /// hears is gone (the spotter was swapped before decoding began); through the laptop's microphone it stays.
    @Test func theSpotterUsesTheNarrowbandThresholdsOnlyWhileTheBandIsLimited() throws {
        let folder = TemporaryDirectory("spotter-list")
        let list = folder.path + "/phrases.txt"
        try "cancel message /1e-20/ narrowband /1e+30/\n".write(toFile: list, atomically: true, encoding: .utf8)
        let headset = try Self.throughA8kHzHeadset("cancel-forget-it.wav")
        let laptop = try WAVCapturePCM.load(Checkout.sample("cancel-forget-it.wav"))
        func spots(_ audio: [Float], followingTheBand: Bool) throws -> [String] {
            try hear(audio, followingTheBand: followingTheBand, phrases: list).utterances.flatMap(\.spotted)
        }
        #expect(
            try spots(headset, followingTheBand: false) == ["cancel message"],
            "the wideband threshold hears it through the headset")
        #expect(try spots(headset, followingTheBand: true) == [])
        #expect(try spots(laptop, followingTheBand: true) == ["cancel message"])
    }

    /// A headset connected mid-dictation: the spotter is swapped where the band changes and its hits keep the
    /// stream's clock.
    @Test func aSpotterSwappedMidStreamHearsOnTheStreamsClock() throws {
        let folder = TemporaryDirectory("spotter-list")
        let list = folder.path + "/phrases.txt"
        try "cancel message /1e-20/ narrowband /1e-20/\n".write(toFile: list, atomically: true, encoding: .utf8)
        let laptop = try WAVCapturePCM.load(Checkout.sample("cancel-forget-it.wav"))
        // Some seconds of talk through the headset: the judgement window (5 s) fills with its audio.
        let talk = try Self.throughA8kHzHeadset("none-budget.wav") + Self.throughA8kHzHeadset("none-garden.wav")
        let headset = try Self.throughA8kHzHeadset("cancel-forget-it.wav")
        let transcriber = try LiveTranscriber(options: LiveTranscriber.Options.sharingTheCut(spotterPhrases: list))
        var hits: [SpottedPhrase] = []
        func feed(_ audio: [Float]) throws {
            for start in stride(from: 0, to: audio.count, by: 4_800) {
                for case .utterance(let utterance) in try transcriber.feed(
                    Array(audio[start..<min(start + 4_800, audio.count)]))
                {
                    hits += utterance.spots
                }
            }
        }
        try feed(laptop)
        #expect(!transcriber.hearsNarrowband)
        try feed(talk)
        #expect(transcriber.hearsNarrowband, "swapped before the headset's command")
        try feed(headset)
        for case .utterance(let utterance) in try transcriber.finish() { hits += utterance.spots }
        #expect(hits.map(\.phrase) == ["cancel message", "cancel message"])
        let secondStarts = Double(laptop.count + talk.count) / 48_000
        #expect(
            hits.count == 2 && hits[0].end < Double(laptop.count) / 48_000 && hits[1].end > secondStarts
                && hits[1].end <= secondStarts + Double(headset.count) / 48_000)
    }

    @Test func theListCarriesNarrowbandThresholdsAndACalibratedOneNeedsNone() throws {
        let listed = try SpotterCalibration(phrasesFile: Self.phrases).phrases
        #expect(listed.contains { $0.narrowbandThreshold != nil })
        #expect(
            listed.contains { $0.phrase == "send now" && $0.narrowbandThreshold == nil },
            "the short send phrase keeps its threshold")
        let folder = TemporaryDirectory("spotter-list")
        let plain = folder.path + "/plain.txt", wrong = folder.path + "/wrong.txt"
        try "send message /1e-20/\n".write(toFile: plain, atomically: true, encoding: .utf8)
        #expect(try SpotterCalibration(phrasesFile: plain).phrases.map(\.narrowbandThreshold) == [nil])
        try "send message /1e-20/ wideband /1e-30/\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        #expect(throws: PocketSphinxError.self) { try SpotterCalibration(phrasesFile: wrong) }
    }

    /// Calibrating through a headset starts from the thresholds for such a microphone, not the wideband ones.
    @Test func calibrationThroughAHeadsetStartsFromTheNarrowbandThresholds() throws {
        let folder = TemporaryDirectory("spotter-list")
        let list = folder.path + "/phrases.txt"
        try "cancel message /1e-20/ narrowband /1e-30/\n".write(toFile: list, atomically: true, encoding: .utf8)
        let calibration = try SpotterCalibration(phrasesFile: list)
        func heard(_ audio: [Float]) throws -> [Int16] {
            try SpeechConversion.recognizerSamples(from: audio, rate: 48_000)
        }
        let headset = (
            take: try heard(try Self.throughA8kHzHeadset("cancel-forget-it.wav")),
            talk: try heard(try Self.throughA8kHzHeadset("none-budget.wav"))
        )
        let laptop = (
            take: try heard(try WAVCapturePCM.load(Checkout.sample("cancel-forget-it.wav"))),
            talk: try heard(try WAVCapturePCM.load(Checkout.sample("none-budget.wav")))
        )
        #expect(SpotterCalibration.isBandLimited([headset.talk, headset.take]))
        #expect(!SpotterCalibration.isBandLimited([laptop.talk, laptop.take]))
        let throughHeadset = try calibration.calibrate(takes: ["cancel message": [headset.take]], talk: [headset.talk])
        #expect(throughHeadset.bandLimited)
        #expect(throughHeadset.outcomes.map(\.defaultThreshold) == ["1e-30"])
        #expect(
            throughHeadset.phrases.allSatisfy { $0.narrowbandThreshold == nil },
            "the tuned list has one threshold per phrase")
        let throughLaptop = try calibration.calibrate(takes: ["cancel message": [laptop.take]], talk: [laptop.talk])
        #expect(!throughLaptop.bandLimited)
        #expect(throughLaptop.outcomes.map(\.defaultThreshold) == ["1e-20"])
    }
}

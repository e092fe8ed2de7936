import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Synchronization
import Testing

/// One decode's strongest spot answers, for every stricter threshold, what a decode at that threshold would have
/// spotted: the reading calibration's threshold search relies on, checked against pocketsphinx itself.
@Suite struct SpotStrengthTests {
    /// A model whose dictionary holds only the phrase's words (as the spotter's own): loads in a blink.
    static func model(for phrase: String, in folder: TemporaryDirectory) throws -> PocketSphinxModel {
        var model = PocketSphinxModel.debianEnglish
        let words = Set(phrase.split(separator: " ").map(String.init))
        let lines = try String(contentsOfFile: model.dictionary, encoding: .utf8).split(separator: "\n").filter {
            let head = $0.prefix { $0 != " " }
            return words.contains(String(head.prefix { $0 != "(" }))
        }
        model.dictionary = folder.file("phrase.dict")
        try (lines.joined(separator: "\n") + "\n").write(toFile: model.dictionary, atomically: true, encoding: .utf8)
        return model
    }

    /// Spotted as the live spotter does: the hypothesis read after each tenth of a second.
    static func spotted(_ samples: [Int16], by decoder: PocketSphinxDecoder) throws -> Bool {
        try decoder.start()
        defer { _ = try? decoder.end() }
        for start in stride(from: 0, to: samples.count, by: 1_600) {
            try decoder.process(Array(samples[start..<min(start + 1_600, samples.count)]))
            if !decoder.hypothesis.isEmpty { return true }
        }
        return false
    }

    /// Each recording's strongest spot is where a decode's answer flips: decoded at the strictest threshold the
    /// reading says spots it, the phrase is spotted; a hair stricter, it is not. Recordings chosen to flip between
    /// 1e-15 and 1e-45, where calibration searches.
    @Test func aDecodeAtEachThresholdSpotsExactlyWhereTheStrongestSpotSays() throws {
        let folder = TemporaryDirectory("spot-strength")
        let phrase = "send message"
        let model = try Self.model(for: phrase, in: folder)
        func decoder(_ threshold: Double) throws -> PocketSphinxDecoder {
            let file = folder.file("list.txt")
            try "\(phrase) /\(threshold)/\n".write(toFile: file, atomically: true, encoding: .utf8)
            return try PocketSphinxDecoder(model: model, keyphrases: file)
        }
        func noisy(_ clip: String, snr: Double, seed: UInt64) throws -> [Int16] {
            try SpeechConversion.recognizerSamples(from: Noise.clip(clip, snr: snr, seed: seed), rate: 48_000)
        }
        // The phrase in noise, spotted from about 1e-18, 1e-22 and 1e-30 on.
        let recordings = [
            try noisy("send-buy-milk.wav", snr: 20, seed: 3), try noisy("send-kal-dinner.wav", snr: 10, seed: 3),
            try noisy("send-kal-dinner.wav", snr: 10, seed: 4),
        ]
        // Each recording is heard by fresh decoders: a decoder's running cepstral mean carries what it heard before
        // into the next recording, which the reading and the decodes must share.
        for (index, samples) in recordings.enumerated() {
            let lenient = try decoder(1e-50)
            let strongest = try #require(try lenient.strongestSpot(in: samples), "recording \(index)")
            // The strictest threshold spotting it, 10^-spots, and one a hair stricter, 10^-misses.
            var misses = 0.0, spots = 80.0
            for _ in 0..<60 {
                let middle = (misses + spots) / 2
                if lenient.strength(of: pow(10, -middle)) <= strongest { spots = middle } else { misses = middle }
            }
            #expect((15...45).contains(spots), "recording \(index) flips at 1e-\(spots)")
            #expect(try Self.spotted(samples, by: decoder(pow(10, -spots))), "recording \(index) at 1e-\(spots)")
            #expect(!(try Self.spotted(samples, by: decoder(pow(10, -misses)))), "recording \(index) at 1e-\(misses)")
        }
        // Another command is not spotted at all, read or decoded.
        let other = try SpeechConversion.recognizerSamples(fromFile: Checkout.sample("cancel-kal-wrong.wav"))
        #expect(try decoder(1e-50).strongestSpot(in: other) == nil)
        #expect(!(try Self.spotted(other, by: decoder(1e-50))))
    }

    @Test func silenceHasNoSpot() throws {
        let folder = TemporaryDirectory("spot-strength")
        let file = folder.file("list.txt")
        try "send message /1e-50/\n".write(toFile: file, atomically: true, encoding: .utf8)
        let decoder = try PocketSphinxDecoder(model: try Self.model(for: "send message", in: folder), keyphrases: file)
        #expect(try decoder.strongestSpot(in: [Int16](repeating: 0, count: 32_000)) == nil)
    }
}

/// sphinxbase keeps one log stream for the whole process: decoders built and freed on several threads at once, while
/// others decode, must not touch it (a decoder given a log file of its own closed the stream another was writing
/// to, and the process crashed).
@Suite struct DecodersOnSeveralThreadsTests {
    @Test func decodersBuiltAndDecodingOnThreeThreadsAtOnceAllFinish() throws {
        let folder = TemporaryDirectory("threads")
        let list = folder.file("list.txt")
        try "send message /1e-20/\n".write(toFile: list, atomically: true, encoding: .utf8)
        let model = try SpotStrengthTests.model(for: "send message", in: folder)
        let samples = try SpeechConversion.recognizerSamples(fromFile: Checkout.sample("send-buy-milk.wav"))
        let spotted = Mutex(0)
        let group = DispatchGroup()
        for _ in 0..<3 {
            group.enter()
            Thread {
                defer { group.leave() }
                for _ in 0..<8 {
                    guard let decoder = try? PocketSphinxDecoder(model: model, keyphrases: list),
                        (try? decoder.strongestSpot(in: samples)) != nil
                    else { continue }
                    spotted.withLock { $0 += 1 }
                }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(spotted.withLock { $0 } == 24, "every decoder spotted the clean send command")
    }
}

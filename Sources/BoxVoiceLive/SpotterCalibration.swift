import Foundation

/// Tunes the command spotter's thresholds to one voice and microphone: each phrase is spotted alone, at thresholds
/// from strict to lenient, over the user's own takes of it (which it should find) and over their ordinary talk and
/// their takes of the other commands (where it must stay silent). Each phrase gets, of the thresholds that find as
/// many of its takes as any does without a single false hit (`choice`), the one nearest its default; a phrase with
/// no takes, or none found, keeps the default. The result is a phrases file in the same format, groups kept.
public struct SpotterCalibration: Sendable {
    public typealias Phrase = SpotterPhrase

    /// How one phrase came out.
    public struct Outcome: Sendable, Equatable {
        public var phrase: String
        public var defaultThreshold: String
        public var threshold: String
        public var takes: Int
        /// Takes found at the chosen threshold, and at the default one.
        public var found: Int
        public var foundByDefault: Int
    }

    public static let exponents = [5, 10, 15, 20, 25, 30, 35, 40]
    /// Measured in BENCHMARKS.md at 7c182fc (calibration): without it, thresholds chosen on 26 s of talk fired on
    /// held-out talk.
    public static let margin = 10

    public let phrases: [Phrase]
    public let model: PocketSphinxModel

    public init(phrasesFile: String, model: PocketSphinxModel = .debianEnglish) throws {
        phrases = try SpotterPhrases.load(phrasesFile)
        self.model = model
    }

    init(phrases: [Phrase], model: PocketSphinxModel) {
        self.phrases = phrases
        self.model = model
    }

    /// The same phrases heard through an adapted acoustic model (`AcousticAdaptation`; nil: the model as shipped).
    public func adapted(_ adaptation: String?) -> SpotterCalibration {
        var adapted = model
        adapted.adaptation = adaptation
        return SpotterCalibration(phrases: phrases, model: adapted)
    }

    /// The defaults a microphone of this band starts from: through a band-limited one, each phrase's narrowband
    /// threshold (the wideband ones hear few commands there), which the tuned list then keeps as its only threshold.
    func startingFrom(narrowband: Bool) -> SpotterCalibration {
        guard narrowband else { return self }
        return SpotterCalibration(
            phrases: phrases.map { entry in
                SpotterPhrase(
                    phrase: entry.phrase, threshold: entry.narrowbandThreshold ?? entry.threshold, group: entry.group)
            }, model: model)
    }

    /// - Parameters:
    ///   - takes: 16 kHz recordings of each phrase.
    ///   - talk: 16 kHz recordings of ordinary speech with no command in it.
    ///   - margin: how many powers of ten more lenient than the chosen threshold must still not fire on the talk.
    ///   - cleaned: tune for the live path heard through this front end (each recording cleaned as it would be).
    /// - Parameter progress: told as each phrase's tuning starts (a calibration from files runs for minutes).
    public func tune(
        takes: CalibrationTakes, talk: [[Int16]], exponents: [Int] = Self.exponents, margin: Int = Self.margin,
        cleaned: SpeechFrontEnd.Settings? = nil, progress: (TuningStep) -> Void = { _ in }
    ) throws -> (phrases: [Phrase], outcomes: [Outcome]) {
        if let cleaned {
            func clean(_ samples: [Int16]) throws -> [Int16] { try SpeechFrontEnd(settings: cleaned).process(samples) }
            return try tune(
                takes: try takes.mapRecordings(clean), talk: talk.map(clean), exponents: exponents, margin: margin
            ) { step in
                var step = step
                step.cleaned = true
                progress(step)
            }
        }
        let folder = try PrivateTemporaryFolder.make("calibrate")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var small = model
        small.dictionary = folder + "/phrases.dict"
        try CommandSpotter.dictionary(for: phrases.map(\.phrase), from: model.dictionary).write(
            toFile: small.dictionary, atomically: true, encoding: .utf8)
        var tuned = phrases
        var outcomes: [Outcome] = []
        let tunable = phrases.filter { !takes.recordings(of: $0.phrase).isEmpty }.count
        var number = 0
        for (index, entry) in phrases.enumerated() {
            let own = takes.recordings(of: entry.phrase)
            guard !own.isEmpty else { continue }
            number += 1
            progress(TuningStep(phrase: entry.phrase, number: number, of: tunable, cleaned: false))
            let others = talk + takes.all(except: entry.phrase)
            // One decode of each recording at the most lenient threshold tried answers for all of them (see
            // `PocketSphinxDecoder.strongestSpot`): eleven decodes of every recording per phrase became one.
            let tried = [entry.threshold] + exponents.flatMap { ["1e-\($0)", "1e-\($0 + margin)"] }
            let list = folder + "/phrase.txt"
            try "\(entry.phrase) /\(tried.map(Self.value).min() ?? 0)/\n".write(
                toFile: list, atomically: true, encoding: .utf8)
            let decoder = try PocketSphinxDecoder(model: small, keyphrases: list)
            let ownSpots = try own.map { try decoder.strongestSpot(in: $0) }
            let otherSpots = try others.map { try decoder.strongestSpot(in: $0) }
            func score(_ threshold: String) -> (found: Int, false: Int) {
                let needed = decoder.strength(of: Self.value(threshold))
                func spotted(_ spots: [PocketSphinxDecoder.SpotStrength?]) -> Int {
                    spots.filter { $0.map { $0 >= needed } ?? false }.count
                }
                return (spotted(ownSpots), spotted(otherSpots))
            }
            let byDefault = score(entry.threshold)
            let best = Self.choice(
                exponents: exponents, start: Self.exponent(of: entry.threshold), margin: margin
            ) { score("1e-\($0)") }
            .map { (threshold: "1e-\($0.exponent)", found: $0.found) }
            if let best, best.found > 0 { tuned[index].threshold = best.threshold }
            outcomes.append(
                Outcome(
                    phrase: entry.phrase, defaultThreshold: entry.threshold, threshold: tuned[index].threshold,
                    takes: own.count,
                    found: best.map { $0.found > 0 ? $0.found : byDefault.found } ?? byDefault.found,
                    foundByDefault: byDefault.found))
        }
        return (tuned, outcomes)
    }

    /// Of the candidate exponents, the one a phrase is given, with the takes it finds (nil: none qualifies).
    ///
    /// A candidate qualifies when it is silent on the talk and the other takes, and stays silent a `margin` more
    /// lenient: half a minute of talk is a small sample of what must not fire, so a loosened threshold must not sit
    /// on the edge of firing. The margin never reaches past the default (`start`), whose leniency was tuned on half
    /// an hour of real keyword-free speech: a default silent on the user's recordings is not tightened because a
    /// threshold far more lenient fires (that tightened the babble room's clean-up phrase from 1e-20 to 1e-10 and
    /// lost a held-out command, BENCHMARKS.md at 7c182fc).
    ///
    /// Of those finding the most takes, the one nearest the default (the stricter on a tie): three takes that a
    /// stricter threshold finds just as well say nothing about the user's next command, so a threshold moves only as
    /// far as finding more takes, or silence on the talk, requires (tightening on ties cost the laptop chain's
    /// held-out commands 13 → 8 of 16, BENCHMARKS.md at 7c182fc).
    public static func choice(
        exponents: [Int], start: Int, margin: Int,
        score: (Int) throws -> (found: Int, false: Int)
    ) rethrows -> (exponent: Int, found: Int)? {
        var silent: [(exponent: Int, found: Int)] = []
        for exponent in exponents {
            let result = try score(exponent)
            let guarded = exponent > start ? exponent + margin : min(exponent + margin, start)
            guard result.false == 0, try score(guarded).false == 0 else { continue }
            silent.append((exponent, result.found))
        }
        let most = silent.map(\.found).max() ?? 0
        return silent.filter { $0.found == most }.min { abs($0.exponent - start) < abs($1.exponent - start) }
    }

    /// A threshold's value as pocketsphinx reads it (what it cannot read counts as 0, the most lenient).
    static func value(_ threshold: String) -> Double { Double(threshold) ?? 0 }

    /// The power of ten of a threshold written `1e-N`; 0 for any other form (then the strictest candidate is nearest).
    public static func exponent(of threshold: String) -> Int {
        threshold.hasPrefix("1e-") ? Int(threshold.dropFirst(3)) ?? 0 : 0
    }

    /// What calibrating for one voice and room chose.
    public struct Calibrated: Sendable {
        public var phrases: [Phrase]
        public var outcomes: [Outcome]
        /// When the live recognizer should hear through the speexdsp front end (setting `front-end`): in a noisy
        /// room, on or off by which finds more of the takes; in a quiet one, auto (it would not clean there anyway,
        /// and cleans if the user takes the microphone somewhere noisy).
        public var frontEnd: FrontEndUse
        /// The recordings' signal-to-noise ratio in dB, which decided whether the front end was tried.
        public var signalToNoise: Double
        /// Takes found with thresholds tuned on the audio as captured, and as cleaned (nil: not tried, a quiet room).
        public var foundRaw: Int
        public var foundCleaned: Int?
        /// The recordings stop at the telephone band (`InputBand`): tuning started from the narrowband thresholds.
        public var bandLimited: Bool
    }

    /// Tunes for the audio as captured and, in a noisy room, for it as the front end cleans it. The front end is
    /// chosen by `prefersCleaned` (given the two tuned lists), or without it when the spotter alone finds more of the
    /// takes cleaned. In a quiet room it is not tried (it costs clean speech).
    /// One phrase's tuning begins: its `number` of `of`, on the recordings as captured or as cleaned.
    public struct TuningStep: Sendable, Equatable {
        public var phrase: String
        public var number: Int
        public var of: Int
        public var cleaned: Bool

        public init(phrase: String, number: Int, of: Int, cleaned: Bool) {
            self.phrase = phrase
            self.number = number
            self.of = of
            self.cleaned = cleaned
        }
    }

    public func calibrate(
        takes: CalibrationTakes, talk: [[Int16]],
        progress: (TuningStep) -> Void = { _ in },
        prefersCleaned: ((_ raw: [Phrase], _ cleaned: [Phrase]) throws -> Bool)? = nil
    ) throws -> Calibrated {
        let recordings = talk + takes.all  // the band is judged over the sequence
        let snr = Self.signalToNoise(recordings)
        let bandLimited = Self.isBandLimited(recordings)
        let base = startingFrom(narrowband: bandLimited)
        let raw = try base.tune(takes: takes, talk: talk, progress: progress)
        let cleaned =
            snr < Self.noiseSuppressionBelowSNR
            ? try base.tune(takes: takes, talk: talk, cleaned: SpeechFrontEnd.Settings(), progress: progress) : nil
        let foundCleaned = cleaned.map { Self.found($0.outcomes) }
        let preference = try cleaned.flatMap { cleaned in try prefersCleaned?(raw.phrases, cleaned.phrases) }
        let cleans = cleaned != nil && (preference ?? ((foundCleaned ?? 0) > Self.found(raw.outcomes)))
        let chosen = cleans ? cleaned ?? raw : raw
        let frontEnd: FrontEndUse = foundCleaned == nil ? .auto : cleans ? .on : .off
        return Calibrated(
            phrases: chosen.phrases, outcomes: chosen.outcomes, frontEnd: frontEnd, signalToNoise: snr,
            foundRaw: Self.found(raw.outcomes), foundCleaned: foundCleaned, bandLimited: bandLimited)
    }

    /// Whether the recordings, heard one after another, are judged band-limited (`InputBand`) by their end.
    public static func isBandLimited(_ recordings: [[Int16]]) -> Bool {
        var band = InputBand()
        for samples in recordings {
            for start in stride(from: 0, to: samples.count - InputBand.frameSamples + 1, by: InputBand.frameSamples) {
                band.add(frame: samples[start..<start + InputBand.frameSamples])
            }
        }
        band.judge()
        return band.isNarrow
    }

    /// Noise suppression is for noise: in a quiet room (or one that only echoes) it costs words (BENCHMARKS.md at
    /// 7c182fc: clean and reverberant clips lose recall through it), so calibration tries it only below this
    /// signal-to-noise ratio.
    public static let noiseSuppressionBelowSNR = 35.0

    /// The recordings' signal-to-noise ratio in dB: the level of their loud 20 ms frames (the 90th percentile) over
    /// that of their quiet ones (the 10th: the room between words). Digital silence counts as very quiet (120 dB).
    public static func signalToNoise(_ recordings: [[Int16]]) -> Double {
        var levels: [Double] = []
        for samples in recordings {
            for start in stride(from: 0, to: samples.count - 319, by: 320) {
                levels.append(RoomNoise.level(samples[start..<start + 320]))
            }
        }
        return RoomNoise.signalToNoise(levels: levels) ?? 0
    }

    /// The user's takes found at the tuned thresholds, over every phrase: what decides whether the front end helps.
    public static func found(_ outcomes: [Outcome]) -> Int { outcomes.map(\.found).reduce(0, +) }

    /// A phrases file for `phrases`, groups kept, under a header saying where it came from.
    public static func render(_ phrases: [Phrase], header: String) -> String {
        var lines = header.split(separator: "\n", omittingEmptySubsequences: false).map { "# " + $0 }
        var group = phrases.first?.group
        for phrase in phrases {
            if phrase.group != group {
                lines.append("")
                group = phrase.group
            }
            lines.append(phrase.line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

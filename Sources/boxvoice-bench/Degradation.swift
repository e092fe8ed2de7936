import BoxVoiceAudio
import BoxVoiceKeywords
import BoxVoiceTestSupport
import Foundation

/// A command clip and the action it should fire.
struct CommandClip {
    let name: String
    let audio: [Float]
    let expected: KeywordAction
    /// Made at bench time in a voice the spotter was never tuned on.
    let unseen: Bool

    /// The command clips of Samples/ and those listed in `extra` ("file<TAB>action" lines, files under `real`).
    static func load(samples: String, extra: String, real: String) throws -> [CommandClip] {
        struct Entry: Decodable {
            let file: String
            let expectedAction: String?
        }
        let entries = try JSONDecoder().decode(
            [Entry].self, from: Data(contentsOf: URL(fileURLWithPath: samples + "/transcripts.json")))
        var clips = try entries.compactMap { entry -> CommandClip? in
            guard let action = entry.expectedAction.flatMap(KeywordAction.init(rawValue:)) else { return nil }
            return CommandClip(
                name: entry.file, audio: try WAVCapturePCM.load(samples + "/" + entry.file), expected: action,
                unseen: false)
        }
        if let text = try? String(contentsOfFile: extra, encoding: .utf8) {
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: "\t").map(String.init)
                guard parts.count == 2, let action = KeywordAction(rawValue: parts[1]) else { continue }
                let quiet = [Float](repeating: 0, count: AudioRate.hertz)
                clips.append(
                    CommandClip(
                        name: parts[0], audio: quiet + (try WAVCapturePCM.load(real + "/" + parts[0])) + quiet,
                        expected: action, unseen: true))
            }
        }
        return clips
    }
}

/// A fixed, repeatable way of making clean audio sound like a real room and microphone.
struct Degradation {
    let name: String
    /// `seed` shifts the noise's fixed seed (0: the section's own noise).
    let make: (_ audio: [Float], _ work: String, _ seed: UInt64) throws -> [Float]

    init(name: String, make: @escaping (_ audio: [Float], _ work: String, _ seed: UInt64) throws -> [Float]) {
        self.name = name
        self.make = make
    }

    func apply(_ audio: [Float], _ work: String, _ seed: UInt64 = 0) throws -> [Float] { try make(audio, work, seed) }

    static func all(babbleFrom real: String) -> [Degradation] {
        let babble = BabbleSource(real: real)
        return [
            Degradation(name: "clean") { audio, _, _ in audio },
            Degradation(name: "white noise, 20 dB SNR") { audio, _, seed in
                mix(audio, white(audio.count, seed: 1 + seed), snr: 20)
            },
            Degradation(name: "pink noise, 20 dB SNR") { audio, _, seed in
                mix(audio, pink(audio.count, seed: 2 + seed), snr: 20)
            },
            Degradation(name: "babble, 20 dB SNR") { audio, _, seed in
                mix(audio, try babble.noise(audio.count, seed: 3 + seed), snr: 20)
            },
            Degradation(name: "white noise, 10 dB SNR") { audio, _, seed in
                mix(audio, white(audio.count, seed: 4 + seed), snr: 10)
            },
            Degradation(name: "reverb (sox reverb 50)") { audio, work, _ in
                try sox(audio, ["reverb", "50"], work: work)
            },
            Degradation(name: "telephone band 200–4000 Hz") { audio, work, _ in
                try sox(audio, ["sinc", "200-4000"], work: work)
            },
            Degradation(name: "laptop chain") { audio, work, seed in
                let room = try sox(audio, ["reverb", "20", "sinc", "150-7000"], work: work)
                return mix(room, pink(room.count, seed: 5 + seed), snr: 15).map { $0 * 0.316 }
            },
        ]
    }

    /// The conditions whose names hold any of `names` (`--conditions`); every one for nil.
    static func matching(_ names: [String]?, babbleFrom real: String) -> [Degradation] {
        let every = all(babbleFrom: real)
        guard let names else { return every }
        return every.filter { condition in names.contains { condition.name.contains($0) } }
    }

    /// The condition called `name` (a room the real-speech streams are played in, `--room`).
    static func named(_ name: String, babbleFrom real: String) throws -> Degradation {
        guard let degradation = all(babbleFrom: real).first(where: { $0.name == name || $0.name.hasPrefix(name) })
        else {
            throw BenchFailure(message: "no condition named '\(name)'")
        }
        return degradation
    }

    /// Noise scaled so that speech over it has `snr` dB (speech level: RMS of its 20 ms frames above −40 dB of the
    /// loudest).
    static func mix(_ speech: [Float], _ noise: [Float], snr: Double) -> [Float] {
        let speechLevel = activeRMS(speech)
        let noiseLevel = max(rms(noise), 1e-9)
        let gain = Float(speechLevel / noiseLevel / pow(10, snr / 20))
        return zip(speech, noise).map { $0 + gain * $1 }
    }

    static func rms(_ samples: [Float]) -> Double {
        sqrt(samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(samples.count, 1)))
    }

    static func activeRMS(_ samples: [Float]) -> Double {
        let frames = stride(from: 0, to: samples.count, by: 960).map {
            rms(Array(samples[$0..<min($0 + 960, samples.count)]))
        }
        let loudest = frames.max() ?? 0
        let active = frames.filter { $0 > loudest * 0.01 }
        return sqrt(active.reduce(0) { $0 + $1 * $1 } / Double(max(active.count, 1)))
    }

    static func white(_ count: Int, seed: UInt64) -> [Float] { Noise.white(count, seed: seed) }

    /// Paul Kellet's pink filter over seeded white noise.
    static func pink(_ count: Int, seed: UInt64) -> [Float] {
        var b = [Double](repeating: 0, count: 7)
        return white(count, seed: seed).map { sample in
            let w = Double(sample)
            b[0] = 0.99886 * b[0] + w * 0.0555179; b[1] = 0.99332 * b[1] + w * 0.0750759
            b[2] = 0.96900 * b[2] + w * 0.1538520; b[3] = 0.86650 * b[3] + w * 0.3104856
            b[4] = 0.55000 * b[4] + w * 0.5329522; b[5] = -0.7616 * b[5] - w * 0.0168980
            let out = b[0] + b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + w * 0.5362
            b[6] = w * 0.115926
            return Float(out * 0.11)
        }
    }

    /// Runs the audio through sox with `effects` (deterministic effects only).
    static func sox(_ audio: [Float], _ effects: [String], work: String) throws -> [Float] {
        let input = work + "/degrade-in.wav", output = work + "/degrade-out.wav"
        let file = try SoundFile.createFloatWAV(path: input, sampleRate: AudioRate.hertz)
        try file.write(audio)
        try file.close()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        process.arguments = [input, output] + effects
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchFailure(message: "sox \(effects.joined(separator: " ")) failed")
        }
        return try WAVCapturePCM.load(output)
    }
}

/// Several people talking at once: four real prompts (other languages included) overlapped at seeded offsets.
final class BabbleSource {
    private let real: String
    private var pool: [[Float]]?

    init(real: String) { self.real = real }

    func noise(_ count: Int, seed: UInt64) throws -> [Float] {
        if pool == nil {
            var loaded: [[Float]] = []
            for language in ["en", "es", "fr"] {
                guard let list = try? String(contentsOfFile: real + "/\(language).tsv", encoding: .utf8) else {
                    continue
                }
                for line in list.split(separator: "\n").prefix(40) {
                    let file = String(line.split(separator: "\t")[0])
                    let audio = try WAVCapturePCM.load(real + "/" + file)
                    if audio.count > AudioRate.hertz { loaded.append(audio) }
                }
            }
            guard !loaded.isEmpty else { throw BenchFailure(message: "no real speech for babble under \(real)") }
            pool = loaded
        }
        var random = SeededRandom(seed: seed)
        var out = [Float](repeating: 0, count: count)
        for _ in 0..<4 {
            var position = 0
            while position < count {
                let voice = pool![Int.random(in: 0..<pool!.count, using: &random)]
                for (offset, sample) in voice.enumerated() where position + offset < count {
                    out[position + offset] += sample
                }
                position += voice.count
            }
        }
        return out
    }
}

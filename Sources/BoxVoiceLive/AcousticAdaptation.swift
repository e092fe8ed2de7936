import Foundation

/// Adapts the acoustic model to one voice and microphone: a global MLLR transform of its Gaussian means, estimated
/// with Debian's sphinxtrain (`bw` aligns the user's takes against their known words, `mllr_solve` fits the
/// transform), which pocketsphinx then applies at load (`PocketSphinxModel.adaptation`). A room's steady noise and a
/// microphone's colouring shift every sound the same way, which one transform can undo from half a minute of takes.
public enum AcousticAdaptation {
    /// A recording whose words are known.
    public struct Take: Sendable {
        public var words: String
        /// 16 kHz mono.
        public var samples: [Int16]

        public init(words: String, samples: [Int16]) {
            self.words = words
            self.samples = samples
        }
    }

    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public enum Code: Sendable, Equatable {
            /// A sphinxtrain or sphinxbase program is not installed.
            case toolMissing
            /// A program ran and failed (its last lines are in `detail`).
            case toolFailed
            /// The model cannot be read or the takes hold no usable speech.
            case unusableInput
        }

        public let code: Code
        public let detail: String

        public init(code: Code, detail: String) {
            self.code = code
            self.detail = detail
        }

        public var description: String {
            switch code {
            case .toolMissing:
                "voice adaptation needs \(detail) (Debian packages sphinxtrain, sphinxbase-utils and pocketsphinx)"
            case .toolFailed: "voice adaptation failed: \(detail)"
            case .unusableInput: "voice adaptation cannot use its input: \(detail)"
            }
        }
    }

    /// Where Debian installs the programs used.
    public struct Tools: Sendable {
        public var featureExtractor = "/usr/bin/sphinx_fe"
        public var modelDefinitionConverter = "/usr/bin/pocketsphinx_mdef_convert"
        public var baumWelch = "/usr/lib/sphinxtrain/bw"
        public var mllrSolver = "/usr/lib/sphinxtrain/mllr_solve"

        public init() {}

        var all: [String] { [featureExtractor, modelDefinitionConverter, baumWelch, mllrSolver] }

        /// The first program that is not there, if any.
        public var missing: String? { all.first { !FileManager.default.isExecutableFile(atPath: $0) } }
    }

    /// Estimates a transform from `takes` and writes it to `path` (a small text file, a few kB).
    public static func estimate(
        from takes: [Take], model: PocketSphinxModel = .debianEnglish, writingTo path: String,
        tools: Tools = Tools()
    ) throws {
        if let missing = tools.missing { throw Failure(code: .toolMissing, detail: missing) }
        let usable = takes.filter { !$0.samples.isEmpty && !$0.words.split(separator: " ").isEmpty }
        guard !usable.isEmpty else { throw Failure(code: .unusableInput, detail: "no takes with words and audio") }
        let folder = try PrivateTemporaryFolder.make("adapt")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let hmm = model.acousticModel
        // The model as bw reads it: its definition as text and its mixture weights as floats.
        try run(tools.modelDefinitionConverter, ["-text", hmm + "/mdef", folder + "/mdef.txt"], in: folder)
        let dump: SenoneDump
        do {
            dump = try SenoneDump(try Data(contentsOf: URL(fileURLWithPath: hmm + "/sendump")))
        } catch {
            throw Failure(code: .unusableInput, detail: "\(error)")
        }
        try dump.mixtureWeightsFile().write(to: URL(fileURLWithPath: folder + "/mixture_weights"))
        try FileManager.default.createDirectory(atPath: folder + "/audio", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/counts", withIntermediateDirectories: true)
        var ids: [String] = [], transcript: [String] = [], words = Set<Substring>()
        for (index, take) in usable.enumerated() {
            let id = "take-\(index)"
            // little-endian on every Linux target
            let bytes = take.samples.withUnsafeBufferPointer { Data(buffer: $0) }
            try bytes.write(to: URL(fileURLWithPath: folder + "/audio/" + id + ".raw"))
            let said = take.words.lowercased().split(separator: " ")
            words.formUnion(said)
            ids.append(id)
            transcript.append("<s> " + said.joined(separator: " ") + " </s> (\(id))")
        }
        try (ids.joined(separator: "\n") + "\n").write(toFile: folder + "/ids", atomically: true, encoding: .utf8)
        try (transcript.joined(separator: "\n") + "\n").write(
            toFile: folder + "/transcript", atomically: true, encoding: .utf8)
        try PronunciationDictionary.subset(of: model.dictionary, keeping: words).write(
            toFile: folder + "/words.dict", atomically: true, encoding: .utf8)
        // Features exactly as the model was trained on (its feat.params), then the alignment statistics.
        try run(
            tools.featureExtractor,
            [
                "-argfile", hmm + "/feat.params", "-samprate", "16000", "-c", folder + "/ids",
                "-di", folder + "/audio", "-do", folder + "/audio", "-ei", "raw", "-eo", "mfc",
                "-raw", "yes", "-input_endian", "little",
            ], in: folder)
        try run(
            tools.baumWelch,
            [
                "-hmmdir", hmm, "-moddeffn", folder + "/mdef.txt", "-mixwfn", folder + "/mixture_weights",
                "-ts2cbfn", ".ptm.", "-feat", "1s_c_d_dd", "-svspec", "0-12/13-25/26-38", "-cmn", "current",
                "-agc", "none", "-dictfn", folder + "/words.dict", "-fdictfn", hmm + "/noisedict",
                "-ctlfn", folder + "/ids", "-lsnfn", folder + "/transcript", "-cepdir", folder + "/audio",
                "-cepext", "mfc", "-accumdir", folder + "/counts",
            ], in: folder)
        let solved = folder + "/mllr_matrix"
        try run(
            tools.mllrSolver,
            [
                "-meanfn", hmm + "/means", "-varfn", hmm + "/variances", "-outmllrfn", solved,
                "-accumdir", folder + "/counts",
            ], in: folder)
        guard FileManager.default.fileExists(atPath: solved) else {
            throw Failure(code: .toolFailed, detail: "mllr_solve wrote no transform")
        }
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.copyItem(atPath: solved, toPath: path)
    }

    /// The longest one program may take: each takes seconds on half a minute of takes, but `bw` retries a file it
    /// cannot read for minutes instead of failing.
    static let programTimeout: TimeInterval = 120

    /// Runs a program to its end with its output kept in a log file; a non-zero exit throws with the log's last lines.
    private static func run(_ program: String, _ arguments: [String], in folder: String) throws {
        let log = folder + "/" + URL(fileURLWithPath: program).lastPathComponent + ".log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)  // opening it next says why if it failed
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        if ended.wait(timeout: .now() + programTimeout) == .timedOut {
            process.terminate()
            process.waitUntilExit()
            throw Failure(
                code: .toolFailed,
                detail:
                    "\(URL(fileURLWithPath: program).lastPathComponent) took over \(Int(programTimeout)) s and was "
                    + "stopped"
            )
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let tail = text.split(separator: "\n").suffix(3).joined(separator: " / ")
            throw Failure(
                code: .toolFailed,
                detail:
                    "\(URL(fileURLWithPath: program).lastPathComponent) exited \(process.terminationStatus): \(tail)")
        }
    }
}

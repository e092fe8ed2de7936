import BoxVoiceKeywords
import Foundation

/// `boxvoice keywords`: the spoken-keyword detector and its golden-vector runner.
enum KeywordsCommand: Command {
    static let name = "keywords"
    static let summary = "detect spoken keywords; validate golden vectors"
    static let usage = """
    Usage: boxvoice keywords detect TEXT [--at-start] [--json] [--keywords FILE]
           boxvoice keywords validate DIR [--keywords FILE]

    detect     prints the command TEXT holds (action, phrase, the text with its tag), or "no keyword".
               --at-start only accepts a phrase with no words before it. Exit 0 either way.
    validate   runs every *.json golden vector in DIR (ops "detect" and "append"), prints each
               failure with its input, expected and actual result, then "N passed, M failed".
               Exits 1 when anything failed or DIR held no vectors.

      --keywords FILE   the vocabulary (default: Models/speech-keywords.en.txt)
    """

    static func run(_ arguments: inout Arguments) throws -> Int32 {
        let keywords = try arguments.option("--keywords")
        guard let verb = arguments.positional() else { throw CLIError.usage("say detect or validate") }
        switch verb {
        case "detect":
            let atStart = arguments.flag("--at-start")
            let json = arguments.flag("--json")
            guard let text = arguments.positional() else { throw CLIError.usage("detect needs the TEXT to look in") }
            try arguments.finish()
            return detect(text, atStart: atStart, json: json, detector: try ModelsDirectory.keywordDetector(override: keywords))
        case "validate":
            guard let directory = arguments.positional() else { throw CLIError.usage("validate needs a folder of vectors") }
            try arguments.finish()
            return try validate(directory, detector: try ModelsDirectory.keywordDetector(override: keywords))
        default:
            throw CLIError.usage("unknown keywords verb '\(verb)'")
        }
    }

    private static func detect(_ text: String, atStart: Bool, json: Bool, detector: KeywordDetector) -> Int32 {
        let found = detector.detect(text, atStart: atStart)
        if json {
            if let found {
                Console.json(["action": found.action.rawValue, "tag": found.tag, "matchedPhrase": found.matchedPhrase,
                              "processedTranscript": found.processedTranscript])
            } else {
                Console.out("null")
            }
        } else if let found {
            Console.out("action: \(found.action.rawValue)\nphrase: \(found.matchedPhrase)\ntext:   \(found.processedTranscript)")
        } else {
            Console.out("no keyword")
        }
        return 0
    }

    private static func validate(_ directory: String, detector: KeywordDetector) throws -> Int32 {
        let names: [String]
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
            throw CLIError.failed("'\(directory)' is not a folder of golden vectors (\(FileProblem.describe(directory))); give the folder, e.g. Vectors/speech-keywords")
        }
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
        } catch {
            throw CLIError.failed("cannot list the vector folder '\(directory)': \(FileProblem.describe(directory))")
        }
        var passed = 0
        var failed = 0
        for name in names {
            let path = (directory as NSString).appendingPathComponent(name)
            let outcome: GoldenVector.Outcome
            if let data = FileManager.default.contents(atPath: path) {
                outcome = GoldenVector.evaluate(data, with: detector)
            } else {
                outcome = .init(passed: false, input: "(unreadable file)", expected: "a readable vector", actual: "cannot read \(path)")
            }
            if outcome.passed {
                passed += 1
            } else {
                failed += 1
                Console.out("FAIL \(name)\n  input:    \(outcome.input)\n  expected: \(outcome.expected)\n  actual:   \(outcome.actual)")
            }
        }
        if names.isEmpty { Console.err("boxvoice keywords: no *.json vectors in '\(directory)'") }
        Console.out("\(passed) passed, \(failed) failed")
        return failed == 0 && !names.isEmpty ? 0 : 1
    }
}

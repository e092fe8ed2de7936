import BoxVoiceKeywords
import CommandGrammar
import Foundation

/// `boxvoice keywords`: the spoken-keyword detector and its golden-vector runner.
enum KeywordsCommand: Command {
    static let keywords = Option.path(
        "--keywords", defaultNote: "Models/speech-keywords.en.txt", help: "the vocabulary")
    static let atStart = Option.flag("--at-start", help: "only accept a phrase with no words before it")
    static let text = ArgumentSpec("TEXT", help: "the words to look in")
    static let folder = ArgumentSpec("DIR", .path, help: "a folder of golden vectors")

    static let spec = CommandSpec(
        "keywords", summary: "find the spoken command in a text, or check the golden vectors",
        options: [keywords],
        verbs: [
            CommandSpec(
                "detect",
                summary:
                    "the command TEXT holds (action, phrase, the text with its tag), or \"no keyword\"; exit 0 either "
                    + "way",
                options: [atStart, CommonOptions.json], arguments: [text]),
            CommandSpec(
                "validate",
                summary: "run every *.json golden vector in DIR; exit 1 when anything failed or DIR held none",
                about: """
                    Runs the ops "detect" and "append", prints each failure with its input, expected and actual \
                    result, then "N passed, M failed".
                    """, arguments: [folder]),
        ])

    static func run(_ invocation: Invocation) throws -> Int32 {
        let keywords = invocation[keywords]
        switch invocation.verb {
        case "detect":
            return detect(
                try invocation.required(text), atStart: invocation[atStart], json: invocation[CommonOptions.json],
                detector: try ModelsDirectory.keywordDetector(override: keywords))
        default:
            return try validate(
                try invocation.required(folder), detector: try ModelsDirectory.keywordDetector(override: keywords))
        }
    }

    private static func detect(_ text: String, atStart: Bool, json: Bool, detector: KeywordDetector) -> Int32 {
        let found = detector.detect(text, atStart: atStart)
        if json {
            if let found {
                Console.json(
                    JSONLine.Keyword(
                        action: found.action.rawValue, tag: found.tag, matchedPhrase: found.matchedPhrase,
                        processedTranscript: found.processedTranscript))
            } else {
                Console.out("null")
            }
        } else if let found {
            Console.out(
                "action: \(found.action.rawValue)\nphrase: \(found.matchedPhrase)\ntext:   \(found.processedTranscript)"
            )
        } else {
            Console.out("no keyword")
        }
        return 0
    }

    private static func validate(_ directory: String, detector: KeywordDetector) throws -> Int32 {
        let names: [String]
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
            throw CLIError.failed(
                "'\(directory)' is not a folder of golden vectors (\(FileProblem.describe(directory))); give the "
                    + "folder, e.g. Vectors/speech-keywords"
            )
        }
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }
                .sorted()
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
                outcome = .init(
                    passed: false, input: "(unreadable file)", expected: "a readable vector",
                    actual: "cannot read \(path)")
            }
            if outcome.passed {
                passed += 1
            } else {
                failed += 1
                Console.out(
                    "FAIL \(name)\n  input:    \(outcome.input)\n  expected: \(outcome.expected)\n  actual:   "
                        + "\(outcome.actual)"
                )
            }
        }
        if names.isEmpty { Console.err("boxvoice keywords: no *.json vectors in '\(directory)'") }
        Console.out("\(passed) passed, \(failed) failed")
        return failed == 0 && !names.isEmpty ? 0 : 1
    }
}

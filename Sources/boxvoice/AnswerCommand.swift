import BoxVoiceContract
import BoxVoiceDictation
import BoxVoiceDaemon
import BoxVoiceStore
import CommandGrammar
import Foundation

/// `boxvoice answer REQUEST`: answer one retranscription request (V1 JSON) from the retained recordings.
enum AnswerCommand: Command {
    static let request = ArgumentSpec("REQUEST", help: "the request JSON, a file holding it, or -")

    static let spec = CommandSpec(
        "answer", summary: "answer one retranscription (last-audio) request by hand",
        about: """
            REQUEST is the V1 request as JSON text, a file holding it, or - for JSON lines on stdin: \
            {"version":1,"requestId":"…","messageId":"…","sessionId":"…"|null}. Answers with the recording (joined \
            into one WAV) when it is kept, else {"none": true}, and prints the outcome.
            """, options: [CommonOptions.box],
        arguments: [request])

    static func run(_ invocation: Invocation) throws -> Int32 {
        let boxName = invocation[CommonOptions.box]
        let source = try invocation.required(request)
        // The request first: a wrong one is said before anything is looked up or sent.
        var lines: [String]
        if source == "-" {
            lines = []
            while let line = readLine() { if !line.trimmingCharacters(in: .whitespaces).isEmpty { lines.append(line) } }
        } else if FileManager.default.fileExists(atPath: source) {
            guard let data = FileManager.default.contents(atPath: source),
                let text = String(data: data, encoding: .utf8)
            else {
                let problem = FileProblem.describe(source)
                throw CLIError.failed(
                    "cannot read the request file '\(source)': "
                        + "\(problem == "it is a file" ? "it is not UTF-8 text" : problem). Nothing was answered."
                )
            }
            lines = [text]
        } else {
            lines = [source]
        }
        let (box, client) = try SelectedBox.client(named: boxName)
        let work = try ScratchDirectory(purpose: "answer", fallback: Paths.cacheDirectory)
        defer { work.remove() }
        let responder = LastAudioResponder(
            box: box.reference, client: client, store: try LocalStore.open(), workDirectory: work.path)
        var failed = false
        for line in lines {
            do {
                let request = try LastAudioRequest.decodeV1(Data(line.utf8))
                switch try responder.answer(request) {
                case .audio(let outcome, let format, let bytes):
                    Console.out(
                        "\(request.requestId): answered with the recording of \(request.messageId) (\(format), "
                            + "\(bytes) bytes): \(describe(outcome, request))"
                    )
                case .none(let outcome):
                    Console.out(
                        "\(request.requestId): no recording of \(request.messageId) is kept; answered none: "
                            + "\(describe(outcome, request))"
                    )
                }
            } catch {
                Console.err("boxvoice answer: \(error)")
                failed = true
            }
        }
        return failed ? 1 : 0
    }

    private static func describe(_ outcome: Wire.LastAudioAnswerOutcome, _ request: LastAudioRequest) -> String {
        switch outcome {
        case .settled: "accepted"
        case .unknownRequest: "the box no longer waits for it (another answer won, or time ran out)"
        case .ignored:
            "IGNORED by the box: the echoed messageId \(request.messageId) did not match request \(request.requestId)"
        }
    }
}

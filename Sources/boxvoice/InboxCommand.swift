import BoxSim
import BoxVoiceContract
import CommandGrammar
import Foundation

/// `boxvoice inbox`: what the embedded local box received — where `dictate` delivers when no box is paired.
enum InboxCommand: Command {
    static let raw = Option.flag("--raw", help: "each message with its speech framing, as the box received it")

    static let spec = CommandSpec(
        "inbox", summary: "list what the embedded local box received",
        about: """
            Lists the messages delivered to the embedded local box (used by `boxvoice dictate` when no box is paired), \
            oldest first, with their message ids, each as it was said (--raw: with its speech framing and command \
            tags, as the box received it). Its data lives in $XDG_DATA_HOME/boxvoice/local-box.
            """,
        options: [CommonOptions.json, raw])

    static func run(_ invocation: Invocation) throws -> Int32 {
        let json = invocation[CommonOptions.json]
        let raw = invocation[raw]
        let path = Paths.embeddedBoxDirectory + "/messages.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            if !json {
                Console.out(
                    "The local box has received nothing yet. `boxvoice dictate` with no paired box sends there.")
            }
            return 0
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let messages: [SimMessage]
        do {
            messages = try decoder.decode([SimMessage].self, from: data)
        } catch {
            throw CLIError.failed(
                "cannot read the local box's messages in \(path): \(error). The file is left as it is.")
        }
        let formatter = ISO8601DateFormatter()
        for message in messages {
            if json {
                Console.json(
                    JSONLine.InboxMessage(
                        messageId: message.messageId, session: message.session,
                        receivedAt: formatter.string(from: message.receivedAt), message: message.message))
            } else {
                Console.out("\(formatter.string(from: message.receivedAt))  \(message.messageId)  (\(message.session))")
                Console.out("  \(raw ? message.message : SpeechFraming.asSaid(message.message))")
            }
        }
        if messages.isEmpty && !json { Console.out("The local box has received nothing yet.") }
        return 0
    }
}

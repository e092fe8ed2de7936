import BoxSim
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceCore
import BoxVoiceStore
import Foundation

/// The store both `outbox` and `recordings` read.
enum LocalStore {
    static var databasePath: String { Paths.dataDirectory + "/boxvoice.sqlite" }

    static func open() throws -> SQLiteDatabase {
        try FileManager.default.createDirectory(atPath: Paths.dataDirectory, withIntermediateDirectories: true)
        return try SQLiteDatabase(path: databasePath)
    }
}

/// `boxvoice outbox`: messages waiting for, or done with, delivery.
enum OutboxCommand: Command {
    static let name = "outbox"
    static let summary = "list, send, retry or discard messages in the durable outbox"
    static let usage = """
    Usage: boxvoice outbox [list] [--json]
           boxvoice outbox send ID       send a draft or a failed message now (same message id)
           boxvoice outbox retry         deliver every pending message that is due, now
           boxvoice outbox discard ID    forget a draft or failed message (and its recording)
    """

    static func run(_ arguments: inout Arguments) throws -> Int32 {
        let json = arguments.flag("--json")
        let verb = arguments.positional() ?? "list"
        let database = try LocalStore.open()
        let outbox = try Outbox(database: database)
        switch verb {
        case "list":
            try arguments.finish()
            let messages = try outbox.all()
            if messages.isEmpty && !json { Console.out("The outbox is empty.") }
            for message in messages {
                if json {
                    Console.json(["messageId": message.messageId, "box": message.box, "state": message.state.rawValue,
                                  "attempts": message.attempts, "lastError": message.lastError ?? NSNull(), "message": message.body])
                } else {
                    Console.out("\(message.messageId)  \(message.box)  \(message.state.rawValue)  attempts \(message.attempts)"
                                + (message.lastError.map { "  (\($0))" } ?? ""))
                }
            }
            return 0
        case "send", "retry":
            var boxes: Set<String>
            if verb == "send" {
                guard let id = arguments.positional() else { throw CLIError.usage("send needs a message id") }
                try arguments.finish()
                guard let message = try outbox.message(id) else { throw CLIError.failed("no message \(id) in the outbox") }
                guard message.state != .delivered else { throw CLIError.failed("\(id) was already delivered") }
                try outbox.requeue(id)
                boxes = [message.box]
            } else {
                try arguments.finish()
                boxes = Set(try outbox.due(now: Date()).map(\.box))
            }
            var failed = false
            for box in boxes.sorted() {
                let (client, embedded) = try clientFor(box: box)
                defer { embedded?.stop() }
                for report in try OutboxDelivery(outbox: outbox, box: box, client: client).deliverDue() {
                    switch report {
                    case .delivered(let id, _): Console.out("delivered \(id)")
                    case .postponed(let id, let reason, _): Console.err("still pending \(id): \(reason)")
                    case .failed(let id, let reason):
                        Console.err("not delivered (kept): \(id): \(reason)")
                        failed = true
                    }
                }
            }
            if boxes.isEmpty { Console.out("Nothing is due.") }
            return failed ? 1 : 0
        case "discard":
            guard let id = arguments.positional() else { throw CLIError.usage("discard needs a message id") }
            try arguments.finish()
            guard let message = try outbox.message(id) else { throw CLIError.failed("no message \(id) in the outbox") }
            guard message.state != .delivered else { throw CLIError.failed("\(id) was delivered; it stays as history") }
            try outbox.discard(id)
            try Retention(database: database).forget(box: message.box, messageId: id)
            try? FileManager.default.removeItem(atPath: Paths.recordings(box: message.box) + "/" + id)
            Console.out("discarded \(id)")
            return 0
        default:
            throw CLIError.usage("unknown outbox verb '\(verb)'")
        }
    }

    /// The client for a box named in the outbox: a paired box, or the embedded local one.
    static func clientFor(box: String) throws -> (BoxClient, BoxSimServer?) {
        if box == EmbeddedBox.name, try BoxRegistry(directory: Paths.configDirectory).box(named: box) == nil {
            let embedded = try EmbeddedBox.start()
            return (embedded.client, embedded.server)
        }
        return (try SelectedBox.client(named: box, deliverPending: false).1, nil)
    }
}

/// `boxvoice recordings`: what retention holds for the box's retranscription requests.
enum RecordingsCommand: Command {
    static let name = "recordings"
    static let summary = "list or forget retained recordings"
    static let usage = """
    Usage: boxvoice recordings [list] [--box NAME] [--json]
           boxvoice recordings forget ID [--box NAME]

    The last 5 recordings per box are kept so the box can ask for them again (retranscription).
    """

    static func run(_ arguments: inout Arguments) throws -> Int32 {
        let json = arguments.flag("--json")
        let boxOption = try arguments.option("--box")
        let verb = arguments.positional() ?? "list"
        let retention = try Retention(database: LocalStore.open())
        let box = try boxOption ?? BoxRegistry(directory: Paths.configDirectory).selectedName() ?? "local"
        switch verb {
        case "list":
            try arguments.finish()
            let held = try retention.recordings(box: box)
            if held.isEmpty && !json { Console.out("No recordings are kept for '\(box)'.") }
            let formatter = ISO8601DateFormatter()
            for recording in held {
                if json {
                    Console.json(["messageId": recording.messageId, "box": recording.box, "recordedAt": formatter.string(from: recording.recordedAt),
                                  "text": recording.text, "session": recording.session ?? NSNull(), "directory": recording.directory])
                } else {
                    Console.out("\(recording.messageId)  \(formatter.string(from: recording.recordedAt))  \(recording.text.prefix(60))")
                }
            }
        case "forget":
            guard let id = arguments.positional() else { throw CLIError.usage("forget needs a message id") }
            try arguments.finish()
            guard try retention.recording(box: box, messageId: id) != nil else { throw CLIError.failed("no recording \(id) is kept for '\(box)'") }
            try retention.forget(box: box, messageId: id)
            Console.out("forgot the recording of \(id)")
        default:
            throw CLIError.usage("unknown recordings verb '\(verb)'")
        }
        return 0
    }
}

/// The local box `dictate` uses when none is paired: boxsim in-process, its data under XDG data.
enum EmbeddedBox {
    static let name = "local"

    static func start() throws -> (server: BoxSimServer, client: BoxClient) {
        let server = try BoxSimServer(configuration: BoxSimConfiguration(dataDirectory: Paths.dataDirectory + "/local-box"))
        let ticket = try PairingLink.parse(server.mintPairingLink()).pairingToken ?? ""
        let token = try BoxClient(baseURL: server.baseURL, token: nil).redeem(pairingToken: ticket, deviceLabel: "boxvoice (embedded)")
        return (server, BoxClient(baseURL: server.baseURL, token: token))
    }
}

import BoxSim
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceStore
import CommandGrammar
import Foundation

/// The message store every command shares (`$XDG_DATA_HOME/boxvoice`).
enum LocalStore {
    static var exists: Bool { FileManager.default.fileExists(atPath: Paths.dataDirectory + "/boxvoice.sqlite") }

    static func open() throws -> MessageStore {
        do {
            return try MessageStore(directory: Paths.dataDirectory)
        } catch let error as StoreError {
            throw CLIError.failed("cannot open boxvoice's message store: \(error)")
        }
    }

    /// A message id as the user typed it (any case).
    static func id(_ text: String) throws -> MessageID {
        guard let id = MessageID(parsing: text) else {
            throw CLIError.usage("'\(text)' is not a message id (a UUID, as `boxvoice outbox` lists them)")
        }
        return id
    }
}

/// `boxvoice outbox`: messages waiting for, or done with, delivery.
enum OutboxCommand: Command {
    static let id = ArgumentSpec("ID", help: "a message id, as `boxvoice outbox` lists it")

    static let spec = CommandSpec(
        "outbox", summary: "list, send, retry or discard messages in the durable outbox", options: [CommonOptions.json],
        verbs: [
            CommandSpec("list", summary: "every message and its state"),
            CommandSpec(
                "send", summary: "send a draft (HQ-transcribed from its audio first) or a failed message now",
                arguments: [id]),
            CommandSpec("retry", summary: "deliver every pending message now, whatever its backoff"),
            CommandSpec(
                "resend",
                summary:
                    "send a possibly-delivered (or failed) message again as a new message, into the box's default "
                    + "session",
                arguments: [id]),
            CommandSpec(
                "discard", summary: "forget a draft, failed or pending message (and its recording)", arguments: [id]),
        ], defaultVerb: "list")

    static func run(_ invocation: Invocation) throws -> Int32 {
        let store = try LocalStore.open()
        switch invocation.verb ?? "list" {
        case "list": return try list(store, json: invocation[CommonOptions.json])
        case "resend": return try resend(try messageID(invocation), in: store)
        case "send": return try deliver(to: [try requestSend(try messageID(invocation), in: store)], from: store)
        case "retry": return try deliver(to: try store.boxesWithWork(), from: store)
        case "discard": return try discard(try messageID(invocation), in: store)
        default: preconditionFailure("a verb the spec declares is handled")
        }
    }

    /// The ID argument (the grammar requires it of the verbs that read it).
    private static func messageID(_ invocation: Invocation) throws -> MessageID {
        try LocalStore.id(try invocation.required(id))
    }

    private static func list(_ store: MessageStore, json: Bool) throws -> Int32 {
        let messages = try store.messages().filter { $0.state != .recording }
        if messages.isEmpty && !json { Console.out("The outbox is empty.") }
        for message in messages {
            if json {
                Console.json(
                    JSONLine.OutboxMessage(
                        messageId: message.id.rawValue, box: message.box.storeKey, state: message.state.rawValue,
                        attempts: message.attempts, lastError: .init(message.lastError),
                        message: .init(message.body), text: .init(message.text), audio: message.hasAudio))
            } else {
                Console.out(
                    "\(message.id)  \(message.box)  \(message.state.rawValue)  attempts \(message.attempts)"
                        + (message.lastError.map { "  (\($0))" } ?? ""))
            }
        }
        return 0
    }

    private static func resend(_ id: MessageID, in store: MessageStore) throws -> Int32 {
        let fresh: MessageID
        do {
            fresh = try store.resendAsNew(id)
        } catch let error as StoreError {
            throw CLIError.failed("\(error); only a possibly-delivered or failed message can be resent as new")
        }
        Console.out("\(id) is resent as the new message \(fresh)")
        guard let message = try store.message(fresh) else { return 1 }
        let (client, embedded) = try clientFor(box: message.box)
        defer { embedded?.stop() }
        return show(OutboxDelivery(store: store, box: message.box, client: client).deliverDue(everything: true))
            ? ExitStatus.success : ExitStatus.refused
    }

    /// Marks a draft or failed message to go now; returns its box.
    private static func requestSend(_ id: MessageID, in store: MessageStore) throws -> BoxReference {
        guard let message = try store.message(id), message.state != .discarded else {
            throw CLIError.failed("no message \(id) is in the outbox")
        }
        guard message.state != .delivered else { throw CLIError.failed("\(id) was already delivered") }
        do {
            try store.requestSend(id)
        } catch let error as StoreError {
            throw CLIError.failed("\(error)")
        }
        return message.box
    }

    /// Finishes and delivers what `boxes` are owed, HQ first where a recording waits for it.
    private static func deliver(to boxes: [BoxReference], from store: MessageStore) throws -> Int32 {
        if let said = store.checkForInterruptedRuns().summary { Console.err(said) }
        let detector = try ModelsDirectory.keywordDetector(override: nil)
        var failed = false
        for box in boxes {
            let (client, embedded) = try clientFor(box: box)
            defer { embedded?.stop() }
            let courier = BoxCourier(store: store, box: box, client: client, detector: detector) { event in
                if case .fallback(let reason, _, _) = event {
                    Console.err("HQ unavailable, sending the live text: \(reason)")
                }
            }
            if !show(courier.run(everything: true)) { failed = true }
        }
        if boxes.isEmpty { Console.out("Nothing is pending.") }
        return failed ? ExitStatus.refused : ExitStatus.success
    }

    private static func discard(_ id: MessageID, in store: MessageStore) throws -> Int32 {
        guard let message = try store.message(id), message.state != .discarded else {
            throw CLIError.failed("no message \(id) is in the outbox")
        }
        do {
            try store.discard(message.id)
        } catch StoreError.notAllowed(_, let state, _) {
            throw CLIError.failed(
                state == .delivered
                    ? "\(id) was delivered; it stays as history"
                    : "\(id) is \(state.rawValue) and cannot be discarded now")
        }
        Console.out("discarded \(id)")
        return 0
    }

    /// Prints what a delivery pass did; false when a message was refused or the store failed.
    private static func show(_ reports: [OutboxDelivery.Report]) -> Bool {
        var fine = true
        for report in reports {
            switch report {
            case .delivered: Console.out(report.summary)
            case .postponed, .held: Console.err(report.summary)
            case .refused, .storeFailed:
                Console.err(report.summary)
                fine = false
            }
        }
        return fine
    }

    /// The client for a box of the outbox: the embedded local one, or a paired box (by type: a paired box can never be
    /// mistaken for the embedded one).
    static func clientFor(box: BoxReference) throws -> (BoxClient, BoxSimServer?) {
        switch box {
        case .embedded:
            let embedded = try EmbeddedBox.start(dataDirectory: Paths.embeddedBoxDirectory)
            return (embedded.client, embedded.server)
        case .paired(let name):
            return (try SelectedBox.client(named: name, deliverPending: false).1, nil)
        }
    }
}

/// `boxvoice recordings`: what retention holds for the box's retranscription requests.
enum RecordingsCommand: Command {
    static let format = ArgumentSpec(
        "FORMAT", .choice(RetentionFormat.allCases.map(\.rawValue)), help: "opus, flac or wav")

    static let spec = CommandSpec(
        "recordings", summary: "list or forget retained recordings",
        about: """
            The last 5 recordings per box are kept so the box can ask for them again (retranscription). Once its \
            message is committed a recording is compressed: Ogg Opus by default (about 8 kB/s: five ten-minute \
            recordings take about 24 MB, and an hour answers whole), FLAC (lossless, about 70 kB/s) or kept as \
            recorded (Float32 WAV, 192 kB/s). `keep-as` sets it for recordings committed from now on.
            """,
        verbs: [
            CommandSpec(
                "list", summary: "the recordings kept for a box", options: [CommonOptions.box, CommonOptions.json]),
            CommandSpec(
                "forget", summary: "delete one recording now", options: [CommonOptions.box],
                arguments: [OutboxCommand.id]),
            CommandSpec(
                "keep-as", summary: "the format recordings are kept in from now on",
                arguments: [format]),
        ], defaultVerb: "list")

    static func run(_ invocation: Invocation) throws -> Int32 {
        let verb = invocation.verb ?? "list"
        let json = verb == "list" && invocation[CommonOptions.json]
        let boxOption = verb == "keep-as" ? nil : invocation[CommonOptions.box]
        let store = try LocalStore.open()
        // `--box` names a box as listings show it (the embedded one as `local`); else the selected paired box, else the
        // embedded one.
        let box: BoxReference =
            try boxOption.map { BoxReference(storeKey: $0) }
            ?? BoxRegistry(directory: Paths.configDirectory).box(named: nil)?.reference ?? .embedded
        switch verb {
        case "list":
            let held = try store.retainedRecordings(box: box)
            if held.isEmpty && !json { Console.out("No recordings are kept for '\(box)'.") }
            let formatter = ISO8601DateFormatter()
            for recording in held {
                if json {
                    Console.json(
                        JSONLine.Recording(
                            messageId: recording.messageId.rawValue, box: recording.box.storeKey,
                            recordedAt: formatter.string(from: recording.recordedAt), text: recording.text,
                            session: .init(recording.session), segments: recording.segments))
                } else {
                    Console.out(
                        "\(recording.messageId)  \(formatter.string(from: recording.recordedAt))  "
                            + "\(SpeechFraming.asSaid(recording.text).prefix(60))"
                    )
                }
            }
        case "keep-as":
            let value = try invocation.required(format)
            guard let format = RetentionFormat(rawValue: value) else {
                throw CLIError.usage(
                    "'\(value)' is not a retention format (\(RetentionFormat.allCases.map(\.rawValue)))")
            }
            try store.setRetentionFormat(format)
            Console.out("recordings are kept as \(format.rawValue) from now on")
            return 0
        case "forget":
            let text = try invocation.required(OutboxCommand.id)
            let id = try LocalStore.id(text)
            guard try store.retainedRecording(box: box, id: id) != nil else {
                throw CLIError.failed("no recording \(id) is kept for '\(box)'")
            }
            try store.forgetRecording(box: box, id: id)
            Console.out("forgot the recording of \(id)")
        default:
            preconditionFailure("a verb the spec declares is handled")
        }
        return 0
    }
}

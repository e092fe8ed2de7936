import BoxVoiceBox
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceStore
import CommandGrammar
import BoxVoiceContract
import Foundation

/// `boxvoice boxes`: list, select and unpair boxes.
enum BoxesCommand: Command {
    static let name = ArgumentSpec("NAME", help: "a paired box, as `boxvoice boxes` lists it")
    static let codec = ArgumentSpec("CODEC", .choice(UploadCodec.allCases.map(\.rawValue)), help: "wav, opus or auto")

    static let spec = CommandSpec(
        "boxes", summary: "list paired boxes, select one, set its upload codec, or unpair it",
        about: """
            The selected box (marked *) is the one dictate and transcribe use unless --box says otherwise. unpair \
            forgets the box, its device token and its retained recordings (revoke the device on the box too).
            """,
        verbs: [
            CommandSpec("list", summary: "every paired box, its address and health", options: [CommonOptions.json]),
            CommandSpec("use", summary: "select the box dictate and transcribe use", arguments: [name]),
            CommandSpec("unpair", summary: "forget a box, its token and its recordings", arguments: [name]),
            CommandSpec("codec", summary: "what HQ segments go to the box as", arguments: [name, codec]),
        ], defaultVerb: "list")

    static func run(_ invocation: Invocation) throws -> Int32 {
        let verb = invocation.verb ?? "list"
        let json = verb == "list" && invocation[CommonOptions.json]
        let registry = BoxRegistry(directory: Paths.configDirectory)
        switch verb {
        case "list":
            let boxes = try registry.boxes()
            let selected = try registry.selectedName()
            let store = LocalStore.exists ? try LocalStore.open() : nil
            func health(_ box: PairedBox) throws -> (word: String, text: String) {
                switch try store?.health(box: box.reference, pairedAt: box.pairedAt) ?? .ok {
                case .ok: return ("ok", "ok")
                case .needsRePair:
                    return (
                        "needs-re-pair", "needs re-pair: the box refused this device; pair it again with a new link"
                    )
                case .unreachable(let since):
                    return (
                        "unreachable",
                        "unreachable since \(ISO8601DateFormatter().string(from: since)): messages wait in the outbox"
                    )
                }
            }
            if json {
                for box in boxes {
                    Console.json(
                        JSONLine.PairedBox(
                            name: box.name, label: box.label, baseURL: box.baseURL, selected: box.name == selected,
                            insecure: box.insecure, health: try health(box).word))
                }
            } else if boxes.isEmpty {
                Console.out("No paired boxes. Pair one with `boxvoice pair 'beebox://pair?…'`.")
            } else {
                for box in boxes {
                    Console.out(
                        "\(box.name == selected ? "*" : " ") \(box.name)  \(box.label)  "
                            + "\(box.baseURL)\(box.insecure ? "  (TLS not verified)" : "")  — \(try health(box).text)"
                    )
                }
            }
        case "codec":
            let name = try invocation.required(name), value = try invocation.required(codec)
            try registry.setUploadCodec(value, for: name)
            Console.out("'\(name)' uploads HQ segments as \(value)")
        case "use":
            let name = try invocation.required(name)
            try registry.select(name)
            Console.out("'\(name)' is now the selected box")
        case "unpair":
            let name = try invocation.required(name)
            try registry.remove(name)
            // Its retained recordings go too (contract §8: unpairing deletes them at once).
            var dropped = 0
            if LocalStore.exists { dropped = try LocalStore.open().forgetBox(.paired(name)) }
            Console.out(
                "forgot '\(name)', its device token and \(dropped) retained recording(s); revoke the device on the box "
                    + "too"
            )
        default:
            preconditionFailure("a verb the spec declares is handled")
        }
        return 0
    }
}

/// The box a command talks to: `--box NAME` or the selected one.
enum SelectedBox {
    /// - Parameter deliverPending: first deliver what the outbox holds for this box (a killed or offline earlier run
    ///   left it): every command that talks to a box does, so nothing waits for the next dictation.
    static func client(named name: String?, deliverPending: Bool = true) throws -> (PairedBox, BoxClient) {
        let registry = BoxRegistry(directory: Paths.configDirectory)
        guard let box = try registry.box(named: name) else {
            if let name { throw CLIError.failed("no paired box is named '\(name)'; `boxvoice boxes` lists them") }
            throw CLIError.failed(
                "no box is paired. Pair one with `boxvoice pair 'beebox://pair?…'` (or run `boxsim` for a local one).")
        }
        guard let token = try registry.token(for: box) else {
            throw CLIError.failed("no device token is stored for '\(box.name)'; pair it again")
        }
        let client = BoxClient(baseURL: box.baseURL, token: token, verifyTLS: !box.insecure)
        if deliverPending { PendingMessages.deliver(box: box.reference, client: client) }
        return (box, client)
    }
}

/// What earlier runs committed but could not deliver.
enum PendingMessages {
    /// Puts right what a killed run left (drafts adopted, messages awaiting HQ finished) and tries every pending
    /// message of `box` once, now; says what happened on stderr. Never fails the command that asked: the messages
    /// stay in the store either way.
    static func deliver(box: BoxReference, client: BoxClient) {
        guard LocalStore.exists else { return }
        do {
            let store = try LocalStore.open()
            let detector = try ModelsDirectory.keywordDetector(override: nil)
            let done = BoxCourier(store: store, box: box, client: client, detector: detector).catchUp()
            if let said = done.recovery.summary { Console.err("boxvoice: \(said)") }
            for report in done.deliveries { Console.err("boxvoice: pending message: \(report.summary)") }
        } catch {
            Console.err("boxvoice: could not read the outbox (\(error)); pending messages stay there")
        }
    }
}

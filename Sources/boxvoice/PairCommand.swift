import BoxVoiceBox
import BoxVoiceContract
import CommandGrammar
import Foundation

/// `boxvoice pair LINK`: redeem a box's pairing link and remember the box.
enum PairCommand: Command {
    static let label = Option.text(
        "--label", placeholder: "NAME", defaultNote: "the link's label", help: "what to call the box here")
    static let insecure = Option.flag("--insecure", help: "turn off TLS verification for this box only")
    static let allowDirectToken = Option.flag(
        "--allow-direct-token", help: "accept a link's raw authToken (a testing switch; such links skip redeem)")
    static let link = ArgumentSpec("LINK", help: "the beebox://pair?… link the box shows (quote it: it holds '&')")

    static let spec = CommandSpec(
        "pair", summary: "pair with a box from its pairing link",
        about: """
            Redeems the link's single-use ticket for a device token (stored in \
            $XDG_CONFIG_HOME/boxvoice/credentials.json, mode 0600) and selects the box. Pairing the same link again \
            does nothing.
            """,
        options: [label, insecure, allowDirectToken, CommonOptions.json], arguments: [link])

    static func run(_ invocation: Invocation) throws -> Int32 {
        let localName = invocation[label]
        let insecure = invocation[insecure]
        let allowDirect = invocation[allowDirectToken]
        let json = invocation[CommonOptions.json]
        let text = try invocation.required(link)

        let link: PairingLink
        do {
            link = try PairingLink.parse(text, allowDirectToken: allowDirect)
        } catch {
            throw CLIError.failed("\(error). Nothing was changed.")
        }
        // The device token travels only over HTTP(S) to the box that issued it; libcurl would happily try FTP.
        let scheme = URLComponents(string: link.baseURL)?.scheme?.lowercased()
        guard scheme == "https" || scheme == "http" else {
            throw CLIError.failed(
                "the pairing link's box address '\(link.baseURL)' is not an http:// or https:// address; boxvoice "
                    + "talks to boxes over HTTP(S) only. Nothing was changed."
            )
        }
        let registry = BoxRegistry(directory: Paths.configDirectory)
        let token: String
        var ticket: String?
        if let direct = link.authToken {
            token = direct
        } else {
            guard let pairingToken = link.pairingToken else {
                throw CLIError.failed(
                    "the pairing link carries no pairing ticket (pairingToken). Ask the box for a new link.")
            }
            if try registry.hasRedeemed(ticket: pairingToken) {
                let existing = try registry.boxes().last { $0.baseURL == link.baseURL }
                report(
                    "already paired with this link\(existing.map { " (box '\($0.name)')" } ?? ""); nothing was changed",
                    box: existing, json: json)
                return 0
            }
            let client = BoxClient(baseURL: link.baseURL, token: nil, verifyTLS: !insecure)
            do {
                token = try client.redeem(pairingToken: pairingToken, deviceLabel: deviceLabel())
            } catch {
                throw CLIError.failed("pairing failed: \(error) Nothing was changed.")
            }
            ticket = pairingToken
        }
        let box = try registry.add(
            label: link.label, baseURL: link.baseURL, session: link.session, token: token,
            preferredName: localName, redeemedTicket: ticket, insecure: insecure)
        report("paired with '\(box.label)' at \(box.baseURL) as '\(box.name)' (selected)", box: box, json: json)
        // Messages the box refused only for the old token go out with the new one.
        if LocalStore.exists {
            let requeued = try LocalStore.open().requeueRefusedForAuthorization(box: box.reference)
            if !requeued.isEmpty {
                Console.err(
                    "\(requeued.count) message(s) refused for the old device token are pending again; they go out with "
                        + "the next command (`boxvoice outbox retry`)"
                )
            }
        }
        return 0
    }

    private static func report(_ message: String, box: PairedBox?, json: Bool) {
        if json {
            Console.json(
                JSONLine.Paired(
                    message: message,
                    box: box.map { JSONLine.Paired.Box(name: $0.name, label: $0.label, baseURL: $0.baseURL) }))
        } else {
            Console.out(message)
        }
    }

    /// What the box shows for this device: the host name.
    private static func deviceLabel() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "boxvoice on Linux" }
        return "boxvoice on " + String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

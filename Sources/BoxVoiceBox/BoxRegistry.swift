import BoxVoiceContract
import Foundation
import Glibc

/// A paired box, as boxvoice remembers it (no secrets: the device token lives in `credentials.json`).
public struct PairedBox: Codable, Sendable, Equatable {
    /// The local name the user selects it by.
    public var name: String
    /// The box's own label from the pairing link.
    public var label: String
    public var baseURL: String
    /// The session the pairing link suggested, if any.
    public var session: String?
    /// TLS verification off: only when the user explicitly marked the box so.
    public var insecure: Bool
    public var pairedAt: Date
    /// What HQ uploads go as: `wav`, `opus` or `auto` (nil: `auto`).
    public var uploadCodec: String?

    /// How the store knows it: a paired box, which the registry never lets take the embedded box's name.
    public var reference: BoxReference { .paired(name) }
}

/// The paired boxes (`boxes.json`) and their device tokens (`credentials.json`, mode 0600) under XDG config.
public struct BoxRegistry: Sendable {
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public enum Code: Sendable, Equatable {
            /// `boxes.json` or `credentials.json` exists but cannot be read: what is paired is unknown.
            case unreadable
            /// It was read but is not what boxvoice writes.
            case damaged
            /// A paired box carries the embedded box's name.
            case reservedName
            case other
        }

        public let code: Code
        public let description: String

        public init(description: String, code: Code = .other) {
            self.code = code
            self.description = description
        }
    }

    private struct BoxesFile: Codable {
        var selected: String?
        var boxes: [PairedBox]
    }

    private struct CredentialsFile: Codable {
        var tokens: [String: String] = [:]
        /// Pairing tickets already redeemed (dead once used), so a link delivered twice redeems once.
        var redeemedTickets: [String] = []
    }

    /// The embedded local box's name in the store and every listing. No paired box may take it: its messages,
    /// drafts and recordings are filed under it, and a paired box of the same name would receive them.
    public static let embeddedBoxName = BoxReference.embeddedName

    public let directory: String
    public var boxesPath: String { directory + "/boxes.json" }
    public var credentialsPath: String { directory + "/credentials.json" }

    public init(directory: String) {
        self.directory = directory
    }

    // MARK: reading

    public func boxes() throws(Failure) -> [PairedBox] { try loadBoxes().boxes }

    public func selectedName() throws(Failure) -> String? { try loadBoxes().selected }

    /// The box named `name`, else the selected one.
    public func box(named name: String?) throws(Failure) -> PairedBox? {
        let file = try loadBoxes()
        guard let wanted = name ?? file.selected else { return nil }
        return file.boxes.first { $0.name == wanted }
    }

    /// The device token for a box; only ever sent as `Authorization: Bearer` to that box.
    public func token(for box: PairedBox) throws(Failure) -> String? { try loadCredentials().tokens[box.name] }

    public func hasRedeemed(ticket: String) throws(Failure) -> Bool {
        try loadCredentials().redeemedTickets.contains(ticket)
    }

    // MARK: writing

    /// Adds a box (selecting it) and stores its token. The name is made unique.
    @discardableResult
    public func add(
        label: String, baseURL: String, session: String?, token: String, preferredName: String?,
        redeemedTicket: String?, insecure: Bool = false
    ) throws(Failure) -> PairedBox {
        var boxes = try loadBoxes()
        var credentials = try loadCredentials()
        // A box already paired (same address) is re-paired in place: a new token, the same name, so its outbox and
        // recordings stay its own.
        if let index = boxes.boxes.firstIndex(where: { $0.baseURL == baseURL }) {
            var box = boxes.boxes[index]
            box.label = label
            box.session = session
            box.insecure = insecure
            box.pairedAt = Date()
            boxes.boxes[index] = box
            boxes.selected = box.name
            credentials.tokens[box.name] = token
            if let redeemedTicket { credentials.redeemedTickets.append(redeemedTicket) }
            try saveCredentials(credentials)
            try saveBoxes(boxes)
            return box
        }
        let stem = Self.slug(preferredName ?? label)
        var name = stem
        var suffix = 2
        while name == Self.embeddedBoxName || boxes.boxes.contains(where: { $0.name == name }) {
            name = "\(stem)-\(suffix)"
            suffix += 1
        }
        let box = PairedBox(
            name: name, label: label, baseURL: baseURL, session: session, insecure: insecure, pairedAt: Date())
        boxes.boxes.append(box)
        boxes.selected = name
        credentials.tokens[name] = token
        if let redeemedTicket { credentials.redeemedTickets.append(redeemedTicket) }
        try saveCredentials(credentials)
        try saveBoxes(boxes)
        return box
    }

    public func select(_ name: String) throws(Failure) {
        var boxes = try loadBoxes()
        guard boxes.boxes.contains(where: { $0.name == name }) else {
            throw Failure(description: "no paired box is named '\(name)'; `boxvoice boxes` lists them")
        }
        boxes.selected = name
        try saveBoxes(boxes)
    }

    /// Sets what a box's HQ uploads go as (`wav`, `opus`, `auto`).
    public func setUploadCodec(_ codec: String, for name: String) throws(Failure) {
        var boxes = try loadBoxes()
        guard let index = boxes.boxes.firstIndex(where: { $0.name == name }) else {
            throw Failure(description: "no paired box is named '\(name)'; `boxvoice boxes` lists them")
        }
        boxes.boxes[index].uploadCodec = codec
        try saveBoxes(boxes)
    }

    /// Forgets a box and its token.
    public func remove(_ name: String) throws(Failure) {
        var boxes = try loadBoxes()
        guard boxes.boxes.contains(where: { $0.name == name }) else {
            throw Failure(description: "no paired box is named '\(name)'; `boxvoice boxes` lists them")
        }
        boxes.boxes.removeAll { $0.name == name }
        if boxes.selected == name { boxes.selected = boxes.boxes.first?.name }
        var credentials = try loadCredentials()
        credentials.tokens.removeValue(forKey: name)
        try saveCredentials(credentials)
        try saveBoxes(boxes)
    }

    // MARK: files

    /// Only a file that does not exist means "nothing paired". One that cannot be read or decoded stops every box
    /// command instead (and is never written over): taken for "none", it sent dictation to the embedded box and let
    /// `pair` replace the user's list.
    private func loadBoxes() throws(Failure) -> BoxesFile {
        guard let data = try Self.contents(boxesPath, holding: "the paired boxes") else {
            return BoxesFile(selected: nil, boxes: [])
        }
        let file: BoxesFile
        do {
            file = try Self.decoder.decode(BoxesFile.self, from: data)
        } catch {
            throw Failure(
                description:
                    "\(boxesPath) is damaged (\(error.localizedDescription)), so no box command can run; it was left "
                        + "as it "
                    + "is. Fix it, or move it aside and pair again", code: .damaged)
        }
        if file.boxes.contains(where: { $0.name == Self.embeddedBoxName }) {
            throw Failure(
                description:
                    "\(boxesPath) names a paired box '\(Self.embeddedBoxName)', the embedded local box's own name, so "
                    + "messages could reach the wrong box; rename it there (and in credentials.json), or unpair it by "
                    + "editing both files",
                code: .reservedName)
        }
        return file
    }

    /// The file's bytes; nil only when it does not exist. `what` names what it holds, for the error.
    private static func contents(_ path: String, holding what: String) throws(Failure) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw Failure(
                description:
                    "\(path) cannot be read (\(String(cString: strerror(errno)))), so \(what) are unknown and no box "
                    + "command can run; it was left as it is. Make it readable (`ls -l \(path)`) and try again",
                code: .unreadable)
        }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(
                    description:
                        "\(path) cannot be read (\(String(cString: strerror(errno)))), so \(what) are unknown and no "
                            + "box "
                        + "command can run; it was left as it is", code: .unreadable)
            }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    private func loadCredentials() throws(Failure) -> CredentialsFile {
        var info = stat()
        guard stat(credentialsPath, &info) == 0 else {
            if errno == ENOENT { return CredentialsFile() }
            throw Failure(
                description:
                    "\(credentialsPath) cannot be checked (\(String(cString: strerror(errno)))); it holds device "
                        + "tokens and was left as it is",
                code: .unreadable)
        }
        if info.st_mode & 0o077 != 0 {
            throw Failure(
                description:
                    "\(credentialsPath) can be read by other users (mode \(String(info.st_mode & 0o777, radix: 8))); "
                        + "it holds device tokens. Run `chmod 600 \(credentialsPath)` and try again"
            )
        }
        guard let data = try Self.contents(credentialsPath, holding: "the device tokens") else {
            return CredentialsFile()
        }
        do {
            return try Self.decoder.decode(CredentialsFile.self, from: data)
        } catch {
            throw Failure(
                description:
                    "\(credentialsPath) is damaged, so no box command can run; it was left as it is. Move it aside and "
                        + "pair again",
                code: .damaged)
        }
    }

    private func saveBoxes(_ file: BoxesFile) throws(Failure) {
        try write(try encode(file), to: boxesPath, mode: 0o644)
    }

    private func saveCredentials(_ file: CredentialsFile) throws(Failure) {
        try write(try encode(file), to: credentialsPath, mode: 0o600)
    }

    private func encode<T: Encodable>(_ value: T) throws(Failure) -> Data {
        do { return try Self.encoder.encode(value) } catch { throw Failure(description: "cannot encode \(T.self)") }
    }

    /// Written to a temporary file created with `mode` from the start (never briefly wider), then renamed.
    private func write(_ data: Data, to path: String, mode: mode_t) throws(Failure) {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw Failure(description: "cannot create \(directory): \(error.localizedDescription)")
        }
        // A config folder an earlier version made 0755 becomes private.
        chmod(directory, 0o700)
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
        fchmod(fd, mode)
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == data.count, synced == 0, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(description: "cannot write \(path): \(reason)")
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Fractional seconds: a refusal and the re-pairing that answers it often fall in the same second, and health
        // ("a 401 since it was last paired") must tell which came first.
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(
                date.formatted(
                    .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)))
        }
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            for style in [Date.ISO8601FormatStyle(includingFractionalSeconds: true), Date.ISO8601FormatStyle()] {
                if let date = try? style.parse(text) { return date }
            }
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not an ISO-8601 date: \(text)"))
        }
        return decoder
    }()

    static func slug(_ text: String) -> String {
        let lowered = text.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }
        let collapsed = String(lowered).split(separator: "-").joined(separator: "-")
        return collapsed.isEmpty ? "box" : collapsed
    }
}

import Foundation

/// A message id in its one canonical spelling: an uppercase UUID, as the iOS app writes it. The box deduplicates
/// and answers retranscription requests by byte-identical id, so no other spelling is ever stored or sent.
public struct MessageID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Accepts any UUID spelling a user may type (lowercase included) and keeps the canonical one.
    public init?(parsing text: String) {
        guard let uuid = UUID(uuidString: text.trimmingCharacters(in: .whitespaces)) else { return nil }
        rawValue = uuid.uuidString.uppercased()
    }

    /// The id exactly as given, only if it already is canonical (a box's request must match byte for byte).
    public init?(exactly text: String) {
        guard let parsed = MessageID(parsing: text), parsed.rawValue == text else { return nil }
        self = parsed
    }

    public static func new() -> MessageID { MessageID(parsing: UUID().uuidString)! }

    public var description: String { rawValue }
    public static func < (a: MessageID, b: MessageID) -> Bool { a.rawValue < b.rawValue }
}

/// A message id travels in JSON as its canonical string; any other spelling is refused when read back.
extension MessageID: Codable {
    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = MessageID(exactly: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not a message id: \(text)"))
        }
        self = id
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

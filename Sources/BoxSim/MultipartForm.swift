import Foundation

/// A `multipart/form-data` body split into its parts, in the order they were sent.
public struct MultipartForm: Sendable {
    public struct Part: Sendable {
        public let name: String
        public let filename: String?
        public let contentType: String?
        public let body: ArraySlice<UInt8>

        /// The box's rule (@fastify/busboy): a part is a file when it has a filename or is typed
        /// `application/octet-stream`; anything else is a text field.
        public var isFile: Bool {
            filename != nil || contentType?.lowercased().hasPrefix("application/octet-stream") == true
        }
    }

    public struct Malformed: Error, Sendable, CustomStringConvertible {
        public let reason: String
        public var description: String { "malformed multipart body: \(reason)" }
    }

    public let parts: [Part]

    public init(body: [UInt8], contentType: String) throws {
        guard contentType.lowercased().hasPrefix("multipart/form-data") else {
            throw Malformed(reason: "not multipart/form-data")
        }
        guard
            let boundaryParameter = contentType.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) })
                .first(where: { $0.lowercased().hasPrefix("boundary=") })
        else { throw Malformed(reason: "no boundary") }
        var boundary = String(boundaryParameter.dropFirst("boundary=".count))
        if boundary.hasPrefix("\""), boundary.hasSuffix("\""), boundary.count >= 2 {
            boundary = String(boundary.dropFirst().dropLast())
        }
        guard !boundary.isEmpty else { throw Malformed(reason: "empty boundary") }
        let delimiter = Array("--\(boundary)".utf8)
        let separator = Array("\r\n--\(boundary)".utf8)
        guard var cursor = Self.find(delimiter, in: body, from: 0) else {
            throw Malformed(reason: "no opening boundary")
        }
        cursor += delimiter.count
        var parts: [Part] = []
        while true {
            if body.count >= cursor + 2, body[cursor] == UInt8(ascii: "-"), body[cursor + 1] == UInt8(ascii: "-") {
                break
            }
            guard body.count >= cursor + 2, body[cursor] == 13, body[cursor + 1] == 10 else {
                throw Malformed(reason: "boundary not followed by CRLF")
            }
            cursor += 2
            guard let headerEnd = Self.find(Array("\r\n\r\n".utf8), in: body, from: cursor) else {
                throw Malformed(reason: "part headers never end")
            }
            let headerText = String(decoding: body[cursor..<headerEnd], as: UTF8.self)
            let bodyStart = headerEnd + 4
            guard let bodyEnd = Self.find(separator, in: body, from: bodyStart) else {
                throw Malformed(reason: "part never closed")
            }
            var name: String?
            var filename: String?
            var type: String?
            for line in headerText.components(separatedBy: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition:") {
                    name = Self.parameter("name", in: line)
                    filename = Self.parameter("filename", in: line)
                } else if lower.hasPrefix("content-type:") {
                    type = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
                }
            }
            guard let name else { throw Malformed(reason: "a part without a name") }
            parts.append(Part(name: name, filename: filename, contentType: type, body: body[bodyStart..<bodyEnd]))
            cursor = bodyEnd + separator.count
        }
        self.parts = parts
    }

    private static func parameter(_ key: String, in line: String) -> String? {
        for piece in line.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard piece.lowercased().hasPrefix(key + "=") else { continue }
            var value = String(piece.dropFirst(key.count + 1))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            return value
        }
        return nil
    }

    /// First occurrence of `needle` at or after `start`: memchr for its first byte, memcmp for the rest.
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, start + needle.count <= haystack.count else { return nil }
        return haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pin in
                let base = hay.baseAddress!
                var position = start
                let last = hay.count - pin.count
                while position <= last {
                    guard let hit = memchr(base + position, Int32(pin[0]), last - position + 1) else { return nil }
                    let offset = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + offset, pin.baseAddress!, pin.count) == 0 { return offset }
                    position = offset + 1
                }
                return nil
            }
        }
    }
}

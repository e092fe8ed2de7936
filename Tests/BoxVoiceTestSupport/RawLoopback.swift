import Foundation
import Glibc

/// A TCP connection to 127.0.0.1 that reads and writes bytes exactly as given: what a conformance check needs to see
/// the wire itself (a missing header, a close frame or its absence), which an HTTP library would smooth over.
public final class RawConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []

    public init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(fd) }

    public func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return }
            offset += sent
        }
    }

    public func write(_ text: String) { write(Array(text.utf8)) }

    /// What the peer did when asked for `count` bytes before `deadline`.
    public enum Read: Equatable {
        case bytes([UInt8])
        /// The peer ended the TCP connection.
        case closed
        case timedOut
    }

    public func read(_ count: Int, before deadline: Date) -> Read {
        while buffer.count < count {
            if let ended = receive(before: deadline) { return ended }
        }
        defer { buffer.removeFirst(count) }
        return .bytes(Array(buffer[0..<count]))
    }

    /// Bytes up to and including `delimiter`.
    public func read(through delimiter: [UInt8], before deadline: Date) -> Read {
        while true {
            if let end = Self.find(delimiter, in: buffer) { return read(end + delimiter.count, before: deadline) }
            if let ended = receive(before: deadline) { return ended }
        }
    }

    /// Waits (at most a second at a time) for bytes and adds what came to `buffer`; returns why no more will come,
    /// or nil to be called again.
    private func receive(before deadline: Date) -> Read? {
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else { return .timedOut }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&poller, 1, Int32(min(left, 1) * 1_000) + 1) == 0 { return nil }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if got <= 0 { return .closed }
        buffer.append(contentsOf: chunk[0..<got])
        return nil
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<start + needle.count].elementsEqual(needle) { return start }
        return nil
    }
}

/// One HTTP/1.1 exchange on its own connection: the request exactly as given, the response as sent.
public struct RawHTTP {
    public struct Response: Sendable, CustomStringConvertible {
        public let status: Int
        /// Header names lowercased; a repeated header keeps its last value.
        public let headers: [String: String]
        public let body: [UInt8]

        public var text: String { String(decoding: body, as: UTF8.self) }
        public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
        public var description: String { "HTTP \(status) \(headers["content-type"] ?? "-") \(text)" }
    }

    public struct Failed: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// - Parameter headers: sent as given, in order (no Content-Type is added); `Content-Length` is added for a body.
    public static func exchange(
        port: Int, method: String, path: String, headers: [(String, String)] = [], body: [UInt8] = [],
        timeout: TimeInterval = 30
    ) throws -> Response {
        let connection = try RawConnection(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        connection.write(Array((head + "\r\n").utf8) + body)
        let deadline = Date().addingTimeInterval(timeout)
        guard case .bytes(let headBytes) = connection.read(through: Array("\r\n\r\n".utf8), before: deadline) else {
            throw Failed(description: "no response head from \(method) \(path)")
        }
        let lines = String(decoding: headBytes, as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var parsed: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            parsed[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(parsed["content-length"] ?? "0") ?? 0
        var content: [UInt8] = []
        if length > 0 {
            guard case .bytes(let bytes) = connection.read(length, before: deadline) else {
                throw Failed(description: "short body from \(path)")
            }
            content = bytes
        }
        return Response(status: status, headers: parsed, body: content)
    }

    public static func json(_ object: Any) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }
}

/// A WebSocket client on a raw connection: it sends exactly the text frames it is given and reports each frame the
/// server sends — including whether the connection ended with a close frame or without one.
public final class RawWebSocket {
    public enum Frame: Equatable {
        case text(String)
        /// A close frame (opcode 8).
        case closeFrame
        case ping
        case pong
        /// The TCP connection ended without a close frame.
        case cut
        case timedOut
    }

    private let connection: RawConnection
    /// The status line and headers of the upgrade answer.
    public let handshake: String

    public init(port: Int, path: String, headers: [(String, String)]) throws {
        connection = try RawConnection(port: port)
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        connection.write(request + "\r\n")
        guard
            case .bytes(let head) = connection.read(
                through: Array("\r\n\r\n".utf8), before: Date().addingTimeInterval(10))
        else {
            throw RawHTTP.Failed(description: "no upgrade answer")
        }
        handshake = String(decoding: head, as: UTF8.self)
    }

    public var upgraded: Bool { handshake.hasPrefix("HTTP/1.1 101") }

    /// Sends a masked text frame (clients must mask).
    public func send(_ text: String) { sendFrame(opcode: 1, Array(text.utf8)) }

    /// Sends an RFC 6455 ping control frame.
    public func sendControlPing() { sendFrame(opcode: 9, []) }

    private func sendFrame(opcode: UInt8, _ payload: [UInt8]) {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65_536 {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        connection.write(frame)
    }

    /// The next frame from the server, waiting at most `timeout`.
    public func next(timeout: TimeInterval = 10) -> Frame {
        let deadline = Date().addingTimeInterval(timeout)
        func take(_ count: Int) -> RawConnection.Read { connection.read(count, before: deadline) }
        let first = take(2)
        guard case .bytes(let start) = first else { return first == .closed ? .cut : .timedOut }
        let opcode = start[0] & 0x0F
        var length = Int(start[1] & 0x7F)
        if length == 126 {
            guard case .bytes(let extra) = take(2) else { return .cut }
            length = Int(extra[0]) << 8 | Int(extra[1])
        } else if length == 127 {
            guard case .bytes(let extra) = take(8) else { return .cut }
            length = extra.reduce(0) { $0 << 8 | Int($1) }
        }
        var payload: [UInt8] = []
        if length > 0 {
            guard case .bytes(let bytes) = take(length) else { return .cut }
            payload = bytes
        }
        switch opcode {
        case 1: return .text(String(decoding: payload, as: UTF8.self))
        case 8: return .closeFrame
        case 9: return .ping
        case 10: return .pong
        default: return next(timeout: max(0, deadline.timeIntervalSinceNow))
        }
    }

    /// The next text frame, skipping control frames; nil when none comes in time or the connection ends.
    public func nextText(timeout: TimeInterval = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            switch next(timeout: deadline.timeIntervalSinceNow) {
            case .text(let text): return text
            case .ping, .pong: continue
            default: return nil
            }
        }
        return nil
    }

    /// The next text frame as a JSON object.
    public func nextJSON(timeout: TimeInterval = 10) -> [String: Any]? {
        nextText(timeout: timeout).flatMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }
}

import Foundation
import Glibc

/// A loopback server that answers each connection with whatever `serve` writes, on a thread of its own: for peers
/// no simulator plays (an answer that never ends, a WebSocket that sends one endless message). Each connection's
/// writer gives up after `seconds`, so the server always stops by itself.
public final class HostileServer: @unchecked Sendable {
    /// Writes to one connection: the request as read, a function that sends bytes (false once the peer is gone).
    public typealias Serve = @Sendable (_ request: String, _ send: ([UInt8]) -> Bool) -> Void

    public let port: Int
    private let listener: Int32
    private let closed = DispatchSemaphore(value: 0)

    public init(seconds: Double = 10, serve: @escaping Serve) throws {
        let (fd, port) = try LoopbackListener.open()
        self.port = port
        listener = fd
        let closed = self.closed
        Thread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    close(fd)
                    closed.signal()
                    return
                }
                Thread {
                    var buffer = [UInt8](repeating: 0, count: 65_536)
                    let count = read(client, &buffer, buffer.count)
                    let request = String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self)
                    let deadline = Date().addingTimeInterval(seconds)
                    serve(request) { bytes in
                        guard Date() < deadline else { return false }
                        var offset = 0
                        while offset < bytes.count {
                            let sent = bytes[offset...].withUnsafeBytes {
                                Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                            }
                            if sent <= 0 { return false }
                            offset += sent
                        }
                        return true
                    }
                    close(client)
                }.start()
            }
        }.start()
    }

    public var baseURL: String { "http://127.0.0.1:\(port)/main/test1" }

    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        _ = closed.wait(timeout: .now() + 5)
    }

    /// An HTTP answer whose body never ends (no length: it would end with the connection, which the server keeps).
    public static func endlessHTTPAnswer(_ request: String, _ send: ([UInt8]) -> Bool) {
        guard
            send(
                Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{\"text\":\"".utf8)
            )
        else { return }
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 65_536)
        while send(chunk) {}
    }

    /// Accepts a WebSocket upgrade, then sends one text message that never ends: a frame that announces 2^40 bytes.
    public static func endlessWebSocketMessage(_ request: String, _ send: ([UInt8]) -> Bool) {
        guard
            let keyLine = request.split(separator: "\r\n").first(where: {
                $0.lowercased().hasPrefix("sec-websocket-key:")
            })
        else { return }
        let key = keyLine.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces)
        let accept = Data(SHA1.digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
        let upgrade =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
                + "\(accept)\r\n\r\n"
        guard send(Array(upgrade.utf8)) else { return }
        // FIN, text; unmasked; 64-bit length 2^40.
        guard send([0x81, 127, 0, 0, 0x01, 0, 0, 0, 0, 0]) else { return }
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 65_536)
        while send(chunk) {}
    }
}

/// SHA-1 (RFC 3174), only for the WebSocket handshake a hostile test server must answer.
enum SHA1 {
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var data = message + [0x80]
        while data.count % 64 != 56 { data.append(0) }
        let bits = UInt64(message.count) * 8
        for shift in stride(from: 56, through: 0, by: -8) {
            data.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        for block in stride(from: 0, to: data.count, by: 64) {
            var w = [UInt32](repeating: 0, count: 80)
            for i in 0..<16 {
                w[i] = (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(data[block + i * 4 + $1]) }
            }
            for i in 16..<80 {
                let x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]
                w[i] = x << 1 | x >> 31
            }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32) =
                    switch i {
                    case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                    case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                    case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                    default: (b ^ c ^ d, 0xCA62_C1D6)
                    }
                let t = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, b << 30 | b >> 2, a, t)
            }
            h[0] = h[0] &+ a; h[1] = h[1] &+ b; h[2] = h[2] &+ c; h[3] = h[3] &+ d; h[4] = h[4] &+ e
        }
        return h.flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> UInt32(24 - 8 * $0)) } }
    }
}

import Foundation
import Glibc

/// A loopback HTTP server that answers every request with one canned reply (by default `200 OK` and an HTML body:
/// a "box" that answers garbage), and keeps what it was sent.
public final class GarbageServer: @unchecked Sendable {
    public let port: Int
    private let listener: Int32
    private let thread: Thread
    private let log = RequestLog()
    private let closed = DispatchSemaphore(value: 0)

    /// The raw requests received so far (headers and any body read in the first read).
    public var requests: [String] { log.all }

    public init(body: String = "<html>proxy error page</html>", reply custom: String? = nil) throws {
        let (fd, port) = try LoopbackListener.open()
        self.port = port
        listener = fd
        let reply =
            custom
            ?? "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: \(body.utf8.count)\r\nConnection: "
                + "close\r\n\r\n\(body)"
        let log = self.log
        let closed = self.closed
        thread = Thread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    // Only this thread closes the listener, so its number cannot be reused under an accept in flight.
                    close(fd)
                    closed.signal()
                    return
                }
                var buffer = [UInt8](repeating: 0, count: 65_536)
                let count = read(client, &buffer, buffer.count)
                log.add(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self))
                _ = reply.withCString { write(client, $0, strlen($0)) }
                close(client)
            }
        }
        thread.start()
    }

    public var baseURL: String { "http://127.0.0.1:\(port)/main/test1" }

    /// Stops listening; when it returns the port is closed.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        _ = closed.wait(timeout: .now() + 5)
    }
}

private final class RequestLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    func add(_ entry: String) { lock.withLock { entries.append(entry) } }
    var all: [String] { lock.withLock { entries } }
}

/// A listening TCP socket on 127.0.0.1 at a free port, for the test servers here.
enum LoopbackListener {
    static func open() throws -> (descriptor: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}

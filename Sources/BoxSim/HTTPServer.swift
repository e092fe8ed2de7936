import CCivetweb
import BoxVoiceContract
import Foundation
import Synchronization

/// A request as the simulator's handlers see it: the body already read (up to the server's limit).
public struct SimRequest: Sendable {
    public let method: String
    /// The decoded path, without the query.
    public let path: String
    public let query: String
    /// Header names lowercased.
    public let headers: [String: String]
    public let body: [UInt8]

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

public struct SimResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// What the box's JSON answers are typed (fastify).
    public static let jsonContentType = "application/json; charset=utf-8"

    public static func json(_ status: Int, _ value: JSONValue) -> SimResponse {
        SimResponse(status: status, headers: [("Content-Type", jsonContentType)], body: Array(value.text.utf8))
    }
}

/// An HTTP server on loopback, on civetweb. This file is the only place that imports the civetweb C module.
final class HTTPServer: @unchecked Sendable {
    // @unchecked: `context` and `webSocketHandlers` are set before serving and cleared only at stop; the rest is
    // behind Mutexes.
    typealias Handler = @Sendable (SimRequest) -> SimResponse

    let port: Int
    private var context: OpaquePointer?
    private let handler: Handler
    private let maxBodyBytes: Int
    /// Request bodies are read no faster than this (nil: unthrottled).
    private let readBitsPerSecond: Double?
    /// The simulated uplink is one link: concurrent uploads share it. When it is next free to carry bytes.
    private let linkFree = Mutex(Date.distantPast)

    struct StartFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    private static let libraryInit: Void = { _ = mg_init_library(0) }()

    /// Listens on 127.0.0.1:`port` (0: any free port).
    init(port: Int, maxBodyBytes: Int, threads: Int = 8, readBitsPerSecond: Double? = nil, handler: @escaping Handler)
        throws
    {
        _ = Self.libraryInit
        self.handler = handler
        self.readBitsPerSecond = readBitsPerSecond
        self.maxBodyBytes = maxBodyBytes
        var callbacks = mg_callbacks()
        // civetweb would print to stderr; the simulator reports through its own log
        callbacks.log_message = { _, _ in 1 }
        let options = [
            "listening_ports", "127.0.0.1:\(port)", "num_threads", "\(threads)", "enable_keep_alive", "yes",
            "request_timeout_ms", "180000",
        ]
        var cStrings = options.map { strdup($0) } + [nil]
        defer { cStrings.forEach { free($0) } }
        let started = cStrings.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { options in
                mg_start(&callbacks, nil, options)
            }
        }
        guard let started else {
            throw StartFailure(message: "cannot listen on 127.0.0.1:\(port) (in use, or not allowed)")
        }
        context = started
        var ports = [mg_server_port](repeating: mg_server_port(), count: 1)
        _ = mg_get_server_ports(started, 1, &ports)
        self.port = Int(ports[0].port)
        mg_set_request_handler(
            started, "/",
            { connection, data in
                let server = Unmanaged<HTTPServer>.fromOpaque(data!).takeUnretainedValue()
                let address = Int(bitPattern: connection)
                return HTTPServer.onAnOrdinaryStack { server.serve(OpaquePointer(bitPattern: address)!) }
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    // MARK: WebSocket

    /// What the server does with WebSocket connections on one path.
    struct WebSocketHandlers: Sendable {
        /// Headers of the upgrade request (names lowercased) → nil to accept, or a JSON body to refuse with 401.
        var authorize: @Sendable ([String: String]) -> String?
        var opened: @Sendable (Int) -> Void
        var received: @Sendable (Int, String) -> Void
        var closed: @Sendable (Int) -> Void
    }

    private var webSocketHandlers: WebSocketHandlers?
    /// Live WebSocket connections by id (their handles' addresses, plain values that may cross threads); a write holds
    /// the lock, so a closing connection is never written to.
    private let connections = Mutex<[Int: Int]>([:])

    func handleWebSockets(path: String, _ handlers: WebSocketHandlers) {
        webSocketHandlers = handlers
        mg_set_websocket_handler(
            context, path,
            { connection, data in
                let server = Unmanaged<HTTPServer>.fromOpaque(data!).takeUnretainedValue()
                let address = Int(bitPattern: connection)
                return HTTPServer.onAnOrdinaryStack { server.webSocketConnect(OpaquePointer(bitPattern: address)!) }
            },
            { connection, data in
                let server = Unmanaged<HTTPServer>.fromOpaque(data!).takeUnretainedValue()
                let address = Int(bitPattern: connection)
                HTTPServer.onAnOrdinaryStack { server.webSocketReady(OpaquePointer(bitPattern: address)!) }
            },
            { connection, bits, payload, length, data in
                let server = Unmanaged<HTTPServer>.fromOpaque(data!).takeUnretainedValue()
                let address = Int(bitPattern: connection), payloadAddress = Int(bitPattern: payload)
                return HTTPServer.onAnOrdinaryStack {
                    server.webSocketData(
                        OpaquePointer(bitPattern: address)!, bits: bits,
                        payload: UnsafeMutablePointer(bitPattern: payloadAddress), length: length)
                }
            },
            { connection, data in
                let server = Unmanaged<HTTPServer>.fromOpaque(data!).takeUnretainedValue()
                let address = Int(bitPattern: connection)
                HTTPServer.onAnOrdinaryStack { server.webSocketClosed(OpaquePointer(bitPattern: address)!) }
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Sends a text frame; false when the connection is gone.
    @discardableResult
    func send(_ text: String, to id: Int) -> Bool {
        connections.withLock { connections in
            guard let connection = connections[id].flatMap(OpaquePointer.init(bitPattern:)) else { return false }
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBytes {
                mg_websocket_write(connection, Int32(MG_WEBSOCKET_OPCODE_TEXT), $0.baseAddress, $0.count) > 0
            }
        }
    }

    /// Cuts a WebSocket connection as the box's keep-alive does (`terminate()`): the TCP connection ends with no
    /// close frame. civetweb offers no such call, so the connection's socket is found by its two ports and shut down;
    /// civetweb then sees the connection end and cleans up as for any dropped client.
    func cut(_ id: Int) {
        let ports: (remote: Int, local: Int)? = connections.withLock { connections in
            guard let connection = connections[id].flatMap(OpaquePointer.init(bitPattern:)),
                let info = mg_get_request_info(connection)
            else {
                return nil
            }
            return (Int(info.pointee.remote_port), Int(info.pointee.server_port))
        }
        guard let ports, let descriptor = Self.socket(remotePort: ports.remote, localPort: ports.local) else { return }
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// The descriptor of this process's TCP socket between `localPort` and `remotePort` on loopback.
    private static func socket(remotePort: Int, localPort: Int) -> Int32? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
        for entry in entries {
            guard let descriptor = Int32(entry) else { continue }
            if port(of: descriptor, peer: true) == remotePort, port(of: descriptor, peer: false) == localPort {
                return descriptor
            }
        }
        return nil
    }

    private static func port(of descriptor: Int32, peer: Bool) -> Int? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(descriptor, $0, &length) : getsockname(descriptor, $0, &length)
            }
        }
        guard result == 0, address.sin_family == sa_family_t(AF_INET) else { return nil }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func id(of connection: OpaquePointer) -> Int { Int(bitPattern: UnsafeRawPointer(connection)) }

    /// Read through civetweb's pointer, never copied: its request record holds 64 headers, and each copy a debug build
    /// makes of it lands on a worker thread's stack, which civetweb keeps at about 100 KB and mostly fills itself.
    private func headers(of connection: OpaquePointer) -> [String: String] {
        guard let info = mg_get_request_info(connection),
            let offset = MemoryLayout<mg_request_info>.offset(of: \mg_request_info.http_headers)
        else { return [:] }
        let list = UnsafeRawPointer(info).advanced(by: offset).assumingMemoryBound(to: mg_header.self)
        var headers: [String: String] = [:]
        for index in 0..<Int(info.pointee.num_headers) {
            guard let name = list[index].name, let value = list[index].value else { continue }
            headers[String(cString: name).lowercased()] = String(cString: value)
        }
        return headers
    }

    private func webSocketConnect(_ connection: OpaquePointer) -> Int32 {
        guard let refusal = webSocketHandlers?.authorize(headers(of: connection)) else { return 0 }
        // Refuse the upgrade with a real HTTP 401, as the box does, so clients can tell "re-pair" from "down".
        let response =
            "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: "
            + "\(refusal.utf8.count)\r\nConnection: close\r\n\r\n\(refusal)"
        _ = Array(response.utf8).withUnsafeBytes { mg_write(connection, $0.baseAddress, $0.count) }
        return 1
    }

    private func webSocketReady(_ connection: OpaquePointer) {
        let id = Self.id(of: connection)
        let address = Int(bitPattern: connection)
        connections.withLock { $0[id] = address }
        webSocketHandlers?.opened(id)
    }

    private func webSocketData(
        _ connection: OpaquePointer, bits: Int32, payload: UnsafeMutablePointer<CChar>?, length: Int
    ) -> Int32 {
        let opcode = bits & 0x0F
        if opcode == Int32(MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE) { return 0 }
        guard opcode == Int32(MG_WEBSOCKET_OPCODE_TEXT) else { return 1 }  // control-frame pings do not count
        let text =
            payload.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? ""
        webSocketHandlers?.received(Self.id(of: connection), text)
        return 1
    }

    private func webSocketClosed(_ connection: OpaquePointer) {
        let id = Self.id(of: connection)
        _ = connections.withLock { $0.removeValue(forKey: id) }
        webSocketHandlers?.closed(id)
    }

    /// Stops listening and waits for running requests.
    func stop() {
        if let context { mg_stop(context) }
        context = nil
    }

    deinit { stop() }

    /// civetweb runs its workers on 100 KB stacks and fills most of them itself; Swift's first use of a type on a
    /// thread (its metadata, set up lazily) and a debug build's frames overran what was left. Every callback runs
    /// on a thread with an ordinary stack while the worker waits for it (so the connection, passed as its address,
    /// stays the worker's throughout): a simulator can afford the thread.
    private static func onAnOrdinaryStack<Result: Sendable>(_ work: @escaping @Sendable () -> Result) -> Result {
        let result = Mutex<Result?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let value = work()
            result.withLock { $0 = value }
            done.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
        done.wait()
        return result.withLock { $0! }
    }

    private func serve(_ connection: OpaquePointer) -> Int32 {
        guard let request = mg_get_request_info(connection) else { return 0 }
        let headers = headers(of: connection)
        let method = request.pointee.request_method.map { String(cString: $0) } ?? "GET"
        let path = request.pointee.local_uri.map { String(cString: $0) } ?? "/"
        let query = request.pointee.query_string.map { String(cString: $0) } ?? ""
        let contentLength = request.pointee.content_length
        let response: SimResponse
        if contentLength > maxBodyBytes {
            response = .json(413, ["error": "Request body too large (limit \(maxBodyBytes / 1_000_000) MB)"])
        } else {
            var body: [UInt8] = []
            if contentLength > 0 { body.reserveCapacity(Int(contentLength)) }
            // Throttled reads take 16 KiB at a time, each waiting for its turn on one shared link: the senders'
            // socket buffers fill and their uploads slow to the link's rate, together, as over a slow uplink.
            var chunk = [UInt8](repeating: 0, count: readBitsPerSecond == nil ? 65_536 : 16_384)
            while body.count <= maxBodyBytes {
                let got = chunk.withUnsafeMutableBytes { mg_read(connection, $0.baseAddress, $0.count) }
                if got <= 0 { break }
                body.append(contentsOf: chunk[0..<Int(got)])
                if let rate = readBitsPerSecond {
                    let done = linkFree.withLock { free -> Date in
                        free = max(free, Date()).addingTimeInterval(Double(got) * 8 / rate)
                        return free
                    }
                    let wait = done.timeIntervalSinceNow
                    if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                }
            }
            response =
                body.count > maxBodyBytes
                ? .json(413, ["error": "Request body too large (limit \(maxBodyBytes / 1_000_000) MB)"])
                : handler(SimRequest(method: method, path: path, query: query, headers: headers, body: body))
        }
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(response.body.count)\r\n\r\n"
        _ = Array(head.utf8).withUnsafeBytes { mg_write(connection, $0.baseAddress, $0.count) }
        if !response.body.isEmpty {
            _ = response.body.withUnsafeBytes { mg_write(connection, $0.baseAddress, $0.count) }
        }
        return Int32(response.status)
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 410: "Gone"
        case 406: "Not Acceptable"
        case 413: "Payload Too Large"
        case 415: "Unsupported Media Type"
        case 500: "Internal Server Error"
        case 504: "Gateway Timeout"
        default: "Status"
        }
    }
}

import Foundation

/// Why the control socket could not be set up or reached, in words for the user.
public struct ControlSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The daemon's end of `$XDG_RUNTIME_DIR/boxvoice/control.sock`: a Unix stream socket, mode 0600 in a 0700 folder,
/// one JSON request line per connection. Only one daemon may own it: an exclusive `flock` on `daemon.lock` beside
/// it is taken first, so a second daemon is refused even while the first is busy, and a socket file left by a
/// killed daemon is replaced.
public final class ControlServer: @unchecked Sendable {
    public typealias Handler = @Sendable (ControlRequest) -> ControlReply

    public let path: String
    private let listener: Int32
    private let lockDescriptor: Int32
    private let handler: Handler
    private let lock = NSLock()
    private var followers: [Int32] = []
    private var stopped = false

    public init(path: String, handler: @escaping Handler) throws {
        self.path = path
        self.handler = handler
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ControlSocketError("cannot create \(folder) for the control socket: \(error.localizedDescription)")
        }
        let lockPath = folder + "/daemon.lock"
        lockDescriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockDescriptor >= 0 else { throw ControlSocketError("cannot open \(lockPath): \(String(cString: strerror(errno)))") }
        guard flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(lockDescriptor)
            throw ControlSocketError("another boxvoice daemon is already running (it holds \(lockPath) and answers on \(path)); stop it first, e.g. `systemctl --user stop boxvoice`")
        }
        unlink(path)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0, var address = Self.address(path) else {
            close(lockDescriptor)
            throw ControlSocketError("cannot create the control socket \(path) (path too long or no sockets)")
        }
        // Created owner-only from the start: no moment exists when another user could connect.
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(previous)
        guard bound == 0, chmod(path, 0o600) == 0, listen(listener, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(listener)
            close(lockDescriptor)
            throw ControlSocketError("cannot listen on \(path): \(reason)")
        }
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "boxvoice control"
        thread.start()
    }

    /// Sends one JSON line to every `status --follow` client; a client that went away is dropped.
    public func broadcast(_ object: [String: Any]) {
        let line = jsonLine(object) + "\n"
        lock.withLock {
            followers = followers.filter { descriptor in
                if Self.write(line, to: descriptor) { return true }
                close(descriptor)
                return false
            }
        }
    }

    /// Closes the socket (removing its file), every follower, and releases the lock.
    public func stop() {
        let wasStopped = lock.withLock {
            defer { stopped = true }
            return stopped
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(path)
        lock.withLock {
            followers.forEach { close($0) }
            followers.removeAll()
        }
        close(lockDescriptor)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            BlockingWork.start("boxvoice.control-client") { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let line = Self.readLine(client) else {
            close(client)
            return
        }
        let reply: ControlReply
        var follow = false
        do {
            let request = try ControlRequest.decode(line)
            reply = handler(request)
            follow = request.follow
        } catch {
            reply = ControlReply(ok: false, state: .unknown, message: "\(error)")
        }
        guard Self.write(jsonLine(reply.object) + "\n", to: client), follow else {
            close(client)
            return
        }
        let kept = lock.withLock {
            guard !stopped else { return false }
            followers.append(client)
            return true
        }
        if !kept { close(client) }
    }

    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    static func readLine(_ descriptor: Int32) -> String? {
        var data = [UInt8]()
        var byte: UInt8 = 0
        while data.count < 4_096 {
            let got = recv(descriptor, &byte, 1, 0)
            if got == 1 {
                if byte == 0x0A { break }
                data.append(byte)
            } else if got < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        return data.isEmpty ? nil : String(decoding: data, as: UTF8.self)
    }

    static func write(_ text: String, to descriptor: Int32) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            bytes = bytes.dropFirst(sent)
        }
        return true
    }
}

/// The command side: `boxvoice start|stop|toggle|cancel|send|status`.
public enum ControlClient {
    /// Sends `request` and hands each line of the answer to `onLine` (the reply, then events when following) until
    /// the daemon closes the connection or `onLine` returns false.
    public static func send(_ request: ControlRequest, path: String, onLine: (String) -> Bool) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0, var address = ControlServer.address(path) else {
            throw ControlSocketError("cannot reach the daemon: bad control socket path \(path)")
        }
        defer { close(descriptor) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            throw ControlSocketError("no boxvoice daemon is running (nothing answers on \(path)). Start one with `boxvoice daemon`, or `systemctl --user start boxvoice` with contrib/boxvoice.service installed.")
        }
        guard ControlServer.write(request.encoded + "\n", to: descriptor) else {
            throw ControlSocketError("the daemon closed the control socket before the request was sent")
        }
        while let line = ControlServer.readLine(descriptor) {
            if !onLine(line) { return }
        }
    }
}

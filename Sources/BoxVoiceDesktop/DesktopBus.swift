import CSDBusShim
import BoxVoiceSync
import Foundation
import Synchronization

/// Why the desktop bus could not be used, with sd-bus's words.
public struct DesktopBusError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable { case connect, call, serve }
    public let code: Code
    public let errno: Int32
    public let message: String
    public var description: String { message }
}

/// One connection to a D-Bus session bus (sd-bus), owned here and closed on deinit. sd-bus connections are not
/// thread-safe: every use goes through the one mutex.
public final class DesktopBus: Sendable {
    // The handle is only touched inside `connection`'s lock.
    private let connection: Mutex<OpaquePointer?>

    /// - Parameter address: a bus address (`unix:path=…`); nil: `$DBUS_SESSION_BUS_ADDRESS`, else the user's bus.
    public init(address: String? = nil) throws(DesktopBusError) {
        var bus: OpaquePointer?
        var error = [CChar](repeating: 0, count: 256)
        let r = bv_bus_open(address, &bus, &error, error.count)
        guard r == 0, let bus else {
            throw DesktopBusError(
                code: .connect, errno: -r, message: "cannot reach the desktop's message bus: \(String(cText: error))")
        }
        connection = Mutex(bus)
    }

    deinit {
        connection.withLock { bus in
            if let bus { bv_bus_close(bus) }
            bus = nil
        }
    }

    func withHandle<T: Sendable>(_ body: (OpaquePointer) throws(DesktopBusError) -> T) throws(DesktopBusError) -> T {
        try connection.withLock { (bus: inout OpaquePointer?) throws(DesktopBusError) -> T in try body(bus!) }
    }
}

/// Desktop notifications (org.freedesktop.Notifications), the freedesktop way every notification daemon speaks.
public struct DesktopNotifier: Sendable {
    public enum Urgency: UInt8, Sendable { case low = 0, normal = 1, critical = 2 }

    private let bus: DesktopBus
    private let app: String

    public init(bus: DesktopBus, app: String = "boxvoice") {
        self.bus = bus
        self.app = app
    }

    /// Shows a notification (replacing `replaces` when not 0, so a turn updates one bubble); returns its id.
    @discardableResult
    public func notify(
        summary: String, body: String, urgency: Urgency = .normal, replaces: UInt32 = 0,
        timeoutMilliseconds: Int32 = -1
    ) throws(DesktopBusError) -> UInt32 {
        let app = self.app
        return try bus.withHandle { (handle) throws(DesktopBusError) -> UInt32 in
            var id: UInt32 = 0
            var error = [CChar](repeating: 0, count: 256)
            let r = bv_notify(
                handle, app, replaces, "audio-input-microphone", summary, body, urgency.rawValue, timeoutMilliseconds,
                &id, &error, error.count)
            guard r == 0 else {
                throw DesktopBusError(
                    code: .call, errno: -r, message: "the notification could not be shown: \(String(cText: error))")
            }
            return id
        }
    }
}

/// A notification server of our own that records what it is asked to show: for tests on a private bus (no desktop
/// runs here), and to see what boxvoice would show on a machine without a notification daemon.
public final class NotificationRecorder: Sendable {
    public struct Shown: Sendable, Equatable {
        public let app: String
        public let summary: String
        public let body: String
        public let urgency: UInt8
    }

    private let bus: DesktopBus
    private let shown = Mutex<[Shown]>([])
    private let running = Atomic<Bool>(true)
    private let finished = Mutex<Bool>(false)
    private let processingEnded = WakeUp()
    /// The C server's state (its callback and context), freed by `stop` once nothing processes the bus; kept as its
    /// address, a plain value that may cross threads.
    private let server = Mutex<UInt>(0)

    public init(address: String) throws(DesktopBusError) {
        bus = try DesktopBus(address: address)
        let context = Unmanaged.passUnretained(self).toOpaque()
        try bus.withHandle { (handle) throws(DesktopBusError) in
            var error = [CChar](repeating: 0, count: 256)
            var served: UnsafeMutableRawPointer?
            let r = bv_serve_notifications(
                handle,
                { context, app, summary, body, urgency in
                    let recorder = Unmanaged<NotificationRecorder>.fromOpaque(context!).takeUnretainedValue()
                    let entry = Shown(
                        app: String(cString: app!), summary: String(cString: summary!), body: String(cString: body!),
                        urgency: urgency)
                    recorder.shown.withLock { $0.append(entry) }
                }, context, &served, &error, error.count)
            server.withLock { $0 = UInt(bitPattern: served) }
            guard r == 0 else {
                throw DesktopBusError(
                    code: .serve, errno: -r, message: "cannot serve notifications: \(String(cText: error))")
            }
        }
        let thread = Thread { [self] in
            while running.load(ordering: .relaxed) {
                _ = try? bus.withHandle { (handle) throws(DesktopBusError) in _ = bv_bus_process(handle, 20_000) }
            }
            finished.withLock { $0 = true }
            processingEnded.ring()
        }
        thread.name = "notification recorder"
        thread.start()
    }

    public var notifications: [Shown] { shown.withLock { $0 } }

    public func stop() {
        running.store(false, ordering: .relaxed)
        processingEnded.wait { finished.withLock { $0 } }
        // Nothing processes the bus now: the C server can go.
        server.withLock { server in
            bv_serve_notifications_end(UnsafeMutableRawPointer(bitPattern: server))
            server = 0
        }
    }
}

fileprivate extension String {
    /// The text of a C buffer the library filled, up to its terminating NUL (the whole buffer if it has none).
    init(cText buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

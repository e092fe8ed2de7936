import BoxSim
import BoxVoiceAudio
import Foundation

/// A boxsim running in-process on a free loopback port, with a paired device token.
public final class SimulatedBox: @unchecked Sendable {
    public let server: BoxSimServer
    public let directory: TemporaryDirectory

    public init(_ configure: (inout BoxSimConfiguration) -> Void = { _ in }) throws {
        directory = TemporaryDirectory("boxsim")
        var configuration = BoxSimConfiguration(dataDirectory: directory.file("data"))
        configure(&configuration)
        server = try BoxSimServer(configuration: configuration)
    }

    /// civetweb's stop waits out its 2 s poll quantum; tests need not wait for it.
    deinit { server.stopInTheBackground(thenRelease: directory) }

    public var baseURL: String { server.baseURL }

    /// The ticket inside a freshly minted pairing link.
    public func mintTicket() -> String {
        let link = server.mintPairingLink()
        return URLComponents(string: link.replacingOccurrences(of: "beebox://pair", with: "x://pair"))!
            .queryItems!.first { $0.name == "pairingToken" }!.value!
    }

    /// A mono Float32 WAV of `seconds` of a quiet tone, written to the box's temporary folder.
    public func wav(seconds: Double, name: String = "clip.wav") throws -> String {
        let path = directory.file(name)
        let file = try SoundFile.createFloatWAV(path: path)
        let frames = Int(seconds * 48_000)
        try file.write((0..<frames).map { Float(sin(Double($0) / 20)) * 0.1 })
        try file.close()
        return path
    }
}

/// Starting a box that a test will restart on the same port. Servers on port 0 get ports from the kernel's
/// ephemeral range (32768 and up), so these use 20000–29999: a parallel test can never take the port between
/// the stop and the restart.
public enum RestartableBox {
    public static func start(_ configuration: BoxSimConfiguration) throws -> BoxSimServer {
        var lastError: Error?
        for _ in 0..<30 {
            var attempt = configuration
            attempt.port = Int.random(in: 20_000..<30_000)
            do { return try BoxSimServer(configuration: attempt) } catch { lastError = error }
        }
        throw lastError!
    }

    /// The same box again on `port` (retrying briefly while the old socket is released).
    public static func restart(_ configuration: BoxSimConfiguration, port: Int) throws -> BoxSimServer {
        var attempt = configuration
        attempt.port = port
        var lastError: Error?
        for _ in 0..<50 {
            do { return try BoxSimServer(configuration: attempt) } catch {
                lastError = error
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        throw lastError!
    }
}

/// `boxvoice pair` failed while a test set up its user.
public struct PairingFailed: Error, CustomStringConvertible {
    public let output: String
    public var description: String { "boxvoice pair failed: \(output)" }
}

extension Run {
    /// A user under `home` (the `isolatedEnvironment`) paired with `server` through `boxvoice pair`, as most CLI tests
    /// start; returns that environment.
    public static func pairedEnvironment(
        _ home: TemporaryDirectory, with server: BoxSimServer, label: String = "Bee Box"
    ) throws -> [String: String] {
        let environment = isolatedEnvironment(home)
        let paired = try process(boxvoice, ["pair", server.mintPairingLink(label: label)], environment: environment)
        guard paired.status == 0 else { throw PairingFailed(output: paired.stdout + paired.stderr) }
        return environment
    }
}

extension Run {
    /// Replaces the device token of the user under `home` with one the box never issued, as a box that revoked this
    /// device would see it; returns the box's local name. The real token is registered for the leak scan first.
    @discardableResult
    public static func revokeStoredToken(_ home: TemporaryDirectory) throws -> String {
        let path = home.file("config/boxvoice/credentials.json")
        guard
            var object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                as? [String: Any],
            var tokens = object["tokens"] as? [String: String], let name = tokens.keys.sorted().first
        else {
            throw PairingFailed(output: "no stored token in \(path)")
        }
        tokens.values.forEach(Secrets.register)
        tokens[name] = "revoked-device-token"
        object["tokens"] = tokens
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        return name
    }
}

extension BoxSimServer {
    /// Stops the server on a thread of its own, then lets `held` go (the box's folder, removed with it). civetweb's
    /// stop waits out its 2 s poll quantum: on Dispatch's global queue, whose threads are as many as the cores, the
    /// stops of a whole run queued behind one another, held up other tests' work there, and those still queued when
    /// the process exited left their folders in /tmp (about 150 a run).
    public func stopInTheBackground(thenRelease held: (any Sendable)? = nil) {
        let thread = Thread { [self] in
            stop()
            _ = held
        }
        thread.start()
    }
}

import BoxSim
import BoxVoiceDictation
import Foundation

/// A home of its own for the `boxvoice` a bench spawns (data, config and runtime folders, settings if given), paired
/// with a boxsim that serves it. A `cache` shares the live decoder's dictionary cut between homes, so only the first
/// run of a bench makes it.
struct PairedHome {
    let box: BoxSimServer
    let environment: [String: String]

    init(
        boxvoice: String, folder: String, cache: String? = nil, box configuration: BoxSimConfiguration,
        settings: UserSettings? = nil
    ) throws {
        if let settings {
            try FileManager.default.createDirectory(
                atPath: folder + "/config/boxvoice", withIntermediateDirectories: true)
            try settings.encoded().write(to: URL(fileURLWithPath: folder + "/config/boxvoice/config.json"))
        }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = folder + "/data"
        environment["XDG_CONFIG_HOME"] = folder + "/config"
        environment["XDG_RUNTIME_DIR"] = folder + "/run"
        if let cache { environment["XDG_CACHE_HOME"] = cache }
        try FileManager.default.createDirectory(
            atPath: folder + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        self.environment = environment
        box = try BoxSimServer(configuration: configuration)
        let (status, _) = try spawnAndMeasure(boxvoice, ["pair", box.mintPairingLink()], environment: environment)
        guard status == 0 else {
            box.stop()
            throw BenchFailure(message: "boxvoice pair exited with \(status) in \(folder)")
        }
    }

    func stop() { box.stop() }
}

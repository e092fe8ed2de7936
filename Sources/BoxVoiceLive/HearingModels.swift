import Foundation

/// Where the neural hearing parts are: the files `make setup` builds into `.build/hearing/models` and
/// `make install` copies beside Models.
public struct HearingModels: Sendable, Equatable {
    /// Whisper's weights in ggml format (base, multilingual, converted by scripts/whisper-ggml.py and quantized to
    /// 8 bits by whisper.cpp's own tool).
    public var whisper: String
    /// Silero VAD v6.2 in ggml format.
    public var voiceActivity: String

    public init(whisper: String, voiceActivity: String) {
        self.whisper = whisper
        self.voiceActivity = voiceActivity
    }

    /// The two files in one folder, under the names `make setup` gives them.
    public init(folder: String) {
        self.init(whisper: folder + "/ggml-base-q8_0.bin", voiceActivity: folder + "/silero-v6.2.0.bin")
    }

    /// Where a program finds them: installed beside its binary (`<prefix>/share/boxvoice/Models`, `make install`),
    /// or in the build folder of the checkout it was built in (`.build/hearing/models`, `make setup`).
    public static func besideThisProgram() -> HearingModels? {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let installed = HearingModels(
            folder: directory.deletingLastPathComponent().appendingPathComponent("share/boxvoice/Models").path)
        if installed.arePresent { return installed }
        while directory.path != "/" {
            let built = HearingModels(folder: directory.appendingPathComponent(".build/hearing/models").path)
            if built.arePresent { return built }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    /// Whether both are there.
    public var arePresent: Bool {
        [whisper, voiceActivity].allSatisfy { FileManager.default.isReadableFile(atPath: $0) }
    }
}

/// A failure of a neural hearing part (Whisper, the VAD or the noise filter), with a code a caller can switch on.
public struct HearingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The model file is missing or is not a model the library can load.
        case modelUnusable
        /// Decoding ran and failed.
        case decodeFailed
        /// Decoding was stopped because its deadline passed.
        case abandoned
    }
    public let code: Code
    public let detail: String
    public var description: String { "hearing: \(detail)" }
}

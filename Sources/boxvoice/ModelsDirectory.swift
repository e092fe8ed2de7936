import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceLive
import Foundation

/// Finds `Models/` from any working directory: the installed copy beside the binary (`<prefix>/share/boxvoice/Models`,
/// `make install`), then `$BOXVOICE_MODELS`, then the checkout the binary was built in (walking up from it).
enum ModelsDirectory {
    static func locate() throws -> String {
        let fileManager = FileManager.default
        let executable =
            (try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let installed = directory.deletingLastPathComponent().appendingPathComponent("share/boxvoice/Models").path
        if fileManager.fileExists(atPath: installed + "/speech-keywords.en.txt") { return installed }
        if let configured = ProcessInfo.processInfo.environment["BOXVOICE_MODELS"], !configured.isEmpty {
            guard fileManager.fileExists(atPath: configured) else {
                throw CLIError.failed(
                    "BOXVOICE_MODELS names '\(configured)', which does not exist. Point it at boxvoice's Models folder "
                        + "or unset it."
                )
            }
            return configured
        }
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("Models").path
            if fileManager.fileExists(atPath: candidate + "/speech-keywords.en.txt") { return candidate }
            directory.deleteLastPathComponent()
        }
        throw CLIError.failed(
            "cannot find boxvoice's Models folder (looked in \(installed), BOXVOICE_MODELS and above \(executable)). "
                + "Install boxvoice with `make install`, or set BOXVOICE_MODELS to the Models folder of a checkout.")
    }

    /// The keyword vocabulary: `--keywords FILE` if given, else `Models/speech-keywords.en.txt`.
    static func keywordsFile(override: String?) throws -> String {
        if let override { return override }
        return try locate() + "/speech-keywords.en.txt"
    }

    /// The detector for that vocabulary, with a missing or malformed file said in words.
    static func keywordDetector(override: String?) throws -> KeywordDetector {
        let path = try keywordsFile(override: override)
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CLIError.failed(
                "cannot read the keyword vocabulary '\(path)': \(FileProblem.describe(path)). Give --keywords an "
                    + "existing file."
            )
        }
        do {
            return try KeywordDetector(contentsOf: path)
        } catch let error as Vocabulary.ParseError {
            throw CLIError.failed("the keyword vocabulary is malformed: \(error)")
        }
    }

    /// The command spotter's phrases: the user's calibrated copy (`boxvoice calibrate`) when there is one, else the
    /// Models default.
    static func spotterPhrases() throws -> String {
        let calibrated = Paths.calibratedSpotter
        if FileManager.default.fileExists(atPath: calibrated) { return calibrated }
        return try locate() + "/command-spotter.en.txt"
    }

    /// The neural hearing parts: installed beside Models (`make install`), or in the build folder of the checkout
    /// the binary was built in (`make setup` puts them in `.build/hearing/models`).
    static func hearingModels() -> HearingModels? {
        if let models = try? locate(), HearingModels(folder: models).arePresent { return HearingModels(folder: models) }
        return HearingModels.besideThisProgram()
    }

    /// The utterance-end road as the user's setting asks for it; nil hears with pocketsphinx alone. A missing part
    /// is said once on stderr and dictation goes on with pocketsphinx, rather than not at all.
    static func whisperHearing(_ choice: RecognizerChoice) -> LiveTranscriber.WhisperHearing? {
        guard choice == .whisper else { return nil }
        guard let models = hearingModels() else {
            Console.err(
                "boxvoice: Whisper's model files are missing, so pocketsphinx alone hears this time (more words "
                    + "wrong). "
                    + "Run `make setup` in the checkout, or `make install` again.")
            return nil
        }
        let prompt = (try? locate()).flatMap {
            try? String(contentsOfFile: $0 + "/whisper-prompt.en.txt", encoding: .utf8)
        }
        return LiveTranscriber.WhisperHearing(
            models: models, prompt: prompt?.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The acoustic model's adaptation to the user's voice and microphone (`boxvoice calibrate`), if one was made.
    static func voiceAdaptation() -> String? {
        FileManager.default.fileExists(atPath: Paths.voiceAdaptation) ? Paths.voiceAdaptation : nil
    }
}

import CommandGrammar

/// Options several commands share, declared once so they read and explain the same everywhere.
enum CommonOptions {
    static let device = Option.text(
        "--device", placeholder: "PCM", defaultNote: "the configuration's device, else default",
        help: "ALSA capture PCM (list them with `boxvoice devices`)")
    static let alsaConfig = Option.path(
        "--alsa-config", help: "resolve PCM names in this self-contained ALSA configuration file")
    static let json = Option.flag("--json", help: "print one JSON object per event or result")
    static let realtime = Option.flag(
        "--realtime",
        help: "pace a PCM without a clock (an ALSA `file` PCM, --input) like a microphone: N seconds take N s")
    static let box = Option.text(
        "--box", placeholder: "NAME", defaultNote: "the selected box", help: "the paired box to use")
    static let input = Option.path(
        "--input", placeholder: "FILE.wav", help: "play a WAV through the same capture path as a microphone")
    static let keywords = Option.path(
        "--keywords", help: "another vocabulary file in the format of Models/speech-keywords.en.txt")
    static let codec = Option.choice(
        "--codec", ["wav", "opus", "auto"], defaultNote: "the box's `boxes codec` setting, else auto",
        help: "what segments go to HQ as (auto: Ogg Opus when it reaches the box sooner than WAV on the measured link)")
}

enum CLIError: Error, CustomStringConvertible {
    /// The command line is wrong; the message says how.
    case usage(String)
    /// Something failed; the message says what happened, what was kept, and what to do.
    case failed(String)

    var description: String {
        switch self {
        case .usage(let message), .failed(let message): message
        }
    }
}

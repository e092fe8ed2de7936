import CommandGrammar
import BoxVoiceAudio

/// `boxvoice devices`: the capture PCMs the ALSA configuration offers.
enum DevicesCommand: Command {
    static let dir = Option.path(
        "--dir", placeholder: "DIR", defaultNote: "$XDG_CACHE_HOME/boxvoice/file-pcm",
        help: "where the configuration and raw audio go")
    static let name = Option.text("--name", placeholder: "NAME", default: "boxvoice_file", help: "the PCM's name")
    static let format = Option.choice(
        "--format", ["FLOAT_LE", "S32_LE", "S16_LE"], placeholder: "F", default: "FLOAT_LE",
        help: "the sample format it delivers")
    static let integerOnly = Option.flag("--integer-only", help: "refuse float formats, like many USB microphones")
    static let wav = ArgumentSpec("WAV", .path, help: "the sound file to play")

    static let spec = CommandSpec(
        "devices", summary: "list ALSA capture devices, or make a capture PCM that plays a WAV",
        about: """
            Lists the PCMs that can capture, as alsa-lib's device hints name them. Pass one to `boxvoice record \
            --device NAME`. PCMs you define yourself in ~/.asoundrc work too, even when they carry no hint.
            """,
        verbs: [
            CommandSpec("list", summary: "the PCMs that can capture", options: [CommonOptions.json]),
            CommandSpec(
                "file-pcm", summary: "an ALSA capture PCM that plays a WAV, for trying boxvoice with no microphone",
                about: """
                    Writes an ALSA configuration (DIR/NAME.asound.conf) defining a capture PCM that plays WAV through \
                    alsa-lib's file plugin; the audio it plays is a raw file beside it, named by its absolute path, so \
                    the PCM works from any folder. It delivers as fast as it is read and then silence, so record it \
                    with --max-seconds (or --realtime).
                    """,
                options: [dir, name, format, integerOnly], arguments: [wav],
                check: { invocation in
                    invocation[integerOnly] && invocation[format] == "FLOAT_LE"
                        ? "--integer-only needs --format S16_LE or S32_LE" : nil
                }),
        ], defaultVerb: "list")

    static func run(_ invocation: Invocation) throws -> Int32 {
        if invocation.verb == "file-pcm" { return try FilePCMSubcommand.run(invocation) }
        let json = invocation[CommonOptions.json]
        let devices = ALSADevices.capture()
        if json {
            for device in devices { Console.json(JSONLine.Device(name: device.name, description: device.description)) }
            return 0
        }
        if devices.isEmpty {
            Console.out(
                "No capture devices are listed by ALSA. A sound card or a PCM defined in ~/.asoundrc is needed; "
                    + "without one, `boxvoice dictate --input FILE.wav` dictates a recording, and `boxvoice devices "
                    + "file-pcm FILE.wav` makes a capture device that plays it.")
            return 0
        }
        for device in devices {
            Console.out(
                device.name.padding(toLength: max(24, device.name.count + 2), withPad: " ", startingAt: 0)
                    + device.description)
        }
        if devices.allSatisfy({ $0.name == "null" }) {
            Console.out(
                "\nOnly 'null' is listed, which records silence: ALSA shows no microphone here. To try boxvoice "
                    + "without one, `boxvoice dictate --input FILE.wav` dictates a recording, and `boxvoice devices "
                    + "file-pcm FILE.wav` makes a capture device that plays it.")
        }
        return 0
    }
}

/// `boxvoice devices file-pcm`: make a capture PCM that plays a WAV, for trying boxvoice without a microphone.
enum FilePCMSubcommand {
    static func run(_ invocation: Invocation) throws -> Int32 {
        let directory = invocation[DevicesCommand.dir] ?? Paths.cacheDirectory + "/file-pcm"
        let name = try invocation.required(DevicesCommand.name)
        let format = invocation[DevicesCommand.format].flatMap(SampleFormat.init(alsaName:)) ?? .float32LE
        let integerOnly = invocation[DevicesCommand.integerOnly]
        let wav = try invocation.required(DevicesCommand.wav)
        let made: FileCapturePCM.Made
        do {
            made = try FileCapturePCM.make(
                wav: wav, streamFormat: format, name: name, directory: directory, integerOnly: integerOnly)
        } catch {
            throw CLIError.failed("cannot make a capture PCM from '\(wav)': \(error)")
        }
        let seconds = Double(made.frames) / AudioRate.perSecond
        Console.out("PCM '\(made.name)' plays \(made.frames) frames (\(seconds.formatted(3)) s at 48 kHz).")
        Console.out(
            "Record it with: boxvoice record --alsa-config \(made.configPath) --device \(made.name) --max-seconds "
                + "\(seconds.formatted(6))"
        )
        return 0
    }
}

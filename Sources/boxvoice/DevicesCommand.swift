import BoxVoiceAudio

/// `boxvoice devices`: the capture PCMs the ALSA configuration offers.
enum DevicesCommand: Command {
    static let name = "devices"
    static let summary = "list ALSA capture devices"
    static let usage = """
    Usage: boxvoice devices [--json]
           boxvoice devices file-pcm WAV [--dir DIR] [--name NAME] [--format F] [--integer-only]

    Lists the PCMs that can capture, as alsa-lib's device hints name them. Pass one to
    `boxvoice record --device NAME`. PCMs you define yourself in ~/.asoundrc work too,
    even when they carry no hint.

    `file-pcm` writes an ALSA configuration (DIR/NAME.asound.conf, DIR by default the cache folder's
    file-pcm/) defining a capture PCM that plays WAV through alsa-lib's file plugin — the audio it
    plays is a raw file beside it, named by its absolute path, so the PCM works from any folder —
    for trying boxvoice with no microphone. It delivers
    as fast as it is read and then silence, so record it with --max-seconds.
    """

    static func run(_ arguments: inout Arguments) throws -> Int32 {
        if arguments.peek() == "file-pcm" {
            _ = arguments.positional()
            return try FilePCMSubcommand.run(&arguments)
        }
        let json = arguments.flag("--json")
        try arguments.finish()
        let devices = ALSADevices.capture()
        if json {
            for device in devices { Console.json(["name": device.name, "description": device.description]) }
            return 0
        }
        if devices.isEmpty {
            Console.out("No capture devices are listed by ALSA. A sound card or a PCM defined in ~/.asoundrc is needed.")
            return 0
        }
        for device in devices {
            Console.out(device.name.padding(toLength: max(24, device.name.count + 2), withPad: " ", startingAt: 0) + device.description)
        }
        return 0
    }
}

/// `boxvoice devices file-pcm`: make a capture PCM that plays a WAV, for trying boxvoice without a microphone.
enum FilePCMSubcommand {
    static func run(_ arguments: inout Arguments) throws -> Int32 {
        // Options first: their values must not be taken for the WAV (`--dir D FILE.wav`).
        let directory = try arguments.option("--dir") ?? Paths.cacheDirectory + "/file-pcm"
        let name = try arguments.option("--name") ?? "boxvoice_file"
        let format = try arguments.option("--format").map { text -> SampleFormat in
            guard let format = SampleFormat(alsaName: text) else { throw CLIError.usage("--format must be FLOAT_LE, S32_LE or S16_LE") }
            return format
        } ?? .float32LE
        let integerOnly = arguments.flag("--integer-only")
        guard let wav = arguments.positional() else { throw CLIError.usage("name the WAV file to play") }
        try arguments.finish()
        if integerOnly && format == .float32LE { throw CLIError.usage("--integer-only needs --format S16_LE or S32_LE") }
        let made: FileCapturePCM.Made
        do {
            made = try FileCapturePCM.make(wav: wav, streamFormat: format, name: name, directory: directory, integerOnly: integerOnly)
        } catch {
            throw CLIError.failed("cannot make a capture PCM from '\(wav)': \(error)")
        }
        Console.out("PCM '\(made.name)' plays \(made.frames) frames (\((Double(made.frames) / 48_000).formatted(3)) s at 48 kHz).")
        Console.out("Record it with: boxvoice record --alsa-config \(made.configPath) --device \(made.name) --max-seconds \((Double(made.frames) / 48_000).formatted(6))")
        return 0
    }
}

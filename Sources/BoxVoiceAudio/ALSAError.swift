/// A failure reported by alsa-lib, with its own words, and what the user can do about it.
public struct ALSAError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No PCM of that name exists (unknown name, or its configuration is broken).
        case deviceNotFound
        /// The device exists but another program holds it.
        case deviceBusy
        /// The device cannot deliver 48 kHz mono in a format we convert.
        case unsupportedConfiguration
        /// Reading failed in a way recovery could not fix (device gone, driver error).
        case io
        /// An ALSA configuration file could not be loaded.
        case configuration
        /// The device stopped delivering audio without an error (a sound server whose source went away does this).
        case stalled
    }

    public let kind: Kind
    public let device: String
    /// The operation that failed, e.g. `snd_pcm_open`.
    public let operation: String
    /// The negative errno alsa-lib returned.
    public let code: Int32
    /// `snd_strerror(code)` plus any detail alsa-lib logged while failing.
    public let libraryMessage: String

    public init(kind: Kind, device: String, operation: String, code: Int32, libraryMessage: String) {
        self.kind = kind
        self.device = device
        self.operation = operation
        self.code = code
        self.libraryMessage = libraryMessage
    }

    public var description: String {
        switch kind {
        case .deviceNotFound:
            "capture device '\(device)' was not found (ALSA: \(libraryMessage)). Nothing was recorded. Run `boxvoice "
                + "devices` to list capture devices, then pass one with --device."
        case .deviceBusy:
            "capture device '\(device)' is busy: another program is using it (ALSA: \(libraryMessage)). Nothing was "
                + "recorded. Close that program or pick another device from `boxvoice devices`."
        case .unsupportedConfiguration:
            "capture device '\(device)' cannot record 48 kHz mono in FLOAT_LE, S32_LE or S16_LE (ALSA: "
                + "\(libraryMessage)). Pick another device from `boxvoice devices` (the `plug`-based ones such as "
                + "'default' convert)."
        case .io:
            "reading from capture device '\(device)' failed in \(operation) (ALSA: \(libraryMessage)). Segments "
                + "already closed are kept."
        case .configuration:
            "the ALSA configuration '\(device)' could not be loaded (ALSA: \(libraryMessage))."
        case .stalled:
            "capture device '\(device)' stopped delivering audio (\(libraryMessage)): it was unplugged, or the sound "
                + "server removed it. "
                + "Everything recorded up to then is kept. Check the microphone, or pick another device from `boxvoice "
                + "devices`."
        }
    }
}

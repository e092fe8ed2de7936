import BoxVoiceAudio
import BoxVoiceDictation
import CommandGrammar

/// The audio a listening command reads, from its `--input`, `--device`, `--alsa-config` and `--realtime`: a WAV
/// played through the capture path, else the device named (the flag, then the settings, then ALSA's default).
enum CaptureSource {
    /// - Returns: the opened PCM and what it is, for the user (the WAV's path or the device's name).
    static func open(_ invocation: Invocation, settings: UserSettings) throws -> (pcm: CapturePCM, name: String) {
        let input = invocation[CommonOptions.input]
        let device = invocation[CommonOptions.device] ?? settings.device ?? "default"
        do {
            let pcm: CapturePCM =
                try input.map { try WAVCapturePCM(path: $0) }
                ?? ALSACapturePCM(name: device, configFile: invocation[CommonOptions.alsaConfig] ?? settings.alsaConfig)
            return (pcm.paced(invocation[CommonOptions.realtime]), input ?? device)
        } catch let error as ALSAError {
            throw CLIError.failed(error.description)
        } catch {
            throw CLIError.failed("cannot read '\(input ?? "")' as audio: \(error)")
        }
    }
}

import CALSA
import Glibc

/// A playback PCM opened through alsa-lib for short sounds: 48 kHz mono Float32 (a `plug` PCM such as `default`
/// converts to what the card takes). Plays a whole buffer and waits for it to drain; used from a thread of its own,
/// never the capture thread.
public final class ALSAPlaybackPCM: @unchecked Sendable {
    // @unchecked: the handle is used by one thread at a time (`play` is called from one feedback thread).
    public let name: String
    public let sampleRate: Int
    private var handle: OpaquePointer?

    /// - Parameter configFile: a self-contained ALSA configuration to resolve `name` in (as for capture).
    public init(name: String = "default", configFile: String? = nil, sampleRate: Int = AudioRate.hertz) throws {
        ALSACapturePCM.routeLibraryMessages()
        self.name = name
        self.sampleRate = sampleRate
        let pcm = try ALSACapturePCM.open(name, configFile: configFile, stream: SND_PCM_STREAM_PLAYBACK)
        handle = pcm
        let rc = snd_pcm_set_params(
            pcm, SampleFormat.float32LE.alsaValue, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(sampleRate), 1, 100_000)
        guard rc >= 0 else {
            snd_pcm_close(pcm)
            handle = nil
            throw ALSACapturePCM.error(.unsupportedConfiguration, name, "snd_pcm_set_params", rc)
        }
    }

    deinit { close() }

    public func close() {
        if let handle { snd_pcm_close(handle) }
        handle = nil
    }

    /// Plays `samples` (mono, −1…1) to the end.
    public func play(_ samples: [Float]) throws {
        guard let handle else { throw ALSACapturePCM.error(.io, name, "snd_pcm_writei", -EBADFD) }
        var offset = 0
        while offset < samples.count {
            let written = samples.withUnsafeBufferPointer { buffer in
                snd_pcm_writei(handle, buffer.baseAddress! + offset, snd_pcm_uframes_t(samples.count - offset))
            }
            if written >= 0 {
                offset += Int(written)
                continue
            }
            // An underrun or a suspend: prepare and go on; anything else ends the sound.
            let recovered = snd_pcm_recover(handle, Int32(written), 1)
            if recovered < 0 { throw ALSACapturePCM.error(.io, name, "snd_pcm_writei", Int32(written)) }
        }
        let drained = snd_pcm_drain(handle)
        if drained < 0 { throw ALSACapturePCM.error(.io, name, "snd_pcm_drain", drained) }
    }
}

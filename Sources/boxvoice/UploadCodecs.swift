import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceStore
import BoxVoiceContract
import Foundation

/// The upload codec a command uses for a box: `--codec`, else the box's setting (`boxes codec`), else `auto`; what
/// earlier uploads taught about the box (its link, whether it refuses Opus) comes from the store and goes back there.
enum UploadCodecs {
    static func policy(for box: BoxReference, configured: String?, override: UploadCodec?, store: MessageStore? = nil)
        throws -> UploadCodecPolicy
    {
        let codec = override ?? configured.flatMap(UploadCodec.init(rawValue:)) ?? .auto
        return UploadCodecPolicy(codec: codec, box: box, store: try store ?? LocalStore.open())
    }
}

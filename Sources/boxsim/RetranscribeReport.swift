import BoxVoiceAudio
import Foundation

enum RetranscribeReport {
    /// "audio: 72000 frames, 1.50 s, 48000 Hz, 1 channel(s), Float32 WAV (288080 bytes)", read with libsndfile.
    static func describeAudio(_ bytes: [UInt8]) -> String {
        let path = NSTemporaryDirectory() + "boxsim-retranscribe-\(getpid()).wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)),
            let file = try? SoundFile.open(path: path)
        else {
            return "audio: \(bytes.count) bytes that libsndfile cannot read"
        }
        let seconds = Double(file.frames) / Double(max(file.sampleRate, 1))
        return String(
            format: "audio: %lld frames, %.2f s, %d Hz, %d channel(s), %@ (%d bytes)", file.frames, seconds,
            file.sampleRate,
            file.channels, file.isFloat32 ? "Float32 WAV" : "integer WAV", bytes.count)
    }
}

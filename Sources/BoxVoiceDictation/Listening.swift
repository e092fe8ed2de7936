import BoxVoiceAudio
import BoxVoiceKeywords
import BoxVoiceLive
import Foundation

/// Whose text each utterance carries (`UserSettings.recognizer`).
public enum RecognizerChoice: String, Sendable, CaseIterable {
    case whisper, pocketsphinx
}

/// `boxvoice listen`'s loop: audio from a capture device through the live recognizer until the input ends, `stop`
/// is requested or `maxSeconds` of audio were heard (what was captured up to a stop is still heard).
public enum Listening {
    /// - Returns: the capture device's error, if it failed rather than ended.
    public static func run(
        pcm: CapturePCM, transcriber: LiveTranscriber, maxSeconds: Double?, stop: StopSignal,
        onUpdate: (LiveUpdate) -> Void
    ) throws -> Error? {
        let capture = AudioCapture(pcm: pcm)
        let limit = maxSeconds.map { Int64(($0 * AudioRate.perSecond).rounded()) } ?? .max
        var heard: Int64 = 0
        /// Feeds a chunk (cut at the limit); false once the limit is reached.
        func feed(_ chunk: AudioChunk) throws -> Bool {
            let take = Int(min(Int64(chunk.samples.count), limit - heard))
            if take > 0 {
                for update in try transcriber.feed(Array(chunk.samples.prefix(take))) { onUpdate(update) }
                heard += Int64(take)
            }
            return heard < limit
        }
        capture.start()
        do {
            // A stop closes the queue: what was captured up to it is still heard.
            try capture.queue.drain { chunks in
                if stop.isRequested { capture.stop() }
                for chunk in chunks where try !feed(chunk) { return .enough }
                return .more
            }
            capture.stop()
            for update in try transcriber.finish() { onUpdate(update) }
        } catch {
            capture.stop()
            throw error
        }
        if let error = capture.error, !(error is CaptureEnded) { return error }
        return nil
    }
}

import Foundation

/// Joins a recording's segment files into one WAV that fits a byte budget (the 45 MB of a retranscription answer,
/// contract §7.2), a second of audio at a time: answering for an hour of dictation costs no more memory than for a
/// minute.
public enum SegmentJoin {
    public enum Format: Sendable, Equatable, CustomStringConvertible {
        /// All of it as recorded: 48 kHz mono Float32.
        case float48k
        /// All of it, resampled to 16 kHz mono 16-bit.
        case pcm16k
        /// Only its last `seconds`, at 16 kHz mono 16-bit.
        case pcm16kTail(seconds: Int)

        public var description: String {
            switch self {
            case .float48k: "48 kHz Float32"
            case .pcm16k: "16 kHz 16-bit"
            case .pcm16kTail(let seconds): "16 kHz 16-bit, last \(seconds) s only"
            }
        }
    }

    /// What a WAV header may take besides the samples.
    static let headerAllowance = 80

    /// Writes the audio of `segments` (in order) to `path`: as recorded when that fits `maxBytes`, else at 16 kHz
    /// 16-bit, else the last part of that which fits.
    public static func join(_ segments: [String], into path: String, maxBytes: Int) throws -> Format {
        let frames = try segments.reduce(0) { $0 + (try WAVCapturePCM(path: $1).frames) }
        if frames * 4 + headerAllowance <= maxBytes {
            let file = try SoundFile.createFloatWAV(path: path)
            try stream(segments, skipping: 0) { try file.write($0) }
            try file.close()
            return .float48k
        }
        // 16 kHz is a third of the frames; when even that is too long, the frames before the last part are skipped
        // unread and unresampled.
        let limit = (maxBytes - headerAllowance) / 2
        let skip = max(0, frames - limit * 3)
        let resampler = try Resampler(from: AudioRate.perSecond, to: 16_000)
        let file = try SoundFile.createPCM16WAV(path: path, sampleRate: 16_000)
        var written = 0
        let write = { (samples: [Float]) throws in
            let room = limit - written
            guard room > 0 else { return }
            let kept = samples.count <= room ? samples : Array(samples.prefix(room))
            try file.write(kept)
            written += kept.count
        }
        try stream(segments, skipping: skip) { try write(try resampler.process($0)) }
        try write(try resampler.flush())
        try file.close()
        return skip == 0 ? .pcm16k : .pcm16kTail(seconds: limit / 16_000)
    }

    /// Hands the segments' 48 kHz samples to `body` a second at a time, after dropping the first `skip` frames.
    private static func stream(_ segments: [String], skipping skip: Int, _ body: ([Float]) throws -> Void) throws {
        var toSkip = skip
        var buffer = [Float](repeating: 0, count: AudioRate.hertz)
        for segment in segments {
            let source = try WAVCapturePCM(path: segment)
            if toSkip >= source.frames {
                toSkip -= source.frames
                continue
            }
            while true {
                let outcome: PCMReadOutcome
                do {
                    outcome = try buffer.withUnsafeMutableBytes {
                        try source.read(into: $0.baseAddress!, frames: AudioRate.hertz)
                    }
                } catch is CaptureEnded {
                    break
                }
                guard case .frames(let count) = outcome, count > 0 else { break }
                let dropped = min(toSkip, count)
                toSkip -= dropped
                if dropped < count { try body(Array(buffer[dropped..<count])) }
            }
        }
    }
}

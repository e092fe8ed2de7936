import Foundation

/// The objects the commands print one per line with `--json` (dictate's events are `EventRecord`'s).
enum JSONLine {
    /// An optional written as `null` when absent: every line of a kind carries the same keys.
    struct OrNull<Wrapped: Encodable>: Encodable {
        let value: Wrapped?
        init(_ value: Wrapped?) { self.value = value }
        func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            if let value { try container.encode(value) } else { try container.encodeNil() }
        }
    }

    /// `outbox list --json`: one message.
    struct OutboxMessage: Encodable {
        let messageId: String
        let box: String
        let state: String
        let attempts: Int
        let lastError: OrNull<String>
        let message: OrNull<String>
        let text: OrNull<String>
        let audio: Bool
    }

    /// `outbox recordings --json`: one kept recording.
    struct Recording: Encodable {
        let messageId: String
        let box: String
        let recordedAt: String
        let text: String
        let session: OrNull<String>
        let segments: [String]
    }

    /// `inbox --json`: one message from the box.
    struct InboxMessage: Encodable {
        let messageId: String
        let session: String
        let receivedAt: String
        let message: String
    }

    /// `keywords --json`: what the detector found.
    struct Keyword: Encodable {
        let action: String
        let tag: String
        let matchedPhrase: String
        let processedTranscript: String
    }

    /// `devices --json`: one capture device.
    struct Device: Encodable {
        let name: String
        let description: String
    }

    /// `pair --json`: what happened, and the box paired.
    struct Paired: Encodable {
        struct Box: Encodable {
            let name: String
            let label: String
            let baseURL: String
        }
        let message: String
        let box: Box?
    }

    /// `record --json`: the recording's events.
    struct RecordingStarted: Encodable {
        let event = "recording"
        let device: String
        let format: String
        let sampleRate: Int
        let periodFrames: Int
        let directory: String
    }

    struct SegmentWritten: Encodable {
        let event = "segment"
        let index: Int
        let path: String
        let frames: Int64
        let startFrame: Int64
        let seconds: Double
        /// -999 for silence (-inf is not JSON).
        let peakDBFS: Double
        let rmsDBFS: Double
    }

    struct RecordingFinished: Encodable {
        let event = "finished"
        let segments: Int
        let frames: Int64
        let framesDropped: Int64
        let overruns: Int
        let suspends: Int
    }

    struct Repaired: Encodable {
        let event = "repaired"
        let path: String
        let headerFrames: Int64
        let frames: Int64
    }
}

extension JSONLine {
    /// `listen --json`: the source opened, partial words, each utterance and each command in it.
    struct Listening: Encodable {
        let event = "listening"
        let source: String
    }

    struct Partial: Encodable {
        let event = "partial"
        let text: String
    }

    struct Final: Encodable {
        let event = "final"
        let text: String
        let recognized: String
        let spotted: [String]
        let end: Double
        /// Whose words these are: `whisper`, `pocketsphinx`, or `pocketsphinx-instead` (Whisper late or failed).
        let heardBy: String
        /// Whether the utterance ended at the speaker's pause: only then can its last words be a command.
        let endsAtPause: Bool
    }

    /// `transcribe --json`: the HQ text and each segment's.
    struct Transcription: Encodable {
        struct Segment: Encodable {
            let index: Int
            let seconds: Double
            let text: String
        }
        let text: String
        let service: OrNull<String>
        let segments: [Segment]
    }

    /// `boxes --json`: one paired box.
    struct PairedBox: Encodable {
        let name: String
        let label: String
        let baseURL: String
        let selected: Bool
        let insecure: Bool
        let health: String
    }

    /// `config --json`: every setting, `null` when not set.
    struct Settings: Encodable {
        let values: [(key: String, value: String?)]
        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in values { try container.encode(OrNull(value), forKey: Key(key)) }
        }
        private struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(_ name: String) { stringValue = name }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
    }
}

import Foundation

/// What a voice send captured before any HQ pass.
public struct VoiceSend: Sendable, Equatable {
    /// Text typed before dictation started.
    public var typedPrefix: String
    /// The live recognizer's transcript, as heard (no keyword substitution).
    public var liveTranscript: String
    /// The send keyword the live pass detected in `liveTranscript`; nil when sent by key or button.
    public var keyword: KeywordMatch?

    public init(typedPrefix: String = "", liveTranscript: String, keyword: KeywordMatch?) {
        precondition(keyword?.action.isSend ?? true, "only a send-type keyword delivers a message")
        self.typedPrefix = typedPrefix
        self.liveTranscript = liveTranscript
        self.keyword = keyword
    }
}

/// The command that ended a message, as the live pass heard it: all the resolver needs of it, so a message can be
/// resolved again after a restart from what was stored.
public struct HeardCommand: Sendable, Equatable {
    public var action: KeywordAction
    /// The captured words as written (the tag's `phrase` attribute).
    public var matchedPhrase: String

    public init(action: KeywordAction, matchedPhrase: String) {
        self.action = action
        self.matchedPhrase = matchedPhrase
    }

    public init(_ match: KeywordMatch) {
        self.init(action: match.action, matchedPhrase: match.matchedPhrase)
    }
}

/// The text a voice send delivers, and whether it is the HQ transcript.
public struct ResolvedVoiceText: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        /// The box's HQ transcript (framed with its `stt-service`).
        case hq
        /// Anything else: HQ failed, was blank or skipped (framed `stt="live"`).
        case live
    }

    public let text: String
    public let source: Source

    public init(text: String, source: Source) {
        self.text = text
        self.source = source
    }
}

/// The contract's resolver (§4): reconciles the HQ text with the keyword the live pass heard.
public struct VoiceTextResolver: Sendable {
    public let detector: KeywordDetector

    public init(detector: KeywordDetector) {
        self.detector = detector
    }

    /// - Parameter hqText: the joined HQ text, or nil when HQ failed or was skipped.
    public func resolve(_ send: VoiceSend, hqText: String?) -> ResolvedVoiceText {
        guard let hqText, !hqText.trimmedLikeTheBox().isEmpty else {
            let live = send.keyword?.processedTranscript ?? send.liveTranscript
            return ResolvedVoiceText(text: Self.join(send.typedPrefix, live), source: .live)
        }
        guard let keyword = send.keyword else {
            return ResolvedVoiceText(text: Self.join(send.typedPrefix, hqText), source: .hq)
        }
        // The live keyword fired the send: HQ's own keyword counts only when it writes the same tag.
        let body: String
        if let heard = detector.detect(hqText), detector.writeSameTag(heard.action, keyword.action) {
            body = heard.processedTranscript
        } else {
            body = detector.appendSendKeywordTag(hqText, action: keyword.action, matchedPhrase: keyword.matchedPhrase)
        }
        return ResolvedVoiceText(text: Self.join(send.typedPrefix, body), source: .hq)
    }

    /// The live text of a message ended by `command` (nil: a key, end of input, a crash), from the whole transcript
    /// it holds: a send's words become its tag; the words of a mic-off (or any command that is not a send) and
    /// everything after them are dropped, since only send-type tags stay in a message (contract §4).
    public func liveText(heard: String, command: HeardCommand?, typedPrefix: String = "") -> String {
        Self.join(typedPrefix, body(of: heard, endedBy: command))
    }

    /// What a message ended by `command` delivers, from stored values: the HQ text reconciled with the command when
    /// there is HQ text, else `liveText(…)`.
    public func resolve(heard: String, command: HeardCommand?, typedPrefix: String = "", hqText: String?)
        -> ResolvedVoiceText
    {
        guard let hqText, !hqText.trimmedLikeTheBox().isEmpty else {
            return ResolvedVoiceText(
                text: liveText(heard: heard, command: command, typedPrefix: typedPrefix), source: .live)
        }
        guard let command else { return ResolvedVoiceText(text: Self.join(typedPrefix, hqText), source: .hq) }
        guard command.action.isSend else {
            return ResolvedVoiceText(text: Self.join(typedPrefix, body(of: hqText, endedBy: command)), source: .hq)
        }
        let body: String
        if let heard = detector.detect(hqText), detector.writeSameTag(heard.action, command.action) {
            body = heard.processedTranscript
        } else {
            body = detector.appendSendKeywordTag(hqText, action: command.action, matchedPhrase: command.matchedPhrase)
        }
        return ResolvedVoiceText(text: Self.join(typedPrefix, body), source: .hq)
    }

    /// The command that ended a message is its last words (a command is what the speaker ends on), so the tag goes
    /// there, not on the same words said earlier in a sentence.
    private func body(of text: String, endedBy command: HeardCommand?) -> String {
        guard let command, let found = detector.endingCommand(in: text) else { return text.trimmedLikeTheBox() }
        if command.action.isSend {
            return detector.writeSameTag(found.action, command.action)
                ? found.processedTranscript : text.trimmedLikeTheBox()
        }
        guard found.action == command.action else { return text.trimmedLikeTheBox() }
        return String(text[..<found.range.lowerBound]).trimmedLikeTheBox()
    }

    /// Each part trimmed, joined by one space; an empty part adds nothing.
    static func join(_ first: String, _ second: String) -> String {
        let a = first.trimmedLikeTheBox()
        let b = second.trimmedLikeTheBox()
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        return a + " " + b
    }
}

import BoxVoiceContract
import Foundation

/// The box's HTTP contract (contract.md §1, §2, §5, §6, §7.2), one method per call.
///
/// Every call but redeem carries `Authorization: Bearer <token>` and a `User-Agent`; the token is never put in a
/// URL, and no failure description contains it. Failures come back as `BoxFailure`, sorted by what to do.
public struct BoxClient: Sendable {
    public let baseURL: String
    private let token: String?
    public let verifyTLS: Bool
    public static let userAgent = "boxvoice/\(BuildInfo.version == "unknown" ? "dev" : BuildInfo.version) (Linux)"

    /// HQ requests wait for the box's own 120 s provider timeout plus the upload.
    public static let transcribeTimeout: TimeInterval = 150
    public static let callTimeout: TimeInterval = 30
    /// The box waits at most 30 s for a retranscription answer (contract §7.1): an answer still uploading after a
    /// minute serves nobody.
    public static let answerTimeout: TimeInterval = 60
    /// The largest answer read from a JSON call: every answer the contract defines is a few hundred bytes.
    public static let maxCallAnswerBytes = 1 << 20
    /// The largest HQ answer read: the text of at most two minutes of speech, with room to spare.
    public static let maxTranscriptionBytes = 4 << 20

    public init(baseURL: String, token: String?, verifyTLS: Bool = true) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.token = token
        self.verifyTLS = verifyTLS
    }

    /// The box's event stream for this device (not started); nil without a token. The token stays inside.
    public func eventStream(onUpdate: @escaping @Sendable (EventStream.Update) -> Void) -> EventStream? {
        token.map { EventStream(baseURL: baseURL, token: $0, verifyTLS: verifyTLS, onUpdate: onUpdate) }
    }

    // MARK: calls

    /// `POST /api/pairing/redeem`: trades a single-use pairing ticket for this device's token.
    public func redeem(pairingToken: String, deviceLabel: String) throws(BoxFailure) -> String {
        let body = Wire.redeemBody(pairingToken: pairingToken, deviceLabel: deviceLabel)
        let response = try exchange(
            "pair with the box", .post, "/api/pairing/redeem", body: .bytes(body, contentType: "application/json"),
            authenticated: false)
        if response.status == 401 {
            let reason = Wire.errorMessage(Data(response.body))?.message ?? "Pairing code is invalid or expired."
            throw .definitive(
                operation: "pair with the box", status: 401, message: reason + " Ask the box for a new pairing link",
                code: nil)
        }
        try Self.requireSuccess(response, "pair with the box")
        return try decode("pair with the box", response, Wire.redeemToken)
    }

    /// `GET /api/chat/default`: the session to dictate into (nil: start a new one).
    public func defaultSession() throws(BoxFailure) -> String? {
        let response = try exchange("ask the box for its current session", .get, "/api/chat/default")
        try Self.requireSuccess(response, "ask the box for its current session")
        return try decode("ask the box for its current session", response, Wire.defaultSession)
    }

    /// `POST /api/chat/send`. Retrying with the same `messageId` is always safe: the box deduplicates for 7 days.
    public func send(message: String, messageId: MessageID, session: String?, exactSession: Bool = false)
        throws(BoxFailure) -> Wire.SendAcceptance
    {
        let body = Wire.sendBody(message: message, messageId: messageId, session: session, exactSession: exactSession)
        let response = try exchange(
            "post the message to the box", .post, "/api/chat/send", body: .bytes(body, contentType: "application/json"))
        try Self.requireSuccess(response, "post the message to the box")
        return try decode("post the message to the box", response, Wire.sendAcceptance)
    }

    /// `POST /api/chat/transcribe-audio`: `session` first, then the WAV streamed from disk as `segment.wav`.
    public func transcribe(wavPath: String, session: String?, progress: (@Sendable (Int64, Int64) -> Void)? = nil)
        throws(BoxFailure) -> Wire.Transcription
    {
        try transcribe(audioPath: wavPath, as: .wav, session: session, progress: progress)
    }

    /// What an HQ upload's file part is: the box reads the format from the filename's extension (contract §1).
    public enum UploadedAudio: Sendable {
        case wav, ogg

        var filename: String { self == .wav ? "segment.wav" : "segment.ogg" }
        var contentType: String { self == .wav ? "audio/wav" : "audio/ogg" }
    }

    public func transcribe(
        audioPath: String, as format: UploadedAudio, session: String?,
        progress: (@Sendable (Int64, Int64) -> Void)? = nil
    ) throws(BoxFailure) -> Wire.Transcription {
        let parts: [MultipartPart] = [
            .field(name: "session", value: session ?? "new"),
            .file(name: "file", path: audioPath, filename: format.filename, contentType: format.contentType),
        ]
        let response = try exchange(
            "transcribe audio", .post, "/api/chat/transcribe-audio", body: .multipart(parts),
            timeout: Self.transcribeTimeout, maxAnswerBytes: Self.maxTranscriptionBytes, progress: progress)
        if let failure = BoxFailure.classify(
            operation: "transcribe audio", status: response.status, body: response.body, hq: true,
            location: response.header("location"))
        {
            throw failure
        }
        return try decode("transcribe audio", response, Wire.transcription)
    }

    /// What a client answers a last-audio request with (contract §7.2).
    public enum LastAudioAnswer: Sendable {
        /// The recording, already one file (segments joined): WAV, or Ogg Opus for a box that takes it.
        case audio(
            wavPath: String, recordedAt: Date, text: String, messageId: MessageID, sessionId: String?,
            format: UploadedAudio = .wav)
        /// This client does not hold the recording. Always answer: silence looks like a client that is asleep.
        case none
    }

    /// `POST /api/chat/last-audio/:requestId`. A 404 (another answer won, or time ran out) is normal and comes
    /// back as `.unknownRequest`; `.ignored` means the echoed messageId did not match, which callers log loudly.
    public func answerLastAudio(requestId: String, _ answer: LastAudioAnswer) throws(BoxFailure)
        -> Wire.LastAudioAnswerOutcome
    {
        let operation = "answer the box's request for a recording"
        let body: HTTPRequest.Body
        switch answer {
        case .none:
            body = .bytes(Data(#"{"none":true}"#.utf8), contentType: "application/json")
        case .audio(let path, let recordedAt, let text, let messageId, let sessionId, let format):
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            var parts: [MultipartPart] = [
                .field(name: "recordedAt", value: formatter.string(from: recordedAt)),
                .field(name: "text", value: Self.cutToUTF16Units(text, 1_500)),
                .field(name: "messageId", value: messageId.rawValue),
            ]
            if let sessionId { parts.append(.field(name: "sessionId", value: sessionId)) }
            parts.append(
                .file(
                    name: "file", path: path, filename: format == .wav ? "last-message.wav" : "last-message.ogg",
                    contentType: format.contentType))
            body = .multipart(parts)
        }
        guard LastAudioRequest.isValidRequestId(requestId) else {
            throw .definitive(
                operation: operation, status: 0,
                message: "the request id is not one the box mints (a UUID), so no answer was sent", code: nil)
        }
        let path = "/api/chat/last-audio/" + requestId
        let response = try exchange(operation, .post, path, body: body, timeout: Self.answerTimeout)
        if response.status == 404, Wire.errorMessage(Data(response.body))?.message == "unknown-request" {
            return .unknownRequest
        }
        try Self.requireSuccess(response, operation)
        return try decode(operation, response, Wire.lastAudioAnswerOutcome)
    }

    /// The longest prefix of whole characters within `limit` UTF-16 code units: the box cuts the text at 1500 units
    /// and a cut inside a surrogate pair would cost the requester the recording (contract §7.2).
    static func cutToUTF16Units(_ text: String, _ limit: Int) -> String {
        var units = 0
        var end = text.startIndex
        for index in text.indices {
            let next = text.index(after: index)
            let count = text.utf16.distance(from: index, to: next)
            if units + count > limit { break }
            units += count
            end = next
        }
        return String(text[..<end])
    }

    // MARK: plumbing

    private func exchange(
        _ operation: String, _ method: HTTPRequest.Method, _ path: String, body: HTTPRequest.Body = .none,
        authenticated: Bool = true, timeout: TimeInterval = BoxClient.callTimeout,
        maxAnswerBytes: Int = BoxClient.maxCallAnswerBytes,
        progress: (@Sendable (Int64, Int64) -> Void)? = nil
    ) throws(BoxFailure) -> HTTPResponse {
        var headers: [(name: String, value: String)] = [("User-Agent", Self.userAgent), ("Accept", "application/json")]
        if authenticated, let token { headers.append(("Authorization", "Bearer \(token)")) }
        let request = HTTPRequest(
            method: method, url: baseURL + path, headers: headers, body: body, timeout: timeout, verifyTLS: verifyTLS,
            maxResponseBytes: maxAnswerBytes)
        do {
            return try HTTPTransfer.perform(request, progress: progress)
        } catch {
            if error.kind == .localFile {
                throw .definitive(operation: operation, status: 0, message: error.message, code: nil)
            }
            if error.kind == .connect {
                throw .unreachable(operation: operation, reason: "\(error.message) (\(baseURL))")
            }
            throw .uncertain(operation: operation, reason: "\(error.message) (\(baseURL))")
        }
    }

    private static func requireSuccess(_ response: HTTPResponse, _ operation: String) throws(BoxFailure) {
        if let failure = BoxFailure.classify(
            operation: operation, status: response.status, body: response.body,
            location: response.header("location"))
        {
            throw failure
        }
    }

    /// A 2xx whose body cannot be read is an uncertain outcome: the box may have acted on the request.
    private func decode<T>(
        _ operation: String, _ response: HTTPResponse, _ decoder: (Data) throws(Wire.DecodingFailure) -> T
    ) throws(BoxFailure) -> T {
        do {
            return try decoder(Data(response.body))
        } catch {
            throw .uncertain(operation: operation, reason: error.description)
        }
    }
}

import BoxVoiceAudio
import BoxVoiceContract
import BoxVoiceLive
import Foundation
import Synchronization

/// `chat/send` and `chat/transcribe-audio` (contract §1, §2).
extension BoxSimServer {
    // MARK: §2 send

    static let allowedChannels: Set<String> = ["web-desktop", "web-mobile", "ios-native"]
    static let dedupWindow: TimeInterval = 7 * 24 * 3_600

    /// Checks run in the box's order: the body (400), the target session (400/404/410), then the dedup claim — so a
    /// refused send claims nothing, and a retry of an accepted id to a session that went away is 410, not a duplicate.
    func send(_ body: RequestBody) -> SimResponse {
        guard let object = body.object else { return .json(400, ["error": "body must be a JSON object"]) }
        guard let message = object["message"]?.string, !message.isEmpty else {
            return .json(400, ["error": "message must be a non-empty string"])
        }
        guard let session = object["session"]?.string, !session.isEmpty else {
            return .json(400, ["error": "session must be a non-empty string"])
        }
        var messageId = ""
        if let value = object["messageId"] {
            guard let text = value.string else { return .json(400, ["error": "messageId must be a string"]) }
            messageId = text
        }
        if let channel = object["channel"] {
            guard let name = channel.string, Self.allowedChannels.contains(name) else {
                return .json(400, ["error": "channel must be one of web-desktop, web-mobile, ios-native"])
            }
        }
        var exact = false
        if let value = object["exactSession"] {
            guard let flag = value.bool else {
                return .json(400, ["error": "exactSession must be a boolean"])
            }
            exact = flag
        }
        if configuration.sendDelaySeconds > 0 { Thread.sleep(forTimeInterval: configuration.sendDelaySeconds) }
        let now = Date()
        return records.withLock { (records: inout BoxSimRecords.Lists) -> SimResponse in
            shared.withLock { shared -> SimResponse in
                if session == "new" {
                    if exact { return .json(400, ["error": "exactSession cannot be used with session \"new\""]) }
                } else {
                    switch shared.sessions.availability(session) {
                    case .live?: break
                    case .deleting?:
                        return .json(
                            410, ["error": "Chat session is being deleted", "code": "CHAT_SESSION_UNAVAILABLE"])
                    case nil:
                        return exact
                            ? .json(404, ["error": "Chat session not found"])
                            : .json(410, ["error": "Chat session is unavailable", "code": "CHAT_SESSION_UNAVAILABLE"])
                    }
                }
                // An empty id is accepted and never deduplicated.
                if !messageId.isEmpty,
                    records.messages.contains(where: {
                        $0.messageId == messageId && now.timeIntervalSince($0.receivedAt) < Self.dedupWindow
                    })
                {
                    return .json(200, ["deduplicated": true])
                }
                let fresh = session == "new"
                let target = fresh ? "session-" + UUID().uuidString.lowercased().prefix(8) : session
                let queued = !fresh && shared.sessions.isBusy(target, now: now)
                let turnId = queued ? nil : UUID().uuidString.lowercased()
                if !queued { shared.sessions.started(target, now: now, turnSeconds: configuration.turnSeconds) }
                records.addMessage(
                    SimMessage(
                        messageId: messageId, message: message, session: target, receivedAt: now, turnId: turnId,
                        queued: queued))
                events.emitStored(
                    "chat-user-message",
                    data: [
                        "sessionId": fresh ? .null : .string(target), "message": .string(message), "user": .null,
                        "timestamp": .integer(Int(now.timeIntervalSince1970 * 1_000)),
                    ])
                if fresh {
                    shared.sessions.assigned(target)
                    events.emitStored("chat-session-assigned", data: ["sessionId": .string(target)])
                }
                return queued ? .json(200, ["queued": true]) : .json(200, ["turnId": .string(turnId)])
            }
        }
    }

    // MARK: §1 transcription

    /// The box's file-part limit (50 MiB, on the file part, not the body).
    static let filePartLimit = 52_428_800

    func transcribe(_ request: SimRequest, _ body: RequestBody) -> SimResponse {
        var record = SimTranscription(
            at: Date(), session: nil, ignoredFields: [], filename: nil, guessedFormat: "webm",
            bytes: request.body.count, sampleRate: nil, channels: nil, float32: nil, frames: nil, status: 400, text: nil
        )
        let result = transcribe(request, body, into: &record)
        record.status = result.status
        records.withLock { $0.addTranscription(record) }
        return result
    }

    private func transcribe(_ request: SimRequest, _ body: RequestBody, into record: inout SimTranscription)
        -> SimResponse
    {
        guard case .multipart(let contentType) = body else {
            return .json(406, ["error": "the request is not multipart"])
        }
        guard let form = try? MultipartForm(body: request.body, contentType: contentType) else {
            return .json(500, ["error": "Internal server error"])
        }
        // The file is the first file part, whatever its name; a part without a filename is a text field unless typed
        // application/octet-stream.
        guard let fileIndex = form.parts.firstIndex(where: \.isFile) else {
            return .json(400, ["error": "No audio uploaded"])
        }
        let file = form.parts[fileIndex]
        guard file.body.count <= Self.filePartLimit else { return .json(413, ["error": "request file too large"]) }
        // Text fields are read once the file is buffered: one sent after the file part may be missed. boxsim always
        // misses it (the worse of the box's two outcomes), so a client that sends fields late finds out here.
        record.session = form.parts[..<fileIndex].last { $0.name == "session" && !$0.isFile }.map {
            String(decoding: $0.body, as: UTF8.self)
        }
        record.ignoredFields = form.parts[(fileIndex + 1)...].map(\.name)
        record.filename = file.filename
        let ext = (file.filename.map { ($0 as NSString).pathExtension.lowercased() }) ?? ""
        record.guessedFormat = ["wav", "webm", "mp3", "m4a", "ogg", "flac"].contains(ext) ? ext : "webm"
        record.bytes = file.body.count
        let recognizes =
            switch configuration.hq {
            case .pocketsphinx, .whisper: true;
            default: false
            }
        let audio = decode(file.body, recognize: recognizes)
        record.sampleRate = audio?.sampleRate
        record.channels = audio?.channels
        record.float32 = audio?.float32
        record.frames = audio?.frames
        record.container = audio?.container.rawValue

        let call = shared.withLock { shared -> Int in
            shared.hqCalls += 1
            return shared.hqCalls
        }
        let result = respond(call: call, audio: audio, guessedFormat: record.guessedFormat)
        record.text = JSONValue.parse(Data(result.body))?.object?["text"]?.string
        return result
    }

    func respond(call: Int, audio: DecodedUpload?, guessedFormat: String) -> SimResponse {
        func failure(_ code: String, _ message: String) -> SimResponse {
            .json(
                500,
                ["error": .string(message), "permanent": .bool(HQMode.isPermanent(code: code)), "code": .string(code)])
        }
        func success(_ text: String?) -> SimResponse {
            let fallback =
                audio.map {
                    String(format: "boxsim heard %.2f s of audio", Double($0.frames) / Double(max($0.sampleRate, 1)))
                } ?? ""
            return .json(
                200,
                ["text": .string(text ?? configuration.hqText ?? fallback), "diarized": false, "service": "boxsim"])
        }
        if configuration.hqRejectedFormats.contains(guessedFormat) {
            return failure("invalid_file_format", "The transcription service cannot read \(guessedFormat) audio")
        }
        switch configuration.hq {
        case .fail(let code):
            return failure(code, "HQ transcription failed (\(code))")
        case .flaky(let count) where call <= count:
            return failure("network_error", "The transcription service could not be reached")
        default:
            break
        }
        // The HQ services take every format the box names (contract §1); this one decodes what libsndfile reads.
        guard audio != nil, ["wav", "ogg", "flac"].contains(guessedFormat) else {
            return failure("http_400", "The transcription service could not decode the \(guessedFormat) audio")
        }
        switch configuration.hq {
        case .pocketsphinx:
            guard let recognized = audio?.recognized else {
                return failure("http_400", "The speech recognizer could not decode the audio")
            }
            return .json(200, ["text": .string(recognized), "diarized": false, "service": "pocketsphinx"])
        case .whisper:
            guard let recognized = audio?.recognized else {
                return failure("http_400", "Whisper could not decode the audio")
            }
            return .json(200, ["text": .string(recognized), "diarized": false, "service": "whisper"])
        case .fixed(let text): return success(text)
        case .slow(let seconds):
            Thread.sleep(forTimeInterval: seconds)
            return success(nil)
        default: return success(nil)
        }
    }

    struct DecodedUpload {
        var sampleRate: Int
        var channels: Int
        var float32: Bool
        var frames: Int64
        var container: AudioContainer
        /// pocketsphinx's text, when asked for and it could decode.
        var recognized: String?
    }

    /// Reads the uploaded audio with libsndfile, as an HQ provider would, and (in pocketsphinx mode) recognizes it.
    func decode(_ bytes: ArraySlice<UInt8>, recognize: Bool) -> DecodedUpload? {
        let path = configuration.dataDirectory + "/upload-\(UUID().uuidString).tmp"
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)),
            let file = try? SoundFile.open(path: path)
        else { return nil }
        var upload = DecodedUpload(
            sampleRate: file.sampleRate, channels: file.channels, float32: file.isFloat32, frames: file.frames,
            container: file.container)
        if recognize, case .whisper(let modelPath) = configuration.hq,
            let samples = try? SpeechConversion.recognizerSamples(fromFile: path)
        {
            // Linux priorities are per thread (who 0 is the calling thread) and its new threads inherit it
            // (whisper.cpp's OpenMP team is started by this thread); the server's thread keeps it, which serves an
            // embedded box well enough.
            if configuration.hqYieldsCPU { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) }
            upload.recognized = recognizers.withLock { loaded -> String? in
                if loaded.whisper == nil { loaded.whisper = try? WhisperModel(path: modelPath) }
                return loaded.whisper.flatMap { try? WhisperHQ.text(of: samples, by: $0) }
            }
        } else if recognize, let samples = try? SpeechConversion.recognizerSamples(fromFile: path) {
            upload.recognized = recognizers.withLock { loaded -> String? in
                if loaded.pocketsphinx == nil {
                    let model = PocketSphinxModel.debianEnglish.limitedToLanguageModelWords(
                        keptIn: configuration.dataDirectory + "/cache")
                    loaded.pocketsphinx = try? PocketSphinxDecoder(model: model)
                }
                return try? loaded.pocketsphinx?.transcribe(samples)
            }
        }
        return upload
    }
}

import BoxVoiceLive

/// How a simulated box behaves.
public struct BoxSimConfiguration: Sendable {
    /// 0 picks a free port.
    public var port: Int
    /// Where what a real box keeps across restarts lives (devices, messages, transcription log).
    public var dataDirectory: String
    /// The box's slug; the base URL is `http://127.0.0.1:PORT/<slug>`.
    public var slug: String
    public var hq: HQMode
    /// The text HQ returns when its mode does not say (after `flaky` failures, after `slow` waits); nil: describe the
    /// audio.
    public var hqText: String?
    /// The default session when the box starts (nil: keep the one its data folder remembers, if any). It moves as
    /// the box's does (contract §5).
    public var defaultSession: String?
    /// A session stays busy this long after a turn starts; a send meanwhile is `{"queued": true}`.
    public var turnSeconds: Double
    public var maxBodyBytes: Int
    public var pairingTicketSeconds: Double
    /// Event WebSocket keep-alive: after this long without a frame from the client, send `PING` …
    public var pingIntervalSeconds: Double = 30
    /// … and drop the connection unless a frame arrives within this long.
    public var pongGraceSeconds: Double = 5
    /// `chat.send` waits this long before it looks at a message: a POST in flight long enough to kill its sender
    /// mid-way, as a slow box or network would.
    public var sendDelaySeconds: Double = 0
    /// Audio formats (by the box's guess from the extension) the HQ service refuses with 500 `invalid_file_format`
    /// (permanent): an HQ provider that cannot read them (a simulator feature).
    public var hqRejectedFormats: Set<String> = []
    /// Reads request bodies at most this fast (bits per second; nil: as fast as they come): a box across the
    /// internet, for measuring uploads (a simulator feature).
    public var uplinkBitsPerSecond: Double?
    /// HQ decodes at a lower CPU priority (nice 10, on the thread that decodes and the threads it starts): a box
    /// running inside the dictating process (the embedded local box) must not take the cores the live path hears on.
    public var hqYieldsCPU = false
    /// Sessions the box knows besides the default one (a send to an unknown one is 410, or 404 when exact).
    public var extraSessions: [String] = []

    public init(
        port: Int = 0, dataDirectory: String, slug: String = "main/test1", hq: HQMode = .pocketsphinx,
        hqText: String? = nil,
        defaultSession: String? = nil, turnSeconds: Double = 0, maxBodyBytes: Int = 64 << 20,
        pairingTicketSeconds: Double = 600
    ) {
        self.port = port
        self.dataDirectory = dataDirectory
        self.slug = slug
        self.hq = hq
        self.hqText = hqText
        self.defaultSession = defaultSession
        self.turnSeconds = turnSeconds
        self.maxBodyBytes = maxBodyBytes
        self.pairingTicketSeconds = pairingTicketSeconds
    }
}

/// What `transcribe-audio` does (contract §1 shapes).
public enum HQMode: Sendable, Equatable, CustomStringConvertible {
    /// Decodes the uploaded WAV with Debian's pocketsphinx en-us model; service `pocketsphinx`.
    case pocketsphinx
    /// Decodes the upload with Whisper base, the model the live path's utterance ends use (the file `make setup`
    /// builds); service `whisper`.
    case whisper(model: String)
    /// Answers with the decoded audio's duration ("boxsim heard 3.52 s of audio"), service `boxsim`.
    case describe
    case fixed(String)
    /// 500 with this code, `permanent` by the box's rule (`isPermanent(code:)`).
    case fail(code: String)
    /// The first N calls fail with 500 `network_error` (not permanent), later ones succeed.
    case flaky(Int)
    /// Waits this many seconds, then succeeds.
    case slow(Double)

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    /// `pocketsphinx`, `describe`, `fixed:TEXT`, `fail:CODE`, `flaky:N`, `slow:SECONDS`.
    public static func parse(_ text: String) throws -> HQMode {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        switch (parts.first ?? "", parts.count > 1 ? parts[1] : nil) {
        case ("describe", nil): return .describe
        case ("fixed", let value?): return .fixed(value)
        case ("fail", let code?) where !code.isEmpty: return .fail(code: code)
        case ("flaky", let count?) where Int(count).map({ (0...1_000_000).contains($0) }) == true:
            return .flaky(Int(count)!)
        case ("slow", let seconds?) where Double(seconds).map({ (0...600).contains($0) }) == true:
            return .slow(Double(seconds)!)
        case ("pocketsphinx", nil): return .pocketsphinx
        case ("whisper", nil):
            guard let models = HearingModels.besideThisProgram() else {
                throw ParseError(
                    description:
                        "HQ mode whisper needs Whisper's model, which is missing (run `make setup`, or choose --hq "
                        + "pocketsphinx)"
                )
            }
            return .whisper(model: models.whisper)
        case ("whisper", let model?) where !model.isEmpty: return .whisper(model: model)
        default:
            throw ParseError(
                description:
                    "unknown HQ mode '\(text)' (whisper, whisper:MODEL, pocketsphinx, describe, fixed:TEXT, fail:CODE, "
                    + "flaky:N up to 1000000, slow:SECONDS up to 600)"
            )
        }
    }

    public var description: String {
        switch self {
        case .pocketsphinx: "pocketsphinx"
        case .whisper: "whisper"
        case .describe: "describe"
        case .fixed(let text): "fixed:\(text)"
        case .fail(let code): "fail:\(code)"
        case .flaky(let count): "flaky:\(count)"
        case .slow(let seconds): "slow:\(seconds)"
        }
    }

    /// Whether the box marks a failure with this code permanent (contract §1): missing keys, a bad response shape,
    /// any upstream 4xx but 429 (`http_4xx`), and the upstream codes that mean the request itself is wrong.
    public static func isPermanent(code: String) -> Bool {
        let always: Set = [
            "missing_api_key", "missing_openrouter_key", "bad_response_shape", "invalid_api_key",
            "invalid_request_error", "invalid_file_format",
        ]
        if always.contains(code) { return true }
        if code.hasPrefix("http_4"), code.count == 8, Int(code.dropFirst(5)) != nil, code != "http_429" { return true }
        return false
    }
}

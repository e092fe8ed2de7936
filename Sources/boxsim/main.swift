import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import Foundation

/// `boxsim`: a local box speaking boxvoice's contract, for trying boxvoice without a box and for tests.
let usage = """
Usage: boxsim serve [--port N] [--data DIR] [--slug SLUG] [--hq MODE] [--hq-text TEXT]
                    [--default-session ID] [--turn-seconds N] [--ping-interval S] [--pong-grace S]
                    [--send-delay S] [--uplink MBIT] [--hq-rejects FORMAT,…]
       boxsim pair-link [--data DIR | --url BASE] [--label NAME] [--session ID]
       boxsim messages [--data DIR | --url BASE]
       boxsim transcriptions [--data DIR | --url BASE]
       boxsim retranscribe --message ID [--timeout-ms N] [--data DIR | --url BASE]

serve            runs the box on 127.0.0.1 (port 0: any free port) until SIGINT/SIGTERM. What the box keeps
                 across restarts is kept in DIR (default ./boxsim-data): paired devices, messages, sessions and
                 the default, stored events (their ids keep increasing; older than a day pruned at start),
                 the transcription log; it writes its base URL to DIR/boxsim.url. Pairing tickets die with the
                 process, as on the box. The default session moves as the box's does: to a session where a
                 send starts a run, and to a new session when it is assigned (--default-session sets it at
                 start). The event WebSocket PINGs (twice) a client silent for --ping-interval seconds (30)
                 and cuts it, without a close frame, when nothing comes within --pong-grace seconds (5).
pair-link        mints a single-use pairing link (valid 10 minutes, gone when boxsim restarts).
messages         lists what the box received through chat/send (JSON).
transcriptions   lists transcribe-audio calls: fields, audio format as decoded, outcome (JSON).
retranscribe     plays the agent asking for a message's recording (`bbx chat retranscribe`): the box asks
                 every connected client, then prints the outcome, the returned WAV's format and X-* headers.

Simulator features (a real box has none of these):
  --hq MODE        what transcription answers: pocketsphinx (default: Debian's en-us model decodes the
                   upload), describe (says how much audio it heard), fixed:TEXT, fail:CODE (500 with that
                   code, `permanent` by the box's rule: missing keys, bad_response_shape, http_4xx but 429,
                   invalid_api_key, invalid_request_error, invalid_file_format), flaky:N (the first N calls
                   fail with network_error), slow:SECONDS. --hq-text: the text after flaky/slow calls.
  --turn-seconds   how long a run keeps a session busy (a send meanwhile is queued).
  --send-delay S   holds each chat/send S seconds before handling it (a slow box, for kill tests).
  --hq-rejects F,…  the HQ service refuses these formats (wav, ogg, flac, …: the box's guess from the
                   extension) with a permanent invalid_file_format.
  --uplink MBIT    reads request bodies no faster than MBIT megabits per second: a box across the
                   internet, for measuring what uploads cost (WAV vs Ogg Opus).
  /boxsim/* routes (loopback, no token): pair-link, messages, transcriptions, events, pending,
                   status, retranscribe, default?session=ID (another client moves the default),
                   session?id=ID&state=live|deleting|gone, fail-subscriptions (every subscription
                   gets an error frame, then stopped).
  Fields sent after the file part are always missed (the box misses them only sometimes).
"""

func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("boxsim: \(message)\n".utf8))
    exit(status)
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func main() {
    var arguments = Array(CommandLine.arguments.dropFirst())
    func option(_ name: String) -> String? {
        guard let index = arguments.firstIndex(of: name) else { return nil }
        guard index + 1 < arguments.count else { fail("\(name) needs a value", status: 2) }
        let value = arguments[index + 1]
        arguments.removeSubrange(index...index + 1)
        return value
    }

    /// A number of seconds within `range`, or a usage error naming the range.
    func seconds(_ name: String, within range: ClosedRange<Double>) -> Double? {
        guard let text = option(name) else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            fail("\(name) takes a number of seconds from \(range.lowerBound) to \(range.upperBound), not '\(text)'", status: 2)
        }
        return value
    }

    guard let command = arguments.first else {
        say(usage)
        exit(2)
    }
    arguments.removeFirst()
    if command == "--help" || command == "-h" || arguments.contains("--help") {
        say(usage)
        exit(0)
    }
    if command == "--version" {
        say(BuildInfo.line(program: "boxsim"))
        exit(0)
    }
    if command == "manpage" {
        say(ManPage.render(program: "boxsim", summary: "a local stand-in for a box, speaking boxvoice's contract", sections: [("USAGE", usage)]))
        exit(0)
    }
    let data = option("--data") ?? "boxsim-data"

    switch command {
    case "serve":
        var configuration = BoxSimConfiguration(dataDirectory: data)
        if let port = option("--port") { configuration.port = Int(port) ?? -1 }
        if let slug = option("--slug") { configuration.slug = slug }
        if let mode = option("--hq") {
            do { configuration.hq = try HQMode.parse(mode) } catch { fail(String(describing: error), status: 2) }
        }
        configuration.hqText = option("--hq-text")
        configuration.defaultSession = option("--default-session")
        if let seconds = seconds("--turn-seconds", within: 0...86_400) { configuration.turnSeconds = seconds }
        if let seconds = seconds("--ping-interval", within: 0.1...3_600) { configuration.pingIntervalSeconds = seconds }
        if let seconds = seconds("--pong-grace", within: 0.1...3_600) { configuration.pongGraceSeconds = seconds }
        if let seconds = seconds("--send-delay", within: 0...600) { configuration.sendDelaySeconds = seconds }
        if let text = option("--hq-rejects") {
            configuration.hqRejectedFormats = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        }
        if let text = option("--uplink") {
            guard let rate = Double(text), rate.isFinite, (0.01...100_000).contains(rate) else {
                fail("--uplink takes megabits per second from 0.01 to 100000, not '\(text)'", status: 2)
            }
            configuration.uplinkBitsPerSecond = rate * 1e6
        }
        if let extra = arguments.first { fail("unexpected argument '\(extra)'\n\n\(usage)", status: 2) }
        guard configuration.port >= 0 else { fail("--port needs a number", status: 2) }
        let server: BoxSimServer
        do {
            server = try BoxSimServer(configuration: configuration)
        } catch {
            fail("cannot start: \(error)")
        }
        try? server.baseURL.write(toFile: data + "/boxsim.url", atomically: true, encoding: .utf8)
        say("boxsim listening on \(server.baseURL) (HQ \(configuration.hq), data in \(data))")
        let stop = StopSignal()
        let sources = stop.requestOnTerminationSignals()
        while !stop.isRequested { Thread.sleep(forTimeInterval: 0.1) }
        sources.forEach { $0.cancel() }
        server.stop()
        say("boxsim stopped")

    case "retranscribe":
        guard let message = option("--message") else { fail("retranscribe needs --message ID", status: 2) }
        let timeoutText = option("--timeout-ms") ?? "10000"
        guard let timeout = Int(timeoutText), (1...600_000).contains(timeout) else {
            fail("--timeout-ms takes a whole number of milliseconds from 1 to 600000, not '\(timeoutText)'", status: 2)
        }
        let base = option("--url") ?? (try? String(contentsOfFile: data + "/boxsim.url", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let base, let root = URL(string: base), let host = root.host, let port = root.port else {
            fail("no running boxsim found: start `boxsim serve --data \(data)` or pass --url")
        }
        let body = try! JSONSerialization.data(withJSONObject: ["messageId": message, "timeoutMs": timeout])
        let request = HTTPRequest(method: .post, url: "http://\(host):\(port)/boxsim/retranscribe",
                                  body: .bytes(body, contentType: "application/json"), timeout: 70)
        let response: HTTPResponse
        do { response = try HTTPTransfer.perform(request) } catch { fail("cannot reach boxsim at \(base): \(error)") }
        say("HTTP \(response.status)")
        for name in ["content-type", "x-recorded-at", "x-message-id", "x-session-id", "x-message-text"] {
            guard let value = response.header(name) else { continue }
            let shown = name == "content-type" || name == "x-recorded-at" ? value : "\(value) (decoded: \(value.removingPercentEncoding ?? value))"
            say("\(name): \(shown)")
        }
        if response.status == 200 {
            say(RetranscribeReport.describeAudio(response.body))
        } else {
            say(String(decoding: response.body, as: UTF8.self))
        }
        exit(response.status == 200 ? 0 : 1)

    case "pair-link", "messages", "transcriptions":
        let base = option("--url") ?? (try? String(contentsOfFile: data + "/boxsim.url", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let base, let root = URL(string: base), let host = root.host, let port = root.port else {
            fail("no running boxsim found: start `boxsim serve --data \(data)` or pass --url")
        }
        var query: [String] = []
        if let label = option("--label") { query.append("label=" + (label.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")) }
        if let session = option("--session") { query.append("session=" + (session.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")) }
        let path = command == "pair-link" ? "pair-link" : command
        let url = "http://\(host):\(port)/boxsim/\(path)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let request = HTTPRequest(method: command == "pair-link" ? .post : .get, url: url)
        do {
            let response = try HTTPTransfer.perform(request)
            guard response.status == 200 else { fail("boxsim answered HTTP \(response.status)") }
            if command == "pair-link",
               let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], let link = object["link"] as? String {
                say(link)
            } else {
                say(String(decoding: response.body, as: UTF8.self))
            }
        } catch {
            fail("cannot reach boxsim at \(base): \(error)")
        }

    default:
        fail("unknown command '\(command)'\n\n\(usage)", status: 2)
    }
}

main()

import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import CommandGrammar
import Foundation

func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("boxsim: \(message)\n".utf8))
    exit(status)
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func main() {
    let argv = Array(CommandLine.arguments.dropFirst())
    let invocation: Invocation
    do {
        switch try CommandLineParser(program).parse(argv) {
        case .version:
            say(BuildInfo.line(program: "boxsim"))
            exit(0)
        case .help(let command, let verb):
            say(command.map { HelpText.command($0, verb: verb, program: "boxsim") } ?? HelpText.program(program))
            exit(argv.isEmpty ? 2 : 0)
        case .run(let parsed):
            invocation = parsed
        }
    } catch {
        FileHandle.standardError.write(Data((usageLine(error, argv: argv) + "\n").utf8))
        exit(2)
    }
    let command = invocation.command
    func option(_ name: String) -> String? { invocation.string(name) }
    let data = ["manpage", "completions"].contains(command) ? "" : option("--data")!
    /// The running boxsim a client command talks to: --url, else the address `serve` wrote into its data folder.
    func running() -> (base: String, host: String, port: Int) {
        let base =
            option("--url")
            ?? (try? String(contentsOfFile: data + "/boxsim.url", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let base, let root = URL(string: base), let host = root.host, let port = root.port else {
            fail("no running boxsim found: start `boxsim serve --data \(data)` or pass --url")
        }
        return (base, host, port)
    }

    switch command {
    case "manpage":
        say(ManPage.render(program, version: BuildInfo.version))
    case "completions":
        switch invocation.argument("SHELL")! {
        case "bash": say(ShellCompletions.bash(program))
        case "zsh": say(ShellCompletions.zsh(program))
        default: say(ShellCompletions.fish(program))
        }
    case "serve":
        var configuration = BoxSimConfiguration(dataDirectory: data)
        configuration.port = invocation.integer("--port")!
        if let slug = option("--slug") { configuration.slug = slug }
        configuration.hq = try! HQMode.parse(option("--hq")!)  // checked by the grammar (serve's check)
        configuration.hqText = option("--hq-text")
        configuration.defaultSession = option("--default-session")
        if let seconds = invocation.number("--turn-seconds") { configuration.turnSeconds = seconds }
        configuration.pingIntervalSeconds = invocation.number("--ping-interval")!
        configuration.pongGraceSeconds = invocation.number("--pong-grace")!
        if let seconds = invocation.number("--send-delay") { configuration.sendDelaySeconds = seconds }
        if let formats = invocation.list("--hq-rejects") { configuration.hqRejectedFormats = Set(formats) }
        if let rate = invocation.number("--uplink") { configuration.uplinkBitsPerSecond = rate * 1e6 }
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
        stop.wait()
        sources.forEach { $0.cancel() }
        server.stop()
        say("boxsim stopped")

    case "retranscribe":
        let message = option("--message")!
        let timeout = invocation.integer("--timeout-ms")!
        let (base, host, port) = running()
        // A string and a number: encoding cannot fail.
        let body = try! JSONEncoder().encode(RetranscribeRequest(messageId: message, timeoutMs: timeout))
        let request = HTTPRequest(
            method: .post, url: "http://\(host):\(port)/boxsim/retranscribe",
            body: .bytes(body, contentType: "application/json"), timeout: 70,
            maxResponseBytes: HTTPRequest.recordingAnswerBytes)
        let response: HTTPResponse
        do { response = try HTTPTransfer.perform(request) } catch { fail("cannot reach boxsim at \(base): \(error)") }
        say("HTTP \(response.status)")
        for name in ["content-type", "x-recorded-at", "x-message-id", "x-session-id", "x-message-text"] {
            guard let value = response.header(name) else { continue }
            let shown =
                name == "content-type" || name == "x-recorded-at"
                ? value : "\(value) (decoded: \(value.removingPercentEncoding ?? value))"
            say("\(name): \(shown)")
        }
        if response.status == 200 {
            say(RetranscribeReport.describeAudio(response.body))
        } else {
            say(String(decoding: response.body, as: UTF8.self))
        }
        exit(response.status == 200 ? 0 : 1)

    case "pair-link", "messages", "transcriptions":
        // `boxsim serve --data DIR &` then `boxsim pair-link --data DIR` at once (as the README does it): the server
        // may still be starting, its address file not yet written (or left by the last one). Asked again for up to
        // 10 s while nothing answers.
        let patience = Date().addingTimeInterval(option("--url") == nil ? 10 : 0)
        while option("--url") == nil, !FileManager.default.fileExists(atPath: data + "/boxsim.url"), Date() < patience {
            usleep(100_000)
        }
        var (base, host, port) = running()
        var query: [String] = []
        // Only pair-link takes these (asking another command for an option it does not declare is a programming error).
        for name in ["label", "session"] where command == "pair-link" {
            if let value = option("--" + name) {
                query.append(name + "=" + (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            }
        }
        let path = command == "pair-link" ? "pair-link" : command
        let url = "http://\(host):\(port)/boxsim/\(path)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        var request = HTTPRequest(method: command == "pair-link" ? .post : .get, url: url)
        do {
            var answer: HTTPResponse?
            while answer == nil {
                do {
                    answer = try HTTPTransfer.perform(request)
                } catch where error.kind == .connect && Date() < patience {
                    usleep(100_000)
                    (base, host, port) = running()
                    request.url = "http://\(host):\(port)/boxsim/\(path)"
                        + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
                }
            }
            let response = answer!
            guard response.status == 200 else { fail("boxsim answered HTTP \(response.status)") }
            if command == "pair-link",
                let answer = try? JSONDecoder().decode(PairLinkAnswer.self, from: Data(response.body))
            {
                say(answer.link)
            } else {
                say(String(decoding: response.body, as: UTF8.self))
            }
        } catch {
            fail("cannot reach boxsim at \(base): \(error)")
        }

    default:
        preconditionFailure("a command the grammar declares is handled")
    }
}

main()

/// What `boxsim retranscribe` asks the running boxsim.
private struct RetranscribeRequest: Encodable {
    let messageId: String
    let timeoutMs: Int
}

/// The running boxsim's answer to `pair-link`.
private struct PairLinkAnswer: Decodable {
    let link: String
}

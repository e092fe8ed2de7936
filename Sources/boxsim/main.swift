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

/// The command line, parsed; exits for `--version`, help and usage errors.
func parsedInvocation(_ argv: [String]) -> Invocation {
    do {
        switch try CommandLineParser(program).parse(argv) {
        case .version:
            say(BuildInfo.line(program: "boxsim"))
            exit(0)
        case .help(let command, let verb):
            say(command.map { HelpText.command($0, verb: verb, program: "boxsim") } ?? HelpText.program(program))
            exit(argv.isEmpty ? 2 : 0)
        case .run(let parsed):
            return parsed
        }
    } catch {
        FileHandle.standardError.write(Data((usageLine(error, argv: argv) + "\n").utf8))
        exit(2)
    }
}

extension Invocation {
    /// What the grammar guarantees (`required`); its absence is a grammar bug, said as such.
    func given(_ argument: ArgumentSpec) -> String {
        do { return try required(argument) } catch { fail("\(error) (boxsim's grammar is wrong)") }
    }

    func given<Value>(_ option: Option<Value>) -> Value {
        guard let value = self[option] else { fail("\(option.spec.name) is missing (boxsim's grammar is wrong)") }
        return value
    }
}

/// The running boxsim a client command talks to: --url, else the address `serve` wrote into its data folder.
func running(_ invocation: Invocation, data: String) -> (base: String, host: String, port: Int) {
    let base =
        invocation[BoxSimOptions.url]
        ?? (try? String(contentsOfFile: data + "/boxsim.url", encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines)
    guard let base, let root = URL(string: base), let host = root.host, let port = root.port else {
        fail("no running boxsim found: start `boxsim serve --data \(data)` or pass --url")
    }
    return (base, host, port)
}

func main() {
    let invocation = parsedInvocation(Array(CommandLine.arguments.dropFirst()))
    switch invocation.command {
    case "manpage":
        say(ManPage.render(program, version: BuildInfo.version))
    case "completions":
        switch invocation.given(BoxSimOptions.shell) {
        case "bash": say(ShellCompletions.bash(program))
        case "zsh": say(ShellCompletions.zsh(program))
        default: say(ShellCompletions.fish(program))
        }
    case "serve":
        serve(invocation, data: invocation.given(BoxSimOptions.data))
    case "retranscribe":
        retranscribe(invocation, data: invocation.given(BoxSimOptions.data))
    case "pair-link", "messages", "transcriptions":
        ask(invocation, data: invocation.given(BoxSimOptions.data))
    default:
        preconditionFailure("a command the grammar declares is handled")
    }
}

/// `boxsim serve`: runs the box until a termination signal.
func serve(_ invocation: Invocation, data: String) {
    var configuration = BoxSimConfiguration(dataDirectory: data)
    configuration.port = invocation.given(BoxSimOptions.port)
    if let slug = invocation[BoxSimOptions.slug] { configuration.slug = slug }
    do {
        configuration.hq = try HQMode.parse(invocation.given(BoxSimOptions.hq))
    } catch {
        fail("\(error)")
    }
    configuration.hqText = invocation[BoxSimOptions.hqText]
    configuration.defaultSession = invocation[BoxSimOptions.defaultSession]
    if let seconds = invocation[BoxSimOptions.turnSeconds] { configuration.turnSeconds = seconds }
    configuration.pingIntervalSeconds = invocation.given(BoxSimOptions.pingInterval)
    configuration.pongGraceSeconds = invocation.given(BoxSimOptions.pongGrace)
    if let seconds = invocation[BoxSimOptions.sendDelay] { configuration.sendDelaySeconds = seconds }
    if let formats = invocation[BoxSimOptions.hqRejects] { configuration.hqRejectedFormats = Set(formats) }
    if let rate = invocation[BoxSimOptions.uplink] { configuration.uplinkBitsPerSecond = rate * 1e6 }
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
}

/// `boxsim retranscribe`: asks the running box to request a message's last audio, and describes the answer.
func retranscribe(_ invocation: Invocation, data: String) -> Never {
    let message = invocation.given(BoxSimOptions.message)
    let timeout = invocation.given(BoxSimOptions.timeout)
    let (base, host, port) = running(invocation, data: data)
    let body: Data
    do {
        body = try JSONEncoder().encode(RetranscribeRequest(messageId: message, timeoutMs: timeout))
    } catch {
        fail("cannot encode the request: \(error)")
    }
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
}

/// `pair-link`, `messages`, `transcriptions`: one question to the running box, its answer printed.
func ask(_ invocation: Invocation, data: String) {
    let command = invocation.command
    // `boxsim serve --data DIR &` then `boxsim pair-link --data DIR` at once (as the README does it): the server
    // may still be starting, its address file not yet written (or left by the last one). Asked again for up to
    // 10 s while nothing answers.
    let given = invocation.has(BoxSimOptions.url)
    let patience = Date().addingTimeInterval(given ? 0 : 10)
    while !given, !FileManager.default.fileExists(atPath: data + "/boxsim.url"), Date() < patience {
        usleep(100_000)
    }
    var query: [String] = []
    // Only pair-link takes these (asking another command for an option it does not declare is a programming error).
    for (name, option) in [("label", BoxSimOptions.label), ("session", BoxSimOptions.session)]
    where command == "pair-link" {
        if let value = invocation[option] {
            query.append(name + "=" + (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        }
    }
    let path = command + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    var (base, host, port) = running(invocation, data: data)
    var response: HTTPResponse?
    while response == nil {
        let request = HTTPRequest(
            method: command == "pair-link" ? .post : .get, url: "http://\(host):\(port)/boxsim/\(path)")
        do {
            response = try HTTPTransfer.perform(request)
        } catch  where error.kind == .connect && Date() < patience {
            usleep(100_000)
            (base, host, port) = running(invocation, data: data)
        } catch {
            fail("cannot reach boxsim at \(base): \(error)")
        }
    }
    guard let response, response.status == 200 else { fail("boxsim answered HTTP \(response?.status ?? 0)") }
    if command == "pair-link", let answer = try? JSONDecoder().decode(PairLinkAnswer.self, from: Data(response.body)) {
        say(answer.link)
    } else {
        say(String(decoding: response.body, as: UTF8.self))
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

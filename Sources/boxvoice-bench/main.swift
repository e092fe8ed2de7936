import BoxVoiceLive
import BoxVoiceKeywords
import Foundation

/// `make bench` helpers: each prints a Markdown section for BENCHMARKS.md.
let arguments = Array(CommandLine.arguments.dropFirst())
func value(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
/// An option's value split into a list (`--conditions "pink;babble"`).
func list(_ name: String, separator: Character) -> [String]? {
    value(name).map { $0.split(separator: separator).map(String.init) }
}
do {
    switch arguments.first {
    case "keywords"?:
        try accepting("--models")
        guard let models = value("--models") else { throw BenchFailure(message: "keywords needs --models DIR") }
        try benchKeywords(modelsDirectory: models)
    case "live"?:
        try accepting("--models", "--samples", "--verbose")
        guard let models = value("--models"), let samples = value("--samples") else {
            throw BenchFailure(message: "live needs --models DIR --samples DIR")
        }
        try benchLive(models: models, samples: samples, verbose: arguments.contains("--verbose"))
    case "tune-spotter"?:
        try accepting("--each", "--exponents", "--max-clip-seconds", "--models", "--phrases", "--samples")
        guard let models = value("--models"), let samples = value("--samples") else {
            throw BenchFailure(message: "tune-spotter needs --models DIR --samples DIR")
        }
        try tuneSpotter(
            models: models, samples: samples, phraseFile: value("--phrases"), each: arguments.contains("--each"),
            maxClipSeconds: value("--max-clip-seconds").flatMap(Double.init) ?? .infinity,
            exponents: value("--exponents").map { $0.split(separator: ",").compactMap { Int($0) } } ?? [
                5, 10, 15, 20, 25, 30, 35, 40,
            ])
    case "upload"?:
        try accepting("--link", "--runs")
        guard let link = value("--link") else { throw BenchFailure(message: "upload needs --link LINK") }
        try benchUpload(link: link, runs: Int(value("--runs") ?? "5") ?? 5)
    case "dictation"?:
        try accepting("--lengths", "--models", "--samples")
        guard let models = value("--models"), let samples = value("--samples") else {
            throw BenchFailure(message: "dictation needs --models DIR --samples DIR")
        }
        try benchDictation(
            models: models, samples: samples,
            lengths: value("--lengths").map { $0.split(separator: ",").compactMap { Double($0) } } ?? [20, 180, 600])
    case "retranscribe"?:
        try accepting("--boxvoice", "--runs", "--samples")
        guard let boxvoice = value("--boxvoice"), let samples = value("--samples") else {
            throw BenchFailure(message: "retranscribe needs --boxvoice PATH --samples DIR")
        }
        try benchRetranscribe(boxvoice: boxvoice, samples: samples, runs: Int(value("--runs") ?? "10") ?? 10)
    case "faults"?:
        try accepting("--boxvoice", "--busy-minutes", "--models", "--samples", "--watchdog-trials")
        guard let boxvoice = value("--boxvoice"), let models = value("--models"), let samples = value("--samples")
        else {
            throw BenchFailure(message: "faults needs --boxvoice PATH --models DIR --samples DIR")
        }
        try benchFaults(
            boxvoice: boxvoice, models: models, samples: samples,
            busyMinutes: value("--busy-minutes").flatMap(Double.init) ?? 10,
            watchdogTrials: value("--watchdog-trials").flatMap(Int.init) ?? 10)
    case "memory"?:
        try accepting("--boxvoice", "--minutes", "--plot", "--samples")
        guard let boxvoice = value("--boxvoice"), let samples = value("--samples") else {
            throw BenchFailure(message: "memory needs --boxvoice PATH --samples DIR")
        }
        try benchMemory(
            boxvoice: boxvoice, samples: samples,
            minutes: value("--minutes").map { $0.split(separator: ",").compactMap { Double($0) } } ?? [10, 60],
            plot: value("--plot"))
    case "realspeech"?:
        try accepting(
            "--conditions", "--landed", "--languages", "--models", "--no-clips", "--no-front-end", "--only-now",
            "--real", "--room", "--samples", "--spotter", "--work")
        guard let models = value("--models"), let samples = value("--samples"), let real = value("--real"),
            let work = value("--work")
        else {
            throw BenchFailure(message: "realspeech needs --models DIR --samples DIR --real DIR --work DIR")
        }
        try benchRealSpeech(
            models: models, samples: samples, real: real, work: work,
            languages: value("--languages").map { $0.split(separator: ",").map(String.init) } ?? [
                "en", "es", "fr", "it", "ru",
            ],
            clipsToo: !arguments.contains("--no-clips"), spotterPhrases: value("--spotter"), landed: value("--landed"),
            frontEndToo: !arguments.contains("--no-front-end"),
            conditionNames: list("--conditions", separator: ";"), room: value("--room"),
            onlyNow: arguments.contains("--only-now"))
    case "hearing"?:
        try accepting("--conditions", "--hearing", "--held-out", "--languages", "--models", "--real", "--work")
        guard let models = value("--models"), let real = value("--real"), let work = value("--work"),
            let hearing = value("--hearing"), let heldOut = value("--held-out")
        else {
            throw BenchFailure(message: "hearing needs --models DIR --real DIR --work DIR --hearing DIR --held-out DIR")
        }
        try benchHearing(
            models: models, real: real, work: work, hearing: hearing, heldOut: heldOut,
            conditionNames: list("--conditions", separator: ";"),
            languages: value("--languages").map { $0.split(separator: ",").map(String.init) } ?? [
                "en", "es", "fr", "it", "ru", "fr2", "es2", "mid-sentence-development", "mid-sentence-held-out",
            ])
    case "latency"?:
        try accepting("--boxvoice", "--hearing", "--held-out", "--models", "--plot", "--real", "--work")
        guard let models = value("--models"), let real = value("--real"), let work = value("--work"),
            let hearing = value("--hearing"), let heldOut = value("--held-out"), let boxvoice = value("--boxvoice")
        else {
            throw BenchFailure(
                message: "latency needs --models DIR --real DIR --work DIR --hearing DIR --held-out DIR "
                    + "--boxvoice PATH")
        }
        try benchLatency(
            models: models, real: real, work: work, hearing: hearing, heldOut: heldOut, boxvoice: boxvoice,
            plot: value("--plot"))
    case "hearing-probe"?:
        try accepting(
            "--accent-below", "--command-words-inside", "--conditions", "--context", "--context-unsure",
            "--decision", "--endings", "--english-floor", "--hearing", "--held-out", "--hmm-limit", "--list",
            "--list-condition", "--lookalikes", "--models", "--no-prompt", "--no-spotter", "--own-language-below",
            "--real", "--search", "--threads", "--verbose", "--work")
        guard let models = value("--models"), let real = value("--real"), let work = value("--work"),
            let hearing = value("--hearing"), let heldOut = value("--held-out")
        else {
            throw BenchFailure(
                message: "hearing-probe needs --models DIR --real DIR --work DIR --hearing DIR "
                    + "--held-out DIR")
        }
        let searchName = value("--search") ?? "greedy"
        let search: WhisperModel.Search =
            searchName.hasPrefix("beam")
            ? .beam(Int(searchName.dropFirst(4)) ?? 5) : .greedy
        try probeHearing(
            models: models, real: real, work: work, hearing: hearing, heldOut: heldOut,
            list: value("--list"), search: search,
            conditionNames: list("--conditions", separator: ";") ?? [],
            threads: value("--threads").flatMap(Int.init) ?? 2,
            context: value("--context").flatMap(Double.init), verbose: arguments.contains("--verbose"),
            spotter: !arguments.contains("--no-spotter"), activeHMMLimit: value("--hmm-limit").flatMap(Int.init),
            decision: value("--decision").flatMap { decisionSetting($0) },
            englishFloor: value("--english-floor").map { Float($0) },
            ownLanguageBelow: value("--own-language-below").map { Float($0) },
            accentBelow: value("--accent-below").map { Float($0) },
            englishLookalikes: value("--lookalikes").map {
                $0 == "none" ? [] : Set($0.split(separator: ",").map(String.init))
            }, contextUnsureBelow: value("--context-unsure").map { Float($0) },
            listCondition: value("--list-condition"),
            endings: value("--endings").map {
                pairSetting($0).map { LiveTranscriber.WhisperHearing.Endings(tolerance: $0, margin: Float($1)) }
            },
            commandWordsInside: arguments.contains("--command-words-inside"),
            usesPrompt: !arguments.contains("--no-prompt"))
    case "room"?:
        try accepting("--languages", "--real", "--samples", "--work")
        guard let samples = value("--samples"), let real = value("--real"), let work = value("--work") else {
            throw BenchFailure(message: "room needs --samples DIR --real DIR --work DIR")
        }
        try benchRoom(
            samples: samples, real: real, work: work,
            languages: value("--languages").map { $0.split(separator: ",").map(String.init) } ?? [
                "en", "es", "fr", "it", "ru",
            ])
    case "spotter-sweep"?:
        try accepting("--conditions", "--languages", "--models", "--real", "--room", "--samples", "--scales", "--work")
        guard let models = value("--models"), let samples = value("--samples"), let real = value("--real"),
            let work = value("--work")
        else {
            throw BenchFailure(message: "spotter-sweep needs --models DIR --samples DIR --real DIR --work DIR")
        }
        try sweepSpotter(
            models: models, samples: samples, real: real, work: work,
            scales: value("--scales").map { $0.split(separator: ",").compactMap { Int($0) } } ?? [0, 5, 10, 15, 20],
            languages: value("--languages").map { $0.split(separator: ",").map(String.init) } ?? ["en", "es", "fr"],
            conditionNames: list("--conditions", separator: ";"), room: value("--room"))
    case "second-opinion"?:
        try accepting("--models", "--runs", "--samples")
        guard let models = value("--models"), let samples = value("--samples") else {
            throw BenchFailure(message: "second-opinion needs --models DIR --samples DIR")
        }
        try benchSecondOpinion(models: models, samples: samples, runs: Int(value("--runs") ?? "5") ?? 5)
    case "calibration"?:
        try accepting("--boxvoice", "--conditions", "--models", "--real", "--work")
        guard let boxvoice = value("--boxvoice"), let models = value("--models"), let real = value("--real"),
            let work = value("--work")
        else {
            throw BenchFailure(message: "calibration needs --boxvoice PATH --models DIR --real DIR --work DIR")
        }
        try benchCalibration(
            boxvoice: boxvoice, models: models, real: real, work: work,
            conditionNames: list("--conditions", separator: ";"))
    case "codec"?:
        try accepting("--bitrates", "--minutes", "--models", "--rates", "--samples")
        guard let models = value("--models"), let samples = value("--samples") else {
            throw BenchFailure(message: "codec needs --models DIR --samples DIR")
        }
        try benchCodec(
            models: models, samples: samples, minutes: Double(value("--minutes") ?? "10") ?? 10,
            rates: value("--rates").map { $0.split(separator: ",").compactMap { Double($0) } } ?? [2, 10, 100],
            bitrates: value("--bitrates").map { $0.split(separator: ",").compactMap { Int($0) } } ?? [24, 32, 48, 96])
    case "preroll"?:
        try accepting("--hold", "--trials")
        try benchPreRoll(
            trials: Int(value("--trials") ?? "10") ?? 10, holdSeconds: Double(value("--hold") ?? "1.5") ?? 1.5)
    case "durability"?:
        try accepting("--boxvoice", "--commits", "--trials")
        guard let boxvoice = value("--boxvoice") else {
            throw BenchFailure(message: "durability needs --boxvoice PATH")
        }
        try benchDurability(
            boxvoice: boxvoice, trials: Int(value("--trials") ?? "100") ?? 100,
            commits: Int(value("--commits") ?? "200") ?? 200)
    default:
        throw BenchFailure(
            message:
                "usage: boxvoice-bench durability --boxvoice PATH [--trials N] [--commits N] | dictation --models DIR "
                + "--samples DIR [--lengths S,S] | memory --boxvoice PATH --samples DIR [--minutes M,M] | "
                + "retranscribe --boxvoice PATH --samples DIR [--runs N] | boxvoice-bench keywords --models DIR | "
                + "live --models DIR --samples DIR [--verbose] | upload --link LINK [--runs N]"
        )
    }
} catch {
    FileHandle.standardError.write(Data("boxvoice-bench: \(error)\n".utf8))
    exit(1)
}

/// Refuses an option the command does not read: a misspelled or stale option once let a whole run go by with its
/// setting silently ignored.
func accepting(_ names: String...) throws {
    let unknown = arguments.dropFirst().filter { $0.hasPrefix("--") && !names.contains($0) }
    guard unknown.isEmpty else {
        throw BenchFailure(
            message: "\(arguments[0]) does not take \(unknown.joined(separator: ", ")); it takes "
                + (names.isEmpty ? "no option" : names.joined(separator: " ")))
    }
}

/// An option of two numbers, `A,B`; nil for anything else (`off`): the setting turned off.
func pairSetting(_ setting: String) -> (Double, Double)? {
    let parts = setting.split(separator: ",").compactMap { Double($0) }
    return parts.count == 2 ? (parts[0], parts[1]) : nil
}

/// `--decision WEIGHT,ACT,ASK` (`CommandDecision`); nil for anything else.
func decisionSetting(_ setting: String) -> CommandDecision? {
    let parts = setting.split(separator: ",").compactMap { Double($0) }
    guard parts.count == 3 else { return nil }
    return CommandDecision(surenessWeight: parts[0], act: parts[1], ask: parts[2])
}

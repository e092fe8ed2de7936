// swift-tools-version:6.0
import PackageDescription

// Dependencies point one way: C wrappers → BoxVoiceAudio / BoxVoiceKeywords → boxvoice (CLI).
// C libraries come from Debian's -dev packages (see `make setup`); nothing is fetched.
let package = Package(
    name: "boxvoice",
    products: [
        .executable(name: "boxvoice", targets: ["boxvoice"]),
        .executable(name: "boxsim", targets: ["boxsim"]),
        .library(name: "BoxVoiceAudio", targets: ["BoxVoiceAudio"]),
        .library(name: "BoxVoiceKeywords", targets: ["BoxVoiceKeywords"]),
        .library(name: "BoxVoiceContract", targets: ["BoxVoiceContract"]),
        .library(name: "BoxVoiceStore", targets: ["BoxVoiceStore"]),
    ],
    targets: [
        // MARK: C libraries (Debian packages)
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSoxr", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),
        // alsa-lib reports details through a variadic printf-style callback Swift cannot implement.
        .target(name: "CALSAShim", linkerSettings: [.linkedLibrary("asound")]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // curl_easy_setopt / curl_easy_getinfo are variadic: one typed C function per argument type.
        .target(name: "CCurlShim", linkerSettings: [.linkedLibrary("curl")]),
        // The version and commit `make` builds in (a C define: SwiftPM hands values to the C compiler only).
        .target(name: "CBuildInfo"),
        // sd-bus (libsystemd) builds D-Bus messages through variadic calls: one C function per call made or answered.
        .target(name: "CSDBusShim", linkerSettings: [.linkedLibrary("systemd")]),
        .systemLibrary(name: "CCivetweb", providers: [.apt(["libcivetweb-dev"])]),
        .systemLibrary(
            name: "CPocketSphinx", pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "pocketsphinx-en-us"])]),
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CWebSockets", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev"])]),
        // MARK: C libraries built by `make setup` from PyPI archives (scripts/hearing-parts.sh, into .build/hearing)
        .systemLibrary(name: "CWhisper", pkgConfig: "whisper"),

        // MARK: Swift modules
        // Waiting for news without polling (pure Swift, below everything that has a thread wait).
        .target(name: "BoxVoiceSync"),
        .target(name: "BoxVoiceAudio", dependencies: ["BoxVoiceSync", "CALSA", "CALSAShim", "CSndFile", "CSoxr"]),
        .target(name: "BoxVoiceKeywords"),
        // Durable state on disk: the outbox and the retention index (SQLite).
        .target(
            name: "BoxVoiceStore", dependencies: ["CSQLite", "BoxVoiceKeywords", "BoxVoiceAudio", "BoxVoiceContract"]),
        // Local speech recognition: pocketsphinx (Debian's en-us model) for words while speaking and the command
        // spotter; Silero VAD and Whisper for each utterance once it ends.
        .target(
            name: "BoxVoiceLive",
            dependencies: [
                "EditDistance", "BoxVoiceAudio", "BoxVoiceKeywords", "CPocketSphinx", "CSpeexDSP", "CWhisper",
            ]),
        // The box's wire contract as values: decoding, framing, failure kinds. Shared by the client and boxsim.
        .target(name: "BoxVoiceContract", dependencies: ["CBuildInfo"]),
        // Both programs' command lines as data: one parser, --help, man pages and completions (pure Swift).
        .target(name: "CommandGrammar", dependencies: ["EditDistance"]),
        // Word distance and the nearest-word suggestion the grammar, the settings and the live recognizer share (pure).
        .target(name: "EditDistance"),
        .target(name: "BoxVoiceBox", dependencies: ["BoxVoiceContract", "CCurl", "CCurlShim", "CWebSockets"]),
        // A local box speaking the same contract (HTTP on civetweb), for tests, demos and other clients' developers.
        .target(
            name: "BoxSim",
            dependencies: ["BoxVoiceSync", "BoxVoiceContract", "BoxVoiceAudio", "BoxVoiceLive", "CCivetweb"]),
        .executableTarget(name: "boxsim", dependencies: ["CommandGrammar", "BoxSim", "BoxVoiceBox", "BoxVoiceAudio"]),
        // Feedback without a terminal: desktop notifications over D-Bus (sd-bus).
        .target(name: "BoxVoiceDesktop", dependencies: ["BoxVoiceSync", "CSDBusShim"]),
        // Getting a committed message to its box: HQ uploads (WAV or Opus), the text chosen, the outbox's delivery with
        // its backoff, the session a run's first message opened, and file transcription.
        .target(
            name: "BoxVoiceDelivery",
            dependencies: [
                "BoxVoiceAudio", "BoxVoiceKeywords", "BoxVoiceContract", "BoxVoiceBox", "BoxVoiceStore", "BoxVoiceLive",
            ]),
        // A dictation: the microphone's audio to a segmented recording, heard live, cut into messages at their
        // commands or keys, each committed and handed to delivery; the user's settings for it.
        .target(
            name: "BoxVoiceDictation",
            dependencies: [
                "EditDistance", "BoxVoiceAudio", "BoxVoiceKeywords", "BoxVoiceContract", "BoxVoiceBox", "BoxVoiceStore",
                "BoxVoiceLive", "BoxVoiceSync", "BoxVoiceDelivery",
            ]),
        // What a user sees of a dictation: events as JSON lines, the terminal's status area, `status --follow`,
        // desktop notifications and cues.
        .target(
            name: "BoxVoicePresentation",
            dependencies: [
                "BoxVoiceDictation", "BoxVoiceDelivery", "BoxVoiceDesktop", "BoxVoiceAudio", "BoxVoiceContract",
                "BoxVoiceKeywords",
                "BoxVoiceLive", "BoxVoiceStore",
            ]),
        // The user unit: hotkey turns over the control socket, retranscription answers, delivery between turns.
        .target(
            name: "BoxVoiceDaemon",
            dependencies: [
                "BoxVoiceDictation", "BoxVoiceDelivery", "BoxVoicePresentation", "BoxVoiceAudio", "BoxVoiceBox",
                "BoxVoiceContract",
                "BoxVoiceKeywords", "BoxVoiceLive", "BoxVoiceStore", "BoxVoiceSync",
            ]),
        // Calibration to one voice and room: the user's takes heard through the whole live path, settings chosen on
        // them.
        .target(name: "BoxVoiceCalibration", dependencies: ["BoxVoiceAudio", "BoxVoiceKeywords", "BoxVoiceLive"]),
        .executableTarget(
            name: "boxvoice",
            dependencies: [
                "CommandGrammar", "BoxVoiceDictation", "BoxVoiceDelivery", "BoxVoiceCalibration",
                "BoxVoicePresentation", "BoxVoiceDaemon",
                "BoxVoiceDesktop",
                "BoxVoiceAudio", "BoxVoiceKeywords", "BoxVoiceContract", "BoxVoiceBox", "BoxVoiceLive", "BoxVoiceStore",
                "BoxSim",
            ]),
        // `make bench`: measurements against baselines written here (the naive keyword matcher lives in test support).
        .executableTarget(
            name: "boxvoice-bench",
            dependencies: [
                "BoxVoiceKeywords", "BoxVoiceBox", "BoxVoiceContract", "BoxVoiceAudio", "BoxVoiceLive",
                "BoxVoiceDictation",
                "BoxVoiceDelivery",
                "BoxVoiceCalibration", "BoxVoiceStore", "BoxSim", "BoxVoiceTestSupport",
            ]),

        // MARK: Tests (one target per module, plus the CLI end to end)
        .target(
            name: "BoxVoiceTestSupport",
            dependencies: [
                "BoxVoiceDesktop", "BoxVoiceAudio", "BoxVoiceKeywords", "BoxVoiceBox", "BoxSim", "BoxVoiceStore",
                "BoxVoiceLive",
            ], path: "Tests/BoxVoiceTestSupport"),
        .testTarget(name: "BoxVoiceSyncTests", dependencies: ["BoxVoiceSync"]),
        .testTarget(name: "BoxVoiceAudioTests", dependencies: ["BoxVoiceAudio", "BoxVoiceTestSupport"]),
        // Vectors/ is read by path at test time, like ../shared/vectors.
        .testTarget(
            name: "BoxVoiceKeywordsTests", dependencies: ["BoxVoiceKeywords", "BoxVoiceTestSupport"],
            exclude: ["Vectors"]),
        .testTarget(name: "CommandGrammarTests", dependencies: ["CommandGrammar", "BoxVoiceTestSupport"]),
        .testTarget(name: "BoxVoiceContractTests", dependencies: ["BoxVoiceContract", "BoxVoiceTestSupport"]),
        .testTarget(name: "BoxVoiceBoxTests", dependencies: ["BoxVoiceBox", "BoxSim", "BoxVoiceTestSupport"]),
        .testTarget(name: "BoxSimTests", dependencies: ["BoxSim", "BoxVoiceTestSupport"]),
        .testTarget(
            name: "BoxVoiceDictationTests",
            dependencies: ["BoxVoiceDictation", "BoxVoiceDelivery", "BoxVoiceTestSupport"]),
        .testTarget(name: "BoxVoiceDeliveryTests", dependencies: ["BoxVoiceDelivery", "BoxVoiceTestSupport"]),
        .testTarget(name: "BoxVoicePresentationTests", dependencies: ["BoxVoicePresentation", "BoxVoiceTestSupport"]),
        .testTarget(
            name: "BoxVoiceDaemonTests",
            dependencies: ["BoxVoiceDaemon", "BoxVoicePresentation", "BoxVoiceTestSupport"]),
        .testTarget(name: "BoxVoiceCalibrationTests", dependencies: ["BoxVoiceCalibration", "BoxVoiceTestSupport"]),
        .testTarget(
            name: "BoxVoiceStoreTests", dependencies: ["BoxVoiceStore", "BoxVoiceContract", "BoxVoiceTestSupport"]),
        .testTarget(
            name: "BoxVoiceLiveTests",
            dependencies: ["BoxVoiceLive", "BoxVoiceKeywords", "BoxVoiceTestSupport", "EditDistance"]),
        .testTarget(
            name: "BoxVoiceCLITests",
            dependencies: [
                "boxvoice", "boxsim", "CommandGrammar", "BoxVoiceAudio", "BoxVoiceStore", "BoxVoiceBox",
                "BoxVoiceContract", "BoxVoiceTestSupport",
            ]),
    ],
    swiftLanguageModes: [.v6]
)

import BoxVoiceDictation
import Foundation

/// Enter, Esc and Tab (send the live text now, without waiting for HQ) from standard input, for a running dictation.
/// On a terminal the line discipline is switched to byte-at-a-time without echo (signals stay on, so Ctrl-C still
/// stops) and put back by `restore()`; arrow keys and other escape sequences are swallowed rather than read as Esc.
/// From a pipe, a newline is Enter, an ESC byte is Esc and a tab is Tab, so scripts and tests can press keys too.
final class TerminalKeys: @unchecked Sendable {
    // @unchecked: `saved` is set by `start` and cleared by `restore`, both on the command's thread; the reader
    // thread never touches it.
    private let control: DictationControl
    private let onKey: @Sendable (DictationTrigger) -> Void
    private let onLiveTextNow: @Sendable (Bool) -> Void
    private var saved: termios?

    /// - Parameters:
    ///   - onKey: told of each key as it is pressed, so the screen can acknowledge it at once.
    ///   - onLiveTextNow: told of Tab, and whether a message was waiting for HQ.
    init(
        control: DictationControl, onKey: @escaping @Sendable (DictationTrigger) -> Void = { _ in },
        onLiveTextNow: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.control = control
        self.onKey = onKey
        self.onLiveTextNow = onLiveTextNow
    }

    func start() {
        let terminal = isatty(STDIN_FILENO) == 1
        if terminal {
            var settings = termios()
            if tcgetattr(STDIN_FILENO, &settings) == 0 {
                saved = settings
                settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
                withUnsafeMutableBytes(of: &settings.c_cc) { cc in
                    cc[Int(VMIN)] = 1
                    cc[Int(VTIME)] = 0
                }
                tcsetattr(STDIN_FILENO, TCSANOW, &settings)
            }
        }
        let control = self.control, onKey = self.onKey, onLiveTextNow = self.onLiveTextNow
        let thread = Thread {
            Self.read(terminal: terminal) { key in
                switch key {
                case .trigger(let trigger):
                    control.press(trigger)
                    onKey(trigger)
                case .liveTextNow:
                    onLiveTextNow(control.sendLiveTextNow())
                }
            }
        }
        thread.name = "boxvoice keys"
        thread.start()
    }

    /// Puts the terminal back as it was.
    func restore() {
        guard var settings = saved else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        saved = nil
    }

    private enum Key {
        case trigger(DictationTrigger)
        case liveTextNow
    }

    private static func read(terminal: Bool, press: (Key) -> Void) {
        var afterEscape = false
        while let byte = readByte() {
            switch byte {
            case 0x09:
                press(.liveTextNow)
                afterEscape = false
            case 0x0A, 0x0D:
                // From a pipe, the newline that ends an ESC line is part of that key.
                if !(afterEscape && !terminal) { press(.trigger(.enter)) }
                afterEscape = false
            case 0x1B:
                if terminal, let next = readByte(within: 30), next == UInt8(ascii: "[") || next == UInt8(ascii: "O") {
                    // An escape sequence (arrow, function key): read to its final byte and ignore it.
                    while let part = readByte(within: 30), !(0x40...0x7E).contains(part) {}
                    continue
                }
                press(.trigger(.escape))
                afterEscape = true
            default:
                afterEscape = false
            }
        }
    }

    private static func readByte(within milliseconds: Int32? = nil) -> UInt8? {
        if let milliseconds {
            var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, milliseconds) == 1 else { return nil }
        }
        var byte: UInt8 = 0
        while true {
            let got = Foundation.read(STDIN_FILENO, &byte, 1)
            if got == 1 { return byte }
            if got < 0 && errno == EINTR { continue }
            return nil
        }
    }
}

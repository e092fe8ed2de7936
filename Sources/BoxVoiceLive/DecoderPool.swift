import Dispatch
import Foundation
import Synchronization

/// Language-model decoders that finished recognizers left behind, for the next recognizer built from the same files
/// and arguments to take instead of loading its own. Building one costs about half a CPU-second (its lexical tree
/// and word maps over the model's 79,420 words), which every daemon turn, calibration trial and in-process test paid
/// again. A decoder is reset to how `ps_init` left it before it is kept (`PocketSphinxDecoder.resetForReuse`). Each
/// holds about 75 MB, so at most `keeping` wait, the oldest going first, and none longer than `idleSeconds`: an idle
/// daemon gives the memory back soon after a turn, a turn that follows at once starts without the load.
final class DecoderPool: Sendable {
    /// The pool recognizers use unless told otherwise.
    static let languageModel = DecoderPool(keeping: 2, idleSeconds: 30)

    /// A decoder nobody owns. Safe to send: it is in the pool only between one owner giving it up and `take` handing
    /// it to exactly one next owner.
    private struct Idle: @unchecked Sendable {
        let key: String
        let decoder: PocketSphinxDecoder
        let number: UInt64
    }

    private let keeping: Int
    private let idleSeconds: Double
    private let idle = Mutex<(waiting: [Idle], given: UInt64)>(([], 0))

    init(keeping: Int, idleSeconds: Double) {
        self.keeping = keeping
        self.idleSeconds = idleSeconds
    }

    /// What a decoder is built from: the files (by path, size and modification time, so a changed adaptation or an
    /// upgraded model is never served from before) and the arguments. nil where a file cannot be described.
    static func key(_ model: PocketSphinxModel, arguments: [String]) -> String? {
        let acoustic = (try? FileManager.default.contentsOfDirectory(atPath: model.acousticModel))?.sorted()
            .map { model.acousticModel + "/" + $0 }
        guard let acoustic,
            let files = try? PronunciationDictionary.fingerprint(
                acoustic + [model.languageModel, model.dictionary] + (model.adaptation.map { [$0] } ?? []))
        else { return nil }
        return ([files] + arguments).joined(separator: "\u{0}")
    }

    /// A waiting decoder built under `key`, now the caller's; nil if none waits.
    func take(_ key: String) -> PocketSphinxDecoder? {
        let taken: Idle? = idle.withLock { state in
            guard let index = state.waiting.lastIndex(where: { $0.key == key }) else { return nil }
            return state.waiting.remove(at: index)
        }
        return taken?.decoder
    }

    /// Keeps `decoder`, reset, for the next `take` of `key`; a decoder that cannot be reset is freed instead.
    func give(_ decoder: PocketSphinxDecoder, as key: String) {
        guard (try? decoder.resetForReuse()) != nil else { return }
        let (number, dropped): (UInt64, Idle?) = idle.withLock { state in
            state.given += 1
            state.waiting.append(Idle(key: key, decoder: decoder, number: state.given))
            return (state.given, state.waiting.count > keeping ? state.waiting.removeFirst() : nil)
        }
        _ = dropped  // freed here, outside the lock
        // Weakly: a pool that is gone freed its decoders with it.
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + idleSeconds) { [weak self] in
            let expired: Idle? = self?.idle.withLock { state in
                state.waiting.firstIndex { $0.number == number }.map { state.waiting.remove(at: $0) }
            }
            _ = expired  // freed here, outside the lock
        }
    }

    /// How many decoders wait (for tests).
    var waiting: Int { idle.withLock { $0.waiting.count } }
}

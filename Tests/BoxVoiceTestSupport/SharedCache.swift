import BoxVoiceLive
import Foundation

/// The live recognizer's pronunciation dictionary cut to its language model's words (`PronunciationDictionary`),
/// made once per test process. Every user a test makes would otherwise cut it again on its first dictation (about
/// 0.4 CPU-s in a debug build), and every in-process dictation would load the whole 134,723-word dictionary instead.
/// The cut is the same file for all of them, so sharing it changes nothing they hear.
public enum SharedCache {
    /// The folder holding the cut, for `dictionaryCache` options.
    public static let dictionaryFolder: String = {
        let folder = NSTemporaryDirectory() + "boxvoice-shared-cache-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = PocketSphinxModel.debianEnglish.limitedToLanguageModelWords(keptIn: folder)
        atexit { try? FileManager.default.removeItem(atPath: SharedCache.dictionaryFolderPath) }
        return folder
    }()

    /// The same path, without making the cut (for the exit handler, which must not start it).
    private static var dictionaryFolderPath: String { NSTemporaryDirectory() + "boxvoice-shared-cache-\(getpid())" }

    /// Links the cut into a user's cache folder (`$XDG_CACHE_HOME/boxvoice`), where `boxvoice` looks for it first.
    public static func link(into cache: String) {
        let fileManager = FileManager.default
        try? fileManager.createDirectory(atPath: cache, withIntermediateDirectories: true)
        for name in (try? fileManager.contentsOfDirectory(atPath: dictionaryFolder)) ?? [] {
            let target = (cache as NSString).appendingPathComponent(name)
            if !fileManager.fileExists(atPath: target) {
                _ = Foundation.link((dictionaryFolder as NSString).appendingPathComponent(name), target)
            }
        }
    }
}

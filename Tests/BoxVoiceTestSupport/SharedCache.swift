import BoxVoiceLive
import Foundation

/// The live recognizer's pronunciation dictionary cut to its language model's words (`PronunciationDictionary`),
/// made once per test process. Every user a test makes would otherwise cut it again on its first dictation (about
/// 0.4 CPU-s in a debug build), and every in-process dictation would load the whole 134,723-word dictionary instead.
/// The cut is the same file for all of them, so sharing it changes nothing they hear.
public enum SharedCache {
    /// Where the cut is kept for this test process (removed when it exits).
    private static let folder = NSTemporaryDirectory() + "boxvoice-shared-cache-\(getpid())"

    /// The folder holding the cut, for `dictionaryCache` options; the cut is made on first use.
    public static let dictionaryFolder: String = {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = PocketSphinxModel.debianEnglish.limitedToLanguageModelWords(keptIn: folder)
        atexit { try? FileManager.default.removeItem(atPath: SharedCache.folder) }
        return folder
    }()

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

extension LiveTranscriber.Options {
    /// The live path's defaults with the dictionary cut this test process shares (`SharedCache`): the same words are
    /// heard, and the cut is not made again for every transcriber a test builds.
    public static func sharingTheCut(spotterPhrases: String?) -> Self {
        var options = Self(spotterPhrases: spotterPhrases)
        options.dictionaryCache = SharedCache.dictionaryFolder
        return options
    }
}

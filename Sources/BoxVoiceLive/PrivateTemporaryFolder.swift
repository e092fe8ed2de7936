import Foundation

/// A fresh folder for the recognizer's short-lived files (phrase lists, a cut dictionary): `mkdtemp`, so the name is
/// unpredictable, the folder is new (never one someone planted) and only its owner can enter it.
public enum PrivateTemporaryFolder {
    public static func make(_ purpose: String) throws -> String {
        var template = Array((NSTemporaryDirectory() + "boxvoice-\(purpose)-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw PocketSphinxError(operation: "making a temporary folder", detail: String(cString: strerror(errno)))
        }
        return String(cString: made)
    }
}

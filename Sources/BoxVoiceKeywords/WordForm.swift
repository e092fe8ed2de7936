import Foundation

/// How spoken words are compared (contract §4): normalized, then equal up to a plural ending.
public enum WordForm {
    /// Lowercase, strip diacritics (compatibility decomposition), keep only a–z and 0–9: `It's` → `its`, `Café` →
    /// `cafe`.
    public static func normalize(_ word: some StringProtocol) -> String {
        var ascii = true
        for byte in word.utf8 where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii {
            let utf8 = word.utf8
            return String(unsafeUninitializedCapacity: utf8.count) { buffer in
                var count = 0
                for byte in utf8 {
                    switch byte {
                    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                        buffer[count] = byte
                        count += 1
                    case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                        buffer[count] = byte + 32
                        count += 1
                    default:
                        break
                    }
                }
                return count
            }
        }
        let decomposed = String(word).lowercased().decomposedStringWithCompatibilityMapping
        var kept = String.UnicodeScalarView()
        for scalar in decomposed.unicodeScalars where ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
            kept.append(scalar)
        }
        return String(kept)
    }

    /// Symmetric plural-tolerant equality of two normalized words: identical, or the longer is the shorter
    /// (at least 2 letters) plus `s` or `es`, or the shorter ends in `y` and the longer swaps it for `ies`.
    public static func equal(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        let (shorter, longer) = a.utf8.count <= b.utf8.count ? (a, b) : (b, a)
        guard shorter.utf8.count >= 2 else { return false }
        if longer == shorter + "s" || longer == shorter + "es" { return true }
        return shorter.hasSuffix("y") && longer == shorter.dropLast() + "ies"
    }

    /// Every normalized word that `equal` accepts for `word` — so matching can be one dictionary lookup.
    public static func variants(of word: String) -> Set<String> {
        var forms: Set<String> = [word]
        let count = word.utf8.count
        if count >= 2 {
            forms.insert(word + "s")
            forms.insert(word + "es")
            if word.hasSuffix("y") { forms.insert(word.dropLast() + "ies") }
        }
        // `word` as the longer form of a shorter word of at least 2 letters.
        if word.hasSuffix("s"), count - 1 >= 2 { forms.insert(String(word.dropLast())) }
        if word.hasSuffix("es"), count - 2 >= 2 { forms.insert(String(word.dropLast(2))) }
        if word.hasSuffix("ies"), count - 2 >= 2 { forms.insert(word.dropLast(3) + "y") }
        return forms.filter { equal($0, word) }
    }
}

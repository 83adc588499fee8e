import Foundation

/// A common name as a person reads it. Trefle's names sometimes carry a label in brackets ("Basil (sweet)",
/// "Tomato [cultivated]") or a trailing note after a dash; what is shown is the name alone, or nothing when the name
/// was only a label.
public enum CommonName {
    /// `name` without bracketed labels, a trailing " - note", and extra spaces; nil when nothing is left.
    public static func display(_ name: String) -> String? {
        var text = name
        for (open, close) in [("(", ")"), ("[", "]")] {
            while let start = text.range(of: open), let end = text.range(of: close, range: start.upperBound..<text.endIndex) {
                text.removeSubrange(start.lowerBound..<end.upperBound)
            }
        }
        if let dash = text.range(of: " - ") ?? text.range(of: " – ") { text = String(text[..<dash.lowerBound]) }
        let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ").trimmingCharacters(in: CharacterSet(charactersIn: ",;:"))
        return words.isEmpty ? nil : words
    }

    /// Every name shown, in order, without repeats (regardless of case).
    public static func display(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names.compactMap(display).filter { seen.insert($0.lowercased()).inserted }
    }
}

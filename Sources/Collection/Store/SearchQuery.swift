import Foundation

/// Turns what a person typed into an FTS5 query: every word must match, each as a prefix ("swiss chee" finds
/// "Swiss cheese plant"); quotes and operators are neutralised.
enum SearchQuery {
    /// The words of `text`, lower-cased, split on anything that is not a letter or digit.
    static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    /// The FTS5 MATCH expression, or nil when `text` has no word.
    static func fts(_ text: String) -> String? {
        let words = words(text)
        guard !words.isEmpty else { return nil }
        return words.map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"*" }.joined(separator: " ")
    }
}

import Foundation

/// Turns what a person typed into an FTS5 query over one owner's plants: every word must match, each as a prefix
/// ("swiss chee" finds "Swiss cheese plant"), in the name, family, location or notes columns; quotes and operators
/// are neutralised.
enum SearchQuery {
    /// The words of `text`, lower-cased, split on anything that is not a letter or digit.
    static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    /// The FTS5 MATCH expression for `owner`, or nil when `text` has no word: each word, with the owner's mark
    /// (``SearchTokens``), as a prefix. Words hold only letters and digits, so they need no quoting.
    static func fts(_ text: String, owner: String) -> String? {
        let words = words(text)
        guard !words.isEmpty else { return nil }
        let mark = SearchTokens.mark(owner)
        return words.map { "\"\(mark)\($0)\"*" }.joined(separator: " ")
    }
}

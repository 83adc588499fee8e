import Foundation

/// Turns what a person typed into the words of a search over one owner's plants: every word must match, each as
/// a prefix ("swiss chee" finds "Swiss cheese plant"), in the name, family, location or notes; quotes and
/// operators are neutralised because words hold only letters and digits.
enum SearchQuery {
    /// The words of `text`, lower-cased, split on anything that is not a letter or digit.
    static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    /// The FTS5 MATCH expression of `words` (not empty) for `owner`: each word, with the owner's mark
    /// (``SearchTokens``), as a prefix. Words hold only letters and digits, so they need no quoting.
    static func fts(_ words: [String], owner: String) -> String {
        let mark = SearchTokens.mark(owner)
        return words.map { "\"\(mark)\($0)\"*" }.joined(separator: " ")
    }
}

import Foundation

/// Turns what a person typed into an FTS5 query over one owner's plants: every word must match, each as a prefix
/// ("swiss chee" finds "Swiss cheese plant"), in the name, family, location or notes columns; quotes and operators
/// are neutralised.
enum SearchQuery {
    /// The words of `text`, lower-cased, split on anything that is not a letter or digit.
    static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    /// The FTS5 MATCH expression for `owner`, or nil when `text` has no word.
    static func fts(_ text: String, owner: String) -> String? {
        let words = words(text)
        guard !words.isEmpty else { return nil }
        let terms = words.map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"*" }.joined(separator: " ")
        return "owner:\(ownerToken(owner)) AND {displayName commonNames scientificName family location notes}:(\(terms))"
    }

    /// The owner column's token: "o" and the user id's UTF-8 bytes in lower-case hex (what the triggers write).
    static func ownerToken(_ owner: String) -> String {
        "o" + owner.utf8.map { String(format: "%02x", $0) }.joined()
    }
}

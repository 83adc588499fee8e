import Foundation

/// Search matches marked in the text a page shows: each word of the query, wherever it occurs in the text, ignoring
/// case and accents (as the collection's search matches "ficus" in "Ficus" and "cafe" in "café").
extension WebApp {
    /// `text` in pieces, each with whether it matches a word of `query`, for the template to mark (`<mark>`); the
    /// whole text unmarked when the query is empty.
    static func highlighted(_ text: String, query: String) -> [[String: Any]] {
        let words = query.split(whereSeparator: { $0.isWhitespace }).map(String.init).filter { !$0.isEmpty }
        guard !words.isEmpty, !text.isEmpty else { return [["text": text, "match": false]] }
        let options: String.CompareOptions = [.caseInsensitive, .diacriticInsensitive]
        var marked: [Range<String.Index>] = []
        for word in words {
            var from = text.startIndex
            while from < text.endIndex, let found = text.range(of: word, options: options, range: from..<text.endIndex) {
                marked.append(found)
                from = found.upperBound
            }
        }
        guard !marked.isEmpty else { return [["text": text, "match": false]] }
        // Overlapping or touching matches ("fi" and "ficus") are one mark.
        marked.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<String.Index>] = []
        for range in marked {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        var pieces: [[String: Any]] = []
        var cursor = text.startIndex
        for range in merged {
            if cursor < range.lowerBound { pieces.append(["text": String(text[cursor..<range.lowerBound]), "match": false]) }
            pieces.append(["text": String(text[range]), "match": true])
            cursor = range.upperBound
        }
        if cursor < text.endIndex { pieces.append(["text": String(text[cursor...]), "match": false]) }
        return pieces
    }
}

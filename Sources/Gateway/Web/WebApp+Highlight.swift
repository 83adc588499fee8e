import Foundation

/// Search matches marked in the text a page shows: each word of the query, wherever it occurs in the text, ignoring
/// case and accents (as the collection's search matches "ficus" in "Ficus" and "cafe" in "café").
extension WebApp {
    /// `text` as HTML (escaped as the templates escape every value) with each match of a word of `query` in a
    /// `<mark>`; for the templates' unescaped `{{{…}}}`. Built here rather than as template sections: with a section
    /// per piece, My plants' page took 4.2–5.5 ms p50 to serve, and 2.9–3.3 ms built here (`Scripts/bench web`).
    static func highlighted(_ text: String, query: String) -> String {
        let words = query.split(whereSeparator: { $0.isWhitespace }).map(String.init).filter { !$0.isEmpty }
        guard !words.isEmpty, !text.isEmpty else { return HTMLEscaping.escaped(text) }
        let options: String.CompareOptions = [.caseInsensitive, .diacriticInsensitive]
        var marked: [Range<String.Index>] = []
        for word in words {
            var from = text.startIndex
            while from < text.endIndex, let found = text.range(of: word, options: options, range: from..<text.endIndex) {
                marked.append(found)
                from = found.upperBound
            }
        }
        guard !marked.isEmpty else { return HTMLEscaping.escaped(text) }
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
        var html = ""
        var cursor = text.startIndex
        for range in merged {
            html += HTMLEscaping.escaped(String(text[cursor..<range.lowerBound])) + "<mark>" + HTMLEscaping.escaped(String(text[range])) + "</mark>"
            cursor = range.upperBound
        }
        return html + HTMLEscaping.escaped(String(text[cursor...]))
    }
}

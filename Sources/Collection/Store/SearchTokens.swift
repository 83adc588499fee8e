import GRDB

/// The words of a plant as the search index holds them: each prefixed with its owner's mark (16 hex digits of a
/// hash of the user id), so that a word's postings are one person's and a search reads nothing of anyone else's,
/// however common the word ("kitchen") is among other users. Queries add the same mark to every word.
///
/// A mark two users shared (a hash collision) would only cost speed: searches still keep the caller's plants.
enum SearchTokens {
    /// The owner's mark: FNV-1a (64 bits) of the user id's UTF-8, in lower-case hex.
    static func mark(_ owner: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in owner.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `text`'s words (``SearchQuery/words(_:)``), each with the owner's mark, separated by spaces.
    static func ownerWords(owner: String, text: String) -> String {
        let mark = mark(owner)
        return SearchQuery.words(text).map { mark + $0 }.joined(separator: " ")
    }

    /// `plantguide_owner_words(ownerID, text)`, which SQLite's search index triggers call.
    static let ownerWordsFunction = DatabaseFunction("plantguide_owner_words", argumentCount: 2, pure: true) { values in
        guard let owner = String.fromDatabaseValue(values[0]), let text = String.fromDatabaseValue(values[1]) else { return "" }
        return ownerWords(owner: owner, text: text)
    }
}

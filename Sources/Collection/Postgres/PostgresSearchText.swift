import PlantGuideProtos

/// A plant's words as PostgreSQL's full-text search holds them, and a person's query over them. Words are split
/// as ``SearchQuery`` splits them and folded (case and diacritics, ``MatchedRanges/fold(_:)``) here, so the
/// database needs no text-search configuration or extension, and each carries its owner's mark
/// (``SearchTokens``): a word's postings in the GIN index are one person's.
///
/// Weights rank names first: A the display name, B common and scientific names, C the family, D location and notes.
enum PostgresSearchText {
    /// Rank weights of D, C, B and A, for `ts_rank`.
    static let weights = "{0.125, 0.375, 0.75, 1.0}"

    /// Longest word indexed, in characters: PostgreSQL refuses lexemes over 2 KiB, and no one searches by more.
    static let maxWordLength = 200

    /// The `tsvector` literal of `plant`'s words for `owner`.
    static func vector(of plant: Plantguide_Collection_V1_Plant, owner: String) -> String {
        let fields: [(String, Character)] = [
            (PlantRow.displayName(of: plant), "A"), (plant.commonNames.joined(separator: " "), "B"), (plant.scientificName, "B"),
            (plant.family, "C"), (plant.location, "D"), (plant.notes, "D"),
        ]
        let mark = SearchTokens.mark(owner)
        var positions: [String: [String]] = [:]
        var order: [String] = []
        var position = 0
        for (text, weight) in fields {
            for word in SearchQuery.words(text) {
                position = min(position + 1, 16_383)
                let lexeme = mark + folded(word)
                if positions[lexeme] == nil { order.append(lexeme) }
                positions[lexeme, default: []].append("\(position)\(weight)")
            }
        }
        return order.map { "'\($0)':\(positions[$0]!.prefix(256).joined(separator: ","))" }.joined(separator: " ")
    }

    /// The `tsquery` literal matching plants of `owner` with every one of `words` as a word prefix.
    static func query(_ words: [String], owner: String) -> String {
        let mark = SearchTokens.mark(owner)
        return words.map { "'\(mark)\(folded($0))':*" }.joined(separator: " & ")
    }

    /// Folded and cut to ``maxWordLength``; letters and digits only, so it needs no quoting inside `'...'`.
    private static func folded(_ word: String) -> String {
        String(MatchedRanges.fold(word).filter { $0.isLetter || $0.isNumber }.prefix(maxWordLength))
    }
}

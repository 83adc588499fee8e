import Foundation
import PlantGuideProtos

extension PlantStore {
    public typealias SearchHit = Plantguide_Collection_V1_SearchHit

    /// Plants of `owner` matching every word of `query` as a prefix, best first (names weigh more than family,
    /// location and notes), each with the ranges that matched.
    public func search(_ query: String, limit: Int, owner: String) async throws -> [SearchHit] {
        let words = SearchQuery.words(query)
        guard !words.isEmpty else { throw CollectionError.invalidArgument("query", .required, "query has no words") }
        return try await records.searchPlants(words: words, limit: limit, owner: owner).map { found in
            var hit = SearchHit()
            hit.plant = found.plant
            hit.rank = found.rank
            hit.matches = MatchedRanges.find(words, in: found.plant)
            return hit
        }
    }

    /// Names of `owner`'s plants (display, common and scientific) with a word starting with `prefix`, in
    /// alphabetical order.
    public func suggestions(prefix: String, limit: Int, owner: String) async throws -> [String] {
        let wanted = MatchedRanges.fold(prefix.trimmingCharacters(in: .whitespaces))
        guard !wanted.isEmpty else { return [] }
        var found: [String] = []
        var seen: Set<String> = []
        for names in try await records.plantNames(owner: owner) {
            for name in names where !seen.contains(name.lowercased()) {
                let folded = MatchedRanges.fold(name)
                if folded.hasPrefix(wanted) || folded.contains(" " + wanted) {
                    seen.insert(name.lowercased())
                    found.append(name)
                }
            }
        }
        return Array(found.sorted { $0.lowercased() < $1.lowercased() }.prefix(limit))
    }

    /// Totals of `owner`'s collection; "added this month" counts from the first of the month in `timeZone`.
    public func statistics(owner: String, timeZone: TimeZone) async throws -> Plantguide_Collection_V1_GetStatisticsResponse {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let monthStart = calendar.dateInterval(of: .month, for: now())?.start ?? now()
        return try await records.statistics(owner: owner, monthStart: monthStart.timeIntervalSince1970)
    }

    /// "on_device", "plantnet", "hybrid", "manual" or "unspecified".
    static func sourceName(_ source: Plantguide_Collection_V1_IdentificationSource) -> String {
        switch source {
        case .onDevice: "on_device"
        case .plantnet: "plantnet"
        case .hybrid: "hybrid"
        case .manual: "manual"
        default: "unspecified"
        }
    }
}

/// Where the words of a search matched in a plant's fields, for highlighting: word prefixes, case- and
/// diacritic-insensitive, as start and length in UTF-16 code units.
enum MatchedRanges {
    typealias Range = Plantguide_Collection_V1_MatchedRange

    static func find(_ words: [String], in plant: Plantguide_Collection_V1_Plant) -> [Range] {
        var fields: [(String, String)] = [("custom_name", plant.customName)]
        fields += plant.commonNames.enumerated().map { ("common_names[\($0.offset)]", $0.element) }
        fields += [("scientific_name", plant.scientificName), ("family", plant.family), ("location", plant.location),
                   ("notes", plant.notes)]
        let folded = words.map(fold)
        var ranges: [Range] = []
        for (field, text) in fields where !text.isEmpty {
            for (start, word) in wordsWithOffsets(text) {
                let foldedWord = fold(word)
                guard let matched = folded.first(where: { foldedWord.hasPrefix($0) }) else { continue }
                ranges.append(.with {
                    $0.field = field
                    $0.start = UInt32(start)
                    $0.length = UInt32(prefixLength(of: word, coveringFolded: matched.count))
                })
            }
        }
        return ranges
    }

    /// Lower-cased and without diacritics.
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// The words of `text` with their UTF-16 offsets.
    private static func wordsWithOffsets(_ text: String) -> [(Int, String)] {
        var result: [(Int, String)] = []
        var current = ""
        var start = 0
        var offset = 0
        for character in text {
            if character.isLetter || character.isNumber {
                if current.isEmpty { start = offset }
                current.append(character)
            } else if !current.isEmpty {
                result.append((start, current))
                current = ""
            }
            offset += character.utf16.count
        }
        if !current.isEmpty { result.append((start, current)) }
        return result
    }

    /// UTF-16 length of the shortest prefix of `word` whose folded form has `count` characters.
    private static func prefixLength(of word: String, coveringFolded count: Int) -> Int {
        var length = 0
        var folded = 0
        for character in word where folded < count {
            folded += fold(String(character)).count
            length += character.utf16.count
        }
        return length
    }
}

import Foundation
import GRDB
import PlantGuideProtos

extension PlantStore {
    public typealias SearchHit = Plantguide_Collection_V1_SearchHit

    /// Plants of `owner` matching every word of `query` as a prefix, best first (bm25, with names weighted over
    /// family, location and notes), each with the ranges that matched.
    public func search(_ query: String, limit: Int, owner: String) async throws -> [SearchHit] {
        guard let match = SearchQuery.fts(query, owner: owner) else { throw CollectionError.invalidArgument("query", .required, "query has no words") }
        let words = SearchQuery.words(query)
        return try await writer.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT plant.*, ranked.score FROM (
                    SELECT rowid, bm25(plantSearch, 4.0, 3.0, 3.0, 1.5, 1.0, 0.5) AS score
                    FROM plantSearch WHERE plantSearch MATCH ? ORDER BY score LIMIT ?
                ) AS ranked JOIN plant ON plant.rowid = ranked.rowid
                WHERE plant.ownerID = ?
                ORDER BY ranked.score
                """, arguments: [match, limit, owner])
            let photos = try PhotoRows.photos(db, owner: owner, plantIDs: rows.map { $0["id"] })
            return rows.map { row in
                var hit = SearchHit()
                hit.plant = PlantRow.plant(row)
                hit.plant.photos = photos[hit.plant.id] ?? []
                hit.rank = -(row["score"] as Double)
                hit.matches = MatchedRanges.find(words, in: hit.plant)
                return hit
            }
        }
    }

    /// Names of `owner`'s plants (display, common and scientific) with a word starting with `prefix`, in
    /// alphabetical order.
    public func suggestions(prefix: String, limit: Int, owner: String) async throws -> [String] {
        let wanted = MatchedRanges.fold(prefix.trimmingCharacters(in: .whitespaces))
        guard !wanted.isEmpty else { return [] }
        return try await writer.read { db in
            var found: [String] = []
            var seen: Set<String> = []
            let rows = try Row.fetchAll(db, sql: "SELECT displayName, commonNames, scientificName FROM plant WHERE ownerID = ?", arguments: [owner])
            for row in rows {
                let names = [row["displayName"] as String] + PlantRow.decodeNames(row["commonNames"]) + [row["scientificName"] as String]
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
    }

    /// Totals of `owner`'s collection; "added this month" counts from the first of the month in `timeZone`.
    public func statistics(owner: String, timeZone: TimeZone) async throws -> Plantguide_Collection_V1_GetStatisticsResponse {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let monthStart = calendar.dateInterval(of: .month, for: now())?.start ?? now()
        return try await writer.read { db in
            var response = Plantguide_Collection_V1_GetStatisticsResponse()
            let totals = try Row.fetchOne(db, sql: """
                SELECT COUNT(*), COALESCE(SUM(favorite), 0), COALESCE(SUM(addedAt >= ?), 0) FROM plant WHERE ownerID = ?
                """, arguments: [monthStart.timeIntervalSince1970, owner])
            response.totalPlants = totals?[0] ?? 0
            response.favorites = totals?[1] ?? 0
            response.addedThisMonth = totals?[2] ?? 0
            for row in try Row.fetchAll(db, sql: "SELECT family, COUNT(*) FROM plant WHERE ownerID = ? GROUP BY family", arguments: [owner]) {
                let family: String = row[0]
                response.plantsPerFamily[family.isEmpty ? "unknown" : family] = row[1]
            }
            for row in try Row.fetchAll(db, sql: "SELECT scientificName, COUNT(*) FROM plant WHERE ownerID = ? GROUP BY scientificName",
                                        arguments: [owner]) {
                response.plantsPerSpecies[row[0]] = row[1]
            }
            let sources = "SELECT identificationSource, COUNT(*) FROM plant WHERE ownerID = ? GROUP BY identificationSource"
            for row in try Row.fetchAll(db, sql: sources, arguments: [owner]) {
                let source = Plantguide_Collection_V1_IdentificationSource(rawValue: row[0]) ?? .unspecified
                response.plantsPerSource[Self.sourceName(source)] = row[1]
            }
            return response
        }
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

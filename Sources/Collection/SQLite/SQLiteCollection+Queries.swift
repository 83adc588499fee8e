import Foundation
import GRDB
import PlantGuideProtos
import PlantGuideStorage

/// Listing, search (FTS5 over owner-marked words, ``SearchTokens``), suggestions and statistics in SQLite.
extension SQLiteCollection {
    public func listPlants(_ query: PlantListQuery, owner: String) async throws -> (plants: [(plant: Plant, key: SortValue)], total: Int) {
        let filter = SQLitePlantFilter(query, owner: owner)
        let sortKey = Self.sortKey(query.sort)
        return try await writer.read { db in
            let total = try Int.fetchOne(filter.statement(db, "SELECT COUNT(*) FROM plant WHERE \(filter.sql)"), arguments: filter.arguments) ?? 0
            var page = filter
            if let (key, id) = query.after {
                page.add("(\(sortKey), id) \(query.descending ? "<" : ">") (?, ?)", Self.databaseValue(key), id)
            }
            let direction = query.descending ? "DESC" : "ASC"
            let rows = try Row.fetchAll(page.statement(db, """
                SELECT *, \(sortKey) AS sortKey FROM plant WHERE \(page.sql)
                ORDER BY sortKey \(direction), id \(direction) LIMIT ?
                """), arguments: page.arguments + [query.limit])
            let found = PlantRow.plants(rows)
            let photos = try PhotoRows.photos(db, owner: owner, plantIDs: found.map(\.id))
            let sortKeyIndex = rows.first?.columnIndex(named: "sortKey") ?? 0
            let plants = zip(found, rows).map { plant, row in
                var plant = plant
                plant.photos = photos[plant.id] ?? []
                return (plant, Self.sortValue(row[sortKeyIndex]))
            }
            return (plants, total)
        }
    }

    public func searchPlants(words: [String], limit: Int, owner: String) async throws -> [(plant: Plant, rank: Double)] {
        let match = SearchQuery.fts(words, owner: owner)
        return try await writer.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT plant.*, ranked.score FROM (
                    SELECT rowid, bm25(plantSearch, 4.0, 3.0, 3.0, 1.5, 1.0, 0.5) AS score
                    FROM plantSearch WHERE plantSearch MATCH ? ORDER BY score LIMIT ?
                ) AS ranked JOIN plant ON plant.rowid = ranked.rowid
                WHERE plant.ownerID = ?
                ORDER BY ranked.score
                """, arguments: [match, limit, owner])
            let found = PlantRow.plants(rows)
            let photos = try PhotoRows.photos(db, owner: owner, plantIDs: found.map(\.id))
            return zip(found, rows).map { plant, row in
                var plant = plant
                plant.photos = photos[plant.id] ?? []
                return (plant, -(row["score"] as Double))
            }
        }
    }

    public func plantNames(owner: String) async throws -> [[String]] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT displayName, commonNames, scientificName FROM plant WHERE ownerID = ?", arguments: [owner]).map { row in
                [row["displayName"] as String] + PlantRow.decodeNames(row["commonNames"]) + [row["scientificName"] as String]
            }
        }
    }

    public func statistics(owner: String, monthStart: Double) async throws -> Plantguide_Collection_V1_GetStatisticsResponse {
        try await writer.read { db in
            var response = Plantguide_Collection_V1_GetStatisticsResponse()
            let totals = try Row.fetchOne(db, sql: """
                SELECT COUNT(*), COALESCE(SUM(favorite), 0), COALESCE(SUM(addedAt >= ?), 0) FROM plant WHERE ownerID = ?
                """, arguments: [monthStart, owner])
            response.totalPlants = totals?[0] ?? 0
            response.favorites = totals?[1] ?? 0
            response.addedThisMonth = totals?[2] ?? 0
            for row in try Row.fetchAll(db, sql: "SELECT family, COUNT(*) FROM plant WHERE ownerID = ? GROUP BY family", arguments: [owner]) {
                response.count(family: row[0], plants: row[1])
            }
            for row in try Row.fetchAll(db, sql: "SELECT scientificName, COUNT(*) FROM plant WHERE ownerID = ? GROUP BY scientificName",
                                        arguments: [owner]) {
                response.plantsPerSpecies[row[0]] = row[1]
            }
            let sources = "SELECT identificationSource, COUNT(*) FROM plant WHERE ownerID = ? GROUP BY identificationSource"
            for row in try Row.fetchAll(db, sql: sources, arguments: [owner]) {
                response.count(source: row[0], plants: row[1])
            }
            return response
        }
    }

    /// The SQL expression a sort orders by (dates as numbers, names case-insensitively), written as the indexes
    /// of table `plant` are, so that a page reads its rows in order instead of sorting them.
    static func sortKey(_ sort: Plantguide_Collection_V1_PlantSort) -> String {
        switch sort {
        case .unspecified, .dateAdded, .UNRECOGNIZED: "addedAt"
        case .dateIdentified: "COALESCE(identifiedAt, 0)"
        case .name: "displayName COLLATE NOCASE"
        case .family: "family COLLATE NOCASE"
        }
    }

    private static func sortValue(_ value: DatabaseValue) -> SortValue {
        switch value.storage {
        case .double(let number): .number(number)
        case .int64(let number): .number(Double(number))
        case .string(let text): .text(text)
        default: .none
        }
    }

    private static func databaseValue(_ value: SortValue) -> DatabaseValue {
        switch value {
        case .number(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .none: .null
        }
    }
}

/// The WHERE clause of a plant listing in SQLite.
struct SQLitePlantFilter: Sendable {
    private(set) var conditions: [String]
    private(set) var arguments: StatementArguments
    /// Whether a condition lists values (`IN (?, ?, ...)`), so that the SQL varies with their count.
    private(set) var listsValues = false

    var sql: String { conditions.joined(separator: " AND ") }

    init(_ query: PlantListQuery, owner: String) {
        conditions = ["ownerID = ?"]
        arguments = [owner]
        if !query.words.isEmpty {
            add("rowid IN (SELECT rowid FROM plantSearch WHERE plantSearch MATCH ?)", SearchQuery.fts(query.words, owner: owner))
        }
        if !query.families.isEmpty { add("lower(family) IN (\(Self.placeholders(query.families)))", values: query.families) }
        if query.favoritesOnly { conditions.append("favorite = 1") }
        if !query.sources.isEmpty { add("identificationSource IN (\(Self.placeholders(query.sources)))", values: query.sources) }
        if let after = query.addedAfter { add("addedAt >= ?", after) }
        if let before = query.addedBefore { add("addedAt < ?", before) }
        if let location = query.location { add("lower(location) = ?", location) }
        if !query.scientificNames.isEmpty {
            add("lower(scientificName) IN (\(Self.placeholders(query.scientificNames)))", values: query.scientificNames)
        }
    }

    mutating func add(_ condition: String, _ values: (any DatabaseValueConvertible)...) {
        add(condition, values: values)
    }

    mutating func add(_ condition: String, values: [any DatabaseValueConvertible]) {
        conditions.append(condition)
        arguments += StatementArguments(values)
        if condition.contains(" IN (?") { listsValues = true }
    }

    /// `sql`'s statement: prepared once per connection when its text comes from a fixed set (preparing a
    /// statement costs more than reading a page), each time when it lists values.
    func statement(_ db: Database, _ sql: String) throws -> Statement {
        try db.statement(sql: sql, cached: !listsValues)
    }

    private static func placeholders(_ values: [Any]) -> String {
        values.map { _ in "?" }.joined(separator: ", ")
    }
}

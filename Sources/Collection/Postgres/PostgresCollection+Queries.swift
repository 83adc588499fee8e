import Foundation
import PlantGuideProtos
import PlantGuideStorage
import PostgresNIO

/// Listing, search (``PostgresSearchText`` over a GIN index), suggestions and statistics in PostgreSQL.
extension PostgresCollection {
    public func listPlants(_ query: PlantListQuery, owner: String) async throws -> (plants: [(plant: Plant, key: SortValue)], total: Int) {
        let filter = PostgresPlantFilter(query, owner: owner)
        let sortKey = Self.sortKey(query.sort)
        let direction = query.descending ? "DESC" : "ASC"
        var page = filter
        switch query.after {
        case (.number(let key), let id)?: page.add("(\(sortKey), id) \(query.descending ? "<" : ">") ($\(page.next)::float8, $\(page.next + 1))", key, id)
        case (.text(let key), let id)?: page.add("(\(sortKey), id) \(query.descending ? "<" : ">") ($\(page.next)::text, $\(page.next + 1))", key, id)
        case (.none, _)?, nil: break
        }
        // The count is a subquery run once beside the page, not a window count: that would make the listing read
        // every match instead of stopping at the page's end in index order (measured: slower by a fifth at 1,000
        // plants). An empty page carries no count: then it is counted on its own.
        let listed = page.query("""
            SELECT \(PostgresPlantRow.columns), \(sortKey) AS sort_key, (SELECT count(*) FROM plant WHERE \(filter.sql)) AS total
            FROM plant WHERE \(page.sql)
            ORDER BY sort_key \(direction), id \(direction) LIMIT \(query.limit)
            """)
        let counted = filter.query("SELECT count(*) FROM plant WHERE \(filter.sql)")
        let isName = [.name, .family].contains(query.sort)
        return try await database.read { session in
            var total: Int?
            var rows: [(plant: Plant, key: SortValue)] = []
            for try await row in try await session.query(listed) {
                let cells = row.makeRandomAccess()
                rows.append((try PostgresPlantRow.plant(row), isName ? .text(try cells[15].decode(String.self)) : .number(try cells[15].decode(Double.self))))
                total = try cells[16].decode(Int.self)
            }
            if total == nil { total = try await session.all(counted, as: Int.self).first ?? 0 }
            let photos = try await PostgresPhotoRows.photos(session, owner: owner, plantIDs: rows.map(\.plant.id))
            return (rows.map { row in
                var plant = row.plant
                plant.photos = photos[plant.id] ?? []
                return (plant, row.key)
            }, total ?? 0)
        }
    }

    public func searchPlants(words: [String], limit: Int, owner: String) async throws -> [(plant: Plant, rank: Double)] {
        let match = PostgresSearchText.query(words, owner: owner)
        return try await database.read { session in
            var found: [(plant: Plant, rank: Double)] = []
            let rows = try await session.query("""
                SELECT \(unescaped: PostgresPlantRow.columns), ts_rank(\(PostgresSearchText.weights)::float4[], search, \(match)::tsquery)::float8 AS rank
                FROM plant WHERE owner_id = \(owner) AND search @@ \(match)::tsquery
                ORDER BY rank DESC, id LIMIT \(limit)
                """)
            for try await row in rows {
                found.append((try PostgresPlantRow.plant(row), try Array(row)[15].decode(Double.self)))
            }
            let photos = try await PostgresPhotoRows.photos(session, owner: owner, plantIDs: found.map(\.plant.id))
            return found.map { hit in
                var plant = hit.plant
                plant.photos = photos[plant.id] ?? []
                return (plant, hit.rank)
            }
        }
    }

    public func plantNames(owner: String) async throws -> [[String]] {
        try await database.read { session in
            try await session.all("SELECT display_name, common_names, scientific_name FROM plant WHERE owner_id = \(owner)",
                                  as: (String, [String], String).self).map { [$0.0] + $0.1 + [$0.2] }
        }
    }

    public func statistics(owner: String, monthStart: Double) async throws -> Plantguide_Collection_V1_GetStatisticsResponse {
        try await database.read { session in
            var response = Plantguide_Collection_V1_GetStatisticsResponse()
            // One pass over the owner's plants: the totals, and the counts per family, species and source (which
            // grouping a row is of: GROUPING's bit of a column is set where the row does not group by it).
            for try await row in try await session.query("""
                SELECT GROUPING(family, scientific_name, identification_source), family, scientific_name, identification_source,
                       count(*), count(*) FILTER (WHERE favorite), count(*) FILTER (WHERE added_at >= \(monthStart))
                FROM plant WHERE owner_id = \(owner)
                GROUP BY GROUPING SETS ((), (family), (scientific_name), (identification_source))
                """) {
                let (grouping, family, species, source, plants, favorites, thisMonth) = try row.decode(
                    (Int, String?, String?, Int?, Int, Int, Int).self)
                switch grouping {
                case 0b111:
                    response.totalPlants = UInt64(plants)
                    response.favorites = UInt64(favorites)
                    response.addedThisMonth = UInt64(thisMonth)
                case 0b011: response.count(family: family ?? "", plants: UInt64(plants))
                case 0b101: response.plantsPerSpecies[species ?? ""] = UInt64(plants)
                default: response.count(source: source ?? 0, plants: UInt64(plants))
                }
            }
            return response
        }
    }

    /// The SQL expression a sort orders by, as the indexes of table `plant` are written.
    static func sortKey(_ sort: Plantguide_Collection_V1_PlantSort) -> String {
        switch sort {
        case .unspecified, .dateAdded, .UNRECOGNIZED: "added_at"
        case .dateIdentified: "COALESCE(identified_at, 0)"
        case .name: "lower(display_name)"
        case .family: "lower(family)"
        }
    }
}

/// The WHERE clause of a plant listing in PostgreSQL, with its numbered parameters.
struct PostgresPlantFilter: Sendable {
    private(set) var conditions: [String] = []
    private(set) var bindings = PostgresBindings()

    var sql: String { conditions.joined(separator: " AND ") }
    /// The number of the next parameter.
    var next: Int { bindings.count + 1 }

    init(_ query: PlantListQuery, owner: String) {
        add("owner_id = $\(next)", owner)
        if !query.words.isEmpty { add("search @@ $\(next)::tsquery", PostgresSearchText.query(query.words, owner: owner)) }
        if !query.families.isEmpty { add("lower(family) = ANY($\(next)::text[])", query.families) }
        if query.favoritesOnly { conditions.append("favorite") }
        if !query.sources.isEmpty { add("identification_source = ANY($\(next)::int8[])", query.sources) }
        if let after = query.addedAfter { add("added_at >= $\(next)::float8", after) }
        if let before = query.addedBefore { add("added_at < $\(next)::float8", before) }
        if let location = query.location { add("lower(location) = $\(next)::text", location) }
        if !query.scientificNames.isEmpty { add("lower(scientific_name) = ANY($\(next)::text[])", query.scientificNames) }
    }

    /// Adds `condition`, whose parameters are numbered from ``next``, binding `values` to them.
    mutating func add(_ condition: String, _ values: any PostgresNonThrowingEncodable...) {
        conditions.append(condition)
        for value in values { bindings.append(value) }
    }

    /// `sql` with this filter's parameters.
    func query(_ sql: String) -> PostgresQuery {
        PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}

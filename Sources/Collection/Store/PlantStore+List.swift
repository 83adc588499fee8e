import Foundation
import GRDB
import PlantGuideProtos

extension PlantStore {
    public typealias ListRequest = Plantguide_Collection_V1_ListPlantsRequest
    public typealias ListResponse = Plantguide_Collection_V1_ListPlantsResponse

    /// Plants matching every filter of `request`, sorted, one page at a time (keyset pagination: a page token
    /// holds the sort key and id of the last plant of the previous page, so pages stay right while plants are
    /// added or deleted).
    public func list(_ request: ListRequest, owner: String) async throws -> ListResponse {
        guard request.pageSize <= 500 else { throw CollectionError.invalidArgument("page_size", .outOfRange, "page_size must be at most 500") }
        let pageSize = request.pageSize == 0 ? 50 : Int(request.pageSize)
        let filter = try PlantFilter(request, owner: owner)
        let sortKey = Self.sortKey(request.sort)
        let descending = request.descending
        let cursor = try request.pageToken.isEmpty ? nil : PageCursor(token: request.pageToken, sort: request.sort, descending: descending)

        return try await writer.read { db in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM plant WHERE \(filter.sql)", arguments: filter.arguments) ?? 0
            var page = filter
            if let cursor {
                page.add("(\(sortKey), id) \(descending ? "<" : ">") (?, ?)", cursor.key, cursor.id)
            }
            let direction = descending ? "DESC" : "ASC"
            let rows = try Row.fetchAll(db, sql: """
                SELECT *, \(sortKey) AS sortKey FROM plant WHERE \(page.sql)
                ORDER BY sortKey \(direction), id \(direction) LIMIT ?
                """, arguments: page.arguments + [pageSize + 1])
            var response = ListResponse()
            response.totalMatching = UInt64(total)
            let shown = rows.prefix(pageSize)
            let photos = try PhotoRows.photos(db, owner: owner, plantIDs: shown.map { $0["id"] })
            for row in shown {
                var plant = PlantRow.plant(row)
                plant.photos = photos[plant.id] ?? []
                response.plants.append(plant)
            }
            if rows.count > pageSize, let last = shown.last {
                response.nextPageToken = PageCursor(key: last["sortKey"], id: last["id"], sort: request.sort, descending: descending).token
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
}

/// The WHERE clause of a plant listing, built from the request's filters.
struct PlantFilter: Sendable {
    private(set) var conditions: [String]
    private(set) var arguments: StatementArguments

    var sql: String { conditions.joined(separator: " AND ") }

    init(_ request: PlantStore.ListRequest, owner: String) throws {
        conditions = ["ownerID = ?"]
        arguments = [owner]
        if let match = SearchQuery.fts(request.query, owner: owner) {
            add("rowid IN (SELECT rowid FROM plantSearch WHERE plantSearch MATCH ?)", match)
        }
        if !request.families.isEmpty {
            add("lower(family) IN (\(request.families.map { _ in "?" }.joined(separator: ", ")))",
                values: request.families.map { $0.lowercased() })
        }
        if request.favoritesOnly { conditions.append("favorite = 1") }
        if !request.sources.isEmpty {
            add("identificationSource IN (\(request.sources.map { _ in "?" }.joined(separator: ", ")))",
                values: request.sources.map(\.rawValue))
        }
        if request.hasAddedAfter { try PlantStore.validateTimestamp(request.addedAfter, field: "added_after") }
        if request.hasAddedBefore { try PlantStore.validateTimestamp(request.addedBefore, field: "added_before") }
        if request.hasAddedAfter && request.hasAddedBefore,
           PlantRow.seconds(request.addedAfter) >= PlantRow.seconds(request.addedBefore) {
            throw CollectionError.invalidArgument("added_after", .inconsistent, "added_after must be before added_before")
        }
        if request.hasAddedAfter { add("addedAt >= ?", PlantRow.seconds(request.addedAfter)) }
        if request.hasAddedBefore { add("addedAt < ?", PlantRow.seconds(request.addedBefore)) }
        if !request.location.isEmpty { add("lower(location) = ?", request.location.lowercased()) }
        if !request.scientificNames.isEmpty {
            guard request.scientificNames.count <= 1_000 else {
                throw CollectionError.invalidArgument("scientific_names", .tooLong, "scientific_names: at most 1000")
            }
            add("lower(scientificName) IN (\(request.scientificNames.map { _ in "?" }.joined(separator: ", ")))",
                values: request.scientificNames.map { $0.lowercased() })
        }
    }

    mutating func add(_ condition: String, _ values: (any DatabaseValueConvertible)...) {
        add(condition, values: values)
    }

    mutating func add(_ condition: String, values: [any DatabaseValueConvertible]) {
        conditions.append(condition)
        arguments += StatementArguments(values)
    }
}

/// A page token: where the previous page ended, and for which sort.
struct PageCursor: Sendable {
    var key: DatabaseValue
    var id: String
    var sort: Int
    var descending: Bool

    init(key: DatabaseValue, id: String, sort: Plantguide_Collection_V1_PlantSort, descending: Bool) {
        self.key = key
        self.id = id
        self.sort = sort.rawValue
        self.descending = descending
    }

    /// Reads a token issued for the same sort and direction.
    /// - Throws: INVALID_ARGUMENT for a token that is malformed or was issued for another sort.
    init(token: String, sort: Plantguide_Collection_V1_PlantSort, descending: Bool) throws {
        guard let data = Data(base64Encoded: token), let cursor = try? JSONDecoder().decode(Wire.self, from: data) else {
            throw CollectionError.invalidArgument("page_token", .invalidToken, "page_token was not issued by this service")
        }
        guard cursor.s == sort.rawValue, cursor.d == descending else {
            throw CollectionError.invalidArgument("page_token", .invalidToken, "page_token belongs to another sort order")
        }
        self.key = cursor.n.map { $0.databaseValue } ?? cursor.t.map { $0.databaseValue } ?? .null
        self.id = cursor.i
        self.sort = cursor.s
        self.descending = cursor.d
    }

    var token: String {
        var wire = Wire(i: id, s: sort, d: descending)
        switch key.storage {
        case .double(let value): wire.n = value
        case .int64(let value): wire.n = Double(value)
        case .string(let value): wire.t = value
        default: break
        }
        return (try? JSONEncoder().encode(wire).base64EncodedString()) ?? ""
    }

    /// The token's JSON: the key as a number or a text, the id, the sort and direction.
    private struct Wire: Codable {
        var n: Double?
        var t: String?
        var i: String
        var s: Int
        var d: Bool
    }
}

import Foundation
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
        var query = try Self.listQuery(request)
        query.limit = pageSize + 1
        if !request.pageToken.isEmpty {
            let cursor = try PageCursor(token: request.pageToken, sort: request.sort, descending: request.descending)
            query.after = (cursor.key, cursor.id)
        }
        let (rows, total) = try await records.listPlants(query, owner: owner)
        var response = ListResponse()
        response.totalMatching = UInt64(total)
        let shown = rows.prefix(pageSize)
        response.plants = shown.map(\.plant)
        if rows.count > pageSize, let last = shown.last {
            response.nextPageToken = PageCursor(key: last.key, id: last.plant.id, sort: request.sort, descending: request.descending).token
        }
        return response
    }

    /// The request's filters and order, validated, for the records.
    static func listQuery(_ request: ListRequest) throws -> PlantListQuery {
        var query = PlantListQuery()
        query.words = SearchQuery.words(request.query)
        query.families = request.families.map { $0.lowercased() }
        query.favoritesOnly = request.favoritesOnly
        query.sources = request.sources.map(\.rawValue)
        if request.hasAddedAfter { try validateTimestamp(request.addedAfter, field: "added_after") }
        if request.hasAddedBefore { try validateTimestamp(request.addedBefore, field: "added_before") }
        if request.hasAddedAfter && request.hasAddedBefore,
           PlantRow.seconds(request.addedAfter) >= PlantRow.seconds(request.addedBefore) {
            throw CollectionError.invalidArgument("added_after", .inconsistent, "added_after must be before added_before")
        }
        if request.hasAddedAfter { query.addedAfter = PlantRow.seconds(request.addedAfter) }
        if request.hasAddedBefore { query.addedBefore = PlantRow.seconds(request.addedBefore) }
        if !request.location.isEmpty { query.location = request.location.lowercased() }
        guard request.scientificNames.count <= 1_000 else {
            throw CollectionError.invalidArgument("scientific_names", .tooLong, "scientific_names: at most 1000")
        }
        query.scientificNames = request.scientificNames.map { $0.lowercased() }
        query.sort = request.sort
        query.descending = request.descending
        return query
    }
}

/// A page token: where the previous page ended, and for which sort.
struct PageCursor: Sendable {
    var key: SortValue
    var id: String
    var sort: Int
    var descending: Bool

    init(key: SortValue, id: String, sort: Plantguide_Collection_V1_PlantSort, descending: Bool) {
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
        self.key = cursor.n.map(SortValue.number) ?? cursor.t.map(SortValue.text) ?? .none
        self.id = cursor.i
        self.sort = cursor.s
        self.descending = cursor.d
    }

    var token: String {
        var wire = Wire(i: id, s: sort, d: descending)
        switch key {
        case .number(let value): wire.n = value
        case .text(let value): wire.t = value
        case .none: break
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

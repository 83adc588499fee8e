import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPCCore

/// SearchSpecies: the catalog's matches first, then Trefle's (its first page of 30), without repeats, paged by
/// offset. Trefle failing is not an error: the answer says `upstream_failed`.
struct SpeciesSearch {
    let provider: CareInfoProvider

    func run(_ request: Plantguide_Caredata_V1_SearchSpeciesRequest) async throws -> Plantguide_Caredata_V1_SearchSpeciesResponse {
        let query = request.query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty else { throw RPCError.invalidArgument("query", .required, "query is empty") }
        guard request.pageSize <= 100 else { throw RPCError.invalidArgument("page_size", .outOfRange, "page_size must be at most 100") }
        let pageSize = request.pageSize == 0 ? 20 : Int(request.pageSize)
        let offset = try Self.offset(from: request.pageToken)

        var results: [Plantguide_Caredata_V1_SpeciesSummary] = []
        var seen: Set<String> = []
        for care in provider.catalog.search(query) {
            seen.insert(care.scientificName.lowercased())
            results.append(.with {
                $0.scientificName = care.scientificName
                $0.commonNames = care.commonNames
                $0.family = care.family
                $0.genus = care.genus
                $0.source = .catalog
            })
        }
        var upstreamFailed = !provider.trefle.isConfigured
        if provider.trefle.isConfigured {
            do {
                for species in try await provider.trefle.searchSpecies(query).data {
                    guard let key = CareCache.key(for: species.scientificName), seen.insert(key).inserted else { continue }
                    results.append(.with {
                        $0.scientificName = ScientificName(species.scientificName)?.canonical ?? species.scientificName
                        $0.commonNames = species.commonName.flatMap(CommonName.display).map { [$0] } ?? []
                        $0.family = species.family ?? ""
                        $0.genus = species.genus ?? ""
                        $0.trefleID = Int64(species.id)
                        $0.source = .trefle
                    })
                }
            } catch {
                upstreamFailed = true
            }
        }
        return .with {
            $0.species = Array(results.dropFirst(offset).prefix(pageSize))
            $0.nextPageToken = offset + pageSize < results.count ? "o\(offset + pageSize)" : ""
            $0.upstreamFailed = upstreamFailed
        }
    }

    /// Page tokens are "o<offset>".
    static func offset(from token: String) throws -> Int {
        guard !token.isEmpty else { return 0 }
        guard token.hasPrefix("o"), let offset = Int(token.dropFirst()), offset >= 0 else {
            throw RPCError.invalidArgument("page_token", .invalidToken, "page_token '\(token)' was not issued by this service")
        }
        return offset
    }
}

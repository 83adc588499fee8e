import ArgumentParser
import Foundation
import PlantGuideProtos
import PlantGuideRPC

/// Care data through the provider chain (Scripts/bench caredata): a cold name, for which every provider is asked,
/// timed one at a time.
struct CareDataColdBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caredata-cold", abstract: "Time GetCareInfo of names no cache holds: a known one (invalidated first) and new ones.")

    @Option(help: "The care-data service's endpoint.") var target: String
    @Option(help: "Lookups of each kind.") var rounds = 20
    @Option(help: "Put before each row's name (what the providers do in this run).") var labelPrefix = ""

    func run() async throws {
        let client = try RPCClient(target: target, configuration: .init())
        defer { client.close() }
        let clock = ContinuousClock()
        var known: [Int64] = []
        var unknown: [Int64] = []
        for round in 0..<rounds {
            _ = try await client.call(Plantguide_Caredata_V1_CareDataService.invalidateCacheEntry, .with { $0.scientificName = "Acer buergerianum" })
            var start = clock.now
            _ = try await client.call(Plantguide_Caredata_V1_CareDataService.getCareInfo, .with { $0.scientificName = "Acer buergerianum" })
            known.append((clock.now - start).nanoseconds)
            start = clock.now
            _ = try await client.call(Plantguide_Caredata_V1_CareDataService.getCareInfo, .with {
                $0.scientificName = "Benchia ignota" + CareDataMixBench.letters(round)
                $0.allowGeneric = true
            })
            unknown.append((clock.now - start).nanoseconds)
        }
        for (name, samples) in [("cold-known-name", known), ("cold-new-name", unknown)] {
            print(BenchResult(implementation: labelPrefix + name, payload: 0, inflight: 1, samples: samples,
                              elapsed: .nanoseconds(samples.reduce(0, +))).json)
        }
    }
}

/// The upstream requests a realistic mix of lookups spends (Scripts/bench caredata), as the service's GetStatus
/// counts them per provider: the mix once on a cold cache, then again on the warm one (which must cost nothing).
struct CareDataMixBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caredata-mix", abstract: "Count the provider requests of a realistic mix of GetCareInfo lookups.")

    @Option(help: "The care-data service's endpoint.") var target: String
    @Option(help: "Lookups in the mix.") var lookups = 1_000

    /// Species people keep, most kept first: catalog species (houseplants, herbs, vegetables)…
    static let catalogNames = [
        "Monstera deliciosa", "Epipremnum aureum", "Ficus lyrata", "Sansevieria trifasciata", "Zamioculcas zamiifolia", "Ocimum basilicum",
        "Aloe vera", "Solanum lycopersicum", "Phalaenopsis amabilis", "Crassula ovata", "Spathiphyllum wallisii", "Hedera helix",
        "Lavandula angustifolia", "Rosa hybrids", "Spinacia oleracea", "Peperomia obtusifolia", "Hoya carnosa", "Begonia maculata",
        "Echeveria elegans", "Acer palmatum",
    ]
    /// … and species the catalog does not hold, which the providers are asked for (the fakes know Acer buergerianum).
    static let otherNames = [
        "Acer buergerianum", "Alocasia zebrina", "Anthurium clarinervium", "Philodendron gloriosum", "Hoya kerrii", "Quercus robur",
        "Fagus sylvatica", "Betula pendula", "Pinus sylvestris", "Carex pendula", "Salvia nemorosa", "Peperomia prostrata",
        "Ctenanthe burle-marxii", "Cotoneaster horizontalis", "Rhaphidophora tetrasperma",
    ]

    /// `count` names: 75 % from the catalog's, 20 % from the others, each by a Zipf-like popularity, and 5 % new
    /// names (rare plants and typos), from a fixed seed.
    static func mix(_ count: Int) -> [String] {
        var seed: UInt64 = 42
        func next() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        func zipf(_ names: [String]) -> String {
            let weights = names.indices.map { 1 / Double($0 + 1) }
            var pick = next() * weights.reduce(0, +)
            for (index, weight) in weights.enumerated() {
                pick -= weight
                if pick <= 0 { return names[index] }
            }
            return names[names.count - 1]
        }
        return (0..<count).map { index in
            let roll = next()
            return roll < 0.75 ? zipf(catalogNames) : roll < 0.95 ? zipf(otherNames) : "Rarissima planta" + letters(index)
        }
    }

    /// `number` in letters ("a", "b", … "ba"), to make new epithets: a digit would end the name where it stands.
    static func letters(_ number: Int) -> String {
        var number = number
        var text = ""
        repeat {
            text = String(UnicodeScalar(UInt8(97 + number % 26))) + text
            number /= 26
        } while number > 0
        return text
    }

    func run() async throws {
        let client = try RPCClient(target: target, configuration: .init())
        defer { client.close() }
        let names = Self.mix(lookups)
        var rows: [[String]] = []
        for pass in ["cold cache", "warm cache"] {
            let before = try await counts(client)
            let hitsBefore = try await client.call(Plantguide_Caredata_V1_CareDataService.getCacheStats, .init()).hits
            for name in names {
                _ = try await client.call(Plantguide_Caredata_V1_CareDataService.getCareInfo, .with {
                    $0.scientificName = name
                    $0.allowGeneric = true
                })
            }
            let after = try await counts(client)
            let hits = try await client.call(Plantguide_Caredata_V1_CareDataService.getCacheStats, .init()).hits - hitsBefore
            let spent = after.merging(before) { $0 - $1 }
            let total = spent.values.reduce(0, +)
            rows.append([pass, String(names.count), String(Set(names).count), String(hits), String(spent["Open Plantbook"] ?? 0),
                         String(spent["Perenual"] ?? 0), String(spent["GBIF"] ?? 0), String(total),
                         String(format: "%.0f", Double(total) * 1_000 / Double(names.count))])
        }
        let header = ["pass", "lookups", "distinct names", "cache hits", "Open Plantbook", "Perenual", "GBIF", "upstream", "per 1,000"]
        print("| " + header.joined(separator: " | ") + " |")
        print("|" + header.map { _ in "---" }.joined(separator: "|") + "|")
        for row in rows { print("| " + row.joined(separator: " | ") + " |") }
    }

    /// HTTP requests each provider was sent so far.
    private func counts(_ client: RPCClient) async throws -> [String: Int] {
        let status = try await client.call(Plantguide_Caredata_V1_CareDataService.getStatus, .init())
        return Dictionary(status.providers.map { ($0.name, Int($0.status.requests)) }, uniquingKeysWith: +)
    }
}

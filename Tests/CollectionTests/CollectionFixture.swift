@testable import Collection
import Foundation
import PlantGuideProtos
import PlantGuideTestSupport
import SwiftProtobuf

/// A fresh collection on `backend` with stores over it and a clock the test moves.
final class CollectionFixture: Sendable {
    typealias Plant = Plantguide_Collection_V1_Plant

    let store: CollectionBackend
    let records: any CollectionRecords
    let plants: PlantStore
    let history: HistoryStore
    let photos: PhotoStore
    let archiver: CollectionArchiver
    let clock = TestClock()

    init(_ backend: TestBackend = .sqlite) async throws {
        store = try await CollectionBackend(backend)
        records = try await store.open().records
        let clock = self.clock
        plants = PlantStore(records: records, now: { clock.now })
        history = HistoryStore(records: records)
        photos = PhotoStore(records: records, now: { clock.now })
        archiver = CollectionArchiver(records: records, photos: photos, now: { clock.now })
    }

    func advance(seconds: TimeInterval) { clock.advance(seconds: seconds) }

    static func plant(
        _ id: String, _ scientific: String, common: [String] = [], family: String = "", custom: String = "",
        location: String = "", notes: String = "", favorite: Bool = false,
        source: Plantguide_Collection_V1_IdentificationSource = .unspecified, identified: Double? = nil
    ) -> Plant {
        .with {
            $0.id = id
            $0.scientificName = scientific
            $0.commonNames = common
            $0.family = family
            $0.genus = String(scientific.prefix { $0 != " " })
            $0.customName = custom
            $0.location = location
            $0.notes = notes
            $0.favorite = favorite
            $0.identificationSource = source
            if let identified { $0.identifiedAt = Google_Protobuf_Timestamp(roundingTimeIntervalSince1970: identified, rule: .toNearestOrAwayFromZero) }
        }
    }

    /// Eight plants of user "a" added a minute apart, and two of user "b".
    func seed() async throws {
        let a: [Plant] = [
            Self.plant("p1", "Monstera deliciosa", common: ["Swiss cheese plant"], family: "Araceae", custom: "Monty",
                       location: "Living room", favorite: true, source: .onDevice, identified: 1_789_000_000),
            Self.plant("p2", "Ficus lyrata", common: ["Fiddle-leaf fig"], family: "Moraceae", location: "Bedroom",
                       source: .plantnet, identified: 1_789_500_000),
            Self.plant("p3", "Epipremnum aureum", common: ["Golden pothos"], family: "Araceae", location: "Kitchen",
                       notes: "cutting from Anna's monstera shelf", source: .hybrid, identified: 1_788_000_000),
            Self.plant("p4", "Ocimum basilicum", common: ["Sweet basil"], family: "Lamiaceae", location: "Kitchen", favorite: true,
                       source: .manual),
            Self.plant("p5", "Sansevieria trifasciata", common: ["Snake plant"], family: "Asparagaceae", location: "Café corner",
                       source: .onDevice, identified: 1_789_900_000),
            Self.plant("p6", "Philodendron hederaceum", common: ["Heartleaf philodendron"], family: "Araceae", custom: "🌿 Phil",
                       location: "living room", source: .plantnet, identified: 1_787_000_000),
            Self.plant("p7", "Aloe vera", common: ["Aloe"], family: "Asphodelaceae", location: "Balcony", favorite: true),
            Self.plant("p8", "Rosa hybrids", common: ["Rose"], family: "Rosaceae", location: "Garden", source: .manual,
                       identified: 1_789_950_000),
        ]
        for plant in a {
            _ = try await plants.add(plant, owner: "a")
            advance(seconds: 60)
        }
        _ = try await plants.add(Self.plant("q1", "Monstera adansonii", common: ["Swiss cheese vine"], family: "Araceae"), owner: "b")
        _ = try await plants.add(Self.plant("q2", "Ficus elastica", common: ["Rubber plant"], family: "Moraceae"), owner: "b")
    }
}

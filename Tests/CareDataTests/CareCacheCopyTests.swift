import CareData
import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import Testing

@Suite("Care data: copying a SQLite cache into PostgreSQL")
struct CareCacheCopyTests {
    @Test("every entry arrives unchanged, a second run changes nothing, and a damaged copy is reported")
    func copy() async throws {
        let source = try await CareCacheFixture(.sqlite)
        let target = try await CareCacheFixture(.postgres)
        let sourceCache = try await source.cache()
        let care = CareInfo(scientificName: "Monstera deliciosa", source: .trefle, fetchedAt: Date(timeIntervalSince1970: 1_780_000_000))
        for index in 0..<1_234 {
            try await sourceCache.store(.init(key: "species \(index)", trefleID: index % 3 == 0 ? index : nil,
                                              care: index % 10 == 0 ? nil : care, raw: Data("{\"id\": \(index)}".utf8),
                                              fetchedAt: Date(timeIntervalSince1970: 1_780_000_000 + Double(index))))
        }
        let from = try SQLiteCareEntries(path: source.folder.appendingPathComponent("caredata.sqlite").path)
        let (_, database) = try await target.open()
        let to = PostgresCareEntries(try #require(database))

        let first = try await CareCacheCopy.copy(from: from, to: to, pageSize: 100)
        let second = try await CareCacheCopy.copy(from: from, to: to, pageSize: 100)
        #expect(first.count == 1 && first[0].isComplete && first[0].matching == 1_234 && first[0].targetRows == 1_234, "\(first)")
        #expect(first[0].sourceDigest == first[0].targetDigest, "\(first)")
        #expect(second[0].isComplete && second[0].targetRows == 1_234 && second[0].targetDigest == first[0].targetDigest, "\(second)")
        let copied = try await target.cache().entry(key: "species 7")
        #expect(copied?.care?.scientificName == "Monstera deliciosa" && copied?.raw == Data("{\"id\": 7}".utf8))

        // A target entry changed behind the copy's back is found, by name.
        try await to.store(CareEntryRow(key: "species 5", trefleID: nil, careJSON: nil, rawJSON: nil, fetchedAt: 0))
        _ = try await to.remove(key: "species 6", trefleID: nil)
        let check = try await CareCacheCopy.compare(from, to)
        #expect(!check.isComplete && check.differing == 1 && check.missing == 1 && check.sourceDigest != check.targetDigest, "\(check)")
    }
}

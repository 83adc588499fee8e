@testable import CareData
import Foundation
import Testing

@Suite("RecentEntries")
struct RecentEntriesTests {
    private func entry(_ key: String, id: Int? = nil) -> CareCache.Entry {
        CareCache.Entry(key: key, trefleID: id, care: nil, fetchedAt: Date(timeIntervalSince1970: 0))
    }

    @Test("finds entries by key and by Trefle id; removal forgets both")
    func lookups() {
        let recent = RecentEntries(capacity: 10)
        recent.insert(entry("sorbus aucuparia", id: 183086))

        #expect(recent.entry(key: "sorbus aucuparia") != nil)
        #expect(recent.entry(trefleID: 183086)?.key == "sorbus aucuparia")
        recent.remove(key: nil, trefleID: 183086)
        #expect(recent.entry(key: "sorbus aucuparia") == nil && recent.entry(trefleID: 183086) == nil)
    }

    @Test("stays within its capacity, dropping the least recently used")
    func eviction() {
        let recent = RecentEntries(capacity: 100)
        for index in 0..<100 { recent.insert(entry("k\(index)")) }
        _ = recent.entry(key: "k0")  // k0 is now the most recently used

        recent.insert(entry("k100"))

        #expect(recent.entry(key: "k0") != nil && recent.entry(key: "k100") != nil)
        #expect(recent.entry(key: "k1") == nil, "the oldest tenth goes")
        #expect((0...100).filter { recent.entry(key: "k\($0)") != nil }.count == 90, "a tenth of the capacity is freed")
    }
}

import Foundation
@testable import Identification
import Testing

@Suite("Pl@ntNet's daily quota as the status reports it")
struct PlantNetQuotaTests {
    private let noon = Date(timeIntervalSince1970: 20_000 * 86_400 + 43_200)

    @Test("before Pl@ntNet reports, used counts this instance's requests; after, the limit minus the report")
    func usedAndRemaining() {
        var quota = PlantNetQuota(limit: 500, now: noon)
        quota.sent(at: noon)
        quota.sent(at: noon)
        #expect(quota.snapshot(at: noon) == .init(limit: 500, used: 2, remaining: nil,
                                                  resetsAt: Date(timeIntervalSince1970: 20_001 * 86_400)))
        quota.reported(remaining: 300, at: noon)
        #expect(quota.snapshot(at: noon).used == 200 && quota.snapshot(at: noon).limit == 500, "others share the key")
        quota.exhausted(at: noon)
        #expect(quota.snapshot(at: noon).used == 500 && quota.snapshot(at: noon).remaining == 0)
    }

    @Test("a report of more remaining than the configured plan leaves raises the limit")
    func largerPlan() {
        var quota = PlantNetQuota(limit: 500, now: noon)
        quota.sent(at: noon)
        quota.reported(remaining: 1_228, at: noon)
        #expect(quota.snapshot(at: noon).limit == 1_229 && quota.snapshot(at: noon).used == 1)
    }

    @Test("00:00 UTC starts a fresh quota")
    func reset() {
        var quota = PlantNetQuota(limit: 500, now: noon)
        quota.sent(at: noon)
        quota.exhausted(at: noon)
        let tomorrow = noon.addingTimeInterval(86_400)
        #expect(quota.snapshot(at: tomorrow) == .init(limit: 500, used: 0, remaining: nil,
                                                      resetsAt: Date(timeIntervalSince1970: 20_002 * 86_400)))
    }
}

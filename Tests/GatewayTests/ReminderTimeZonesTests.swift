@testable import Gateway
import Testing

/// The reminder time zones the gateway remembers for the collection statistics.
@Suite("Gateway: the remembered time zones of reminders")
struct ReminderTimeZonesTests {
    @Test("a zone is known once remembered, replaced by a newer one, and gone when forgotten")
    func rememberReplaceForget() {
        let zones = ReminderTimeZones()
        #expect(zones.zone(of: "ana") == nil)
        zones.remember("Europe/Madrid", of: "ana")
        zones.remember("", of: "ben")
        #expect(zones.zone(of: "ana") == "Europe/Madrid")
        #expect(zones.zone(of: "ben") == "", "UTC is a zone known, not an unknown one")
        zones.remember("America/Lima", of: "ana")
        #expect(zones.zone(of: "ana") == "America/Lima")
        zones.forget("ana")
        #expect(zones.zone(of: "ana") == nil)
        #expect(zones.zone(of: "ben") == "")
    }

    @Test("a zone older than its lifetime is not trusted; a full memory starts again rather than grow")
    func lifetimeAndCapacity() {
        let expired = ReminderTimeZones(lifetime: .zero)
        expired.remember("Europe/Madrid", of: "ana")
        #expect(expired.zone(of: "ana") == nil)
        let small = ReminderTimeZones(capacity: 2)
        small.remember("Europe/Madrid", of: "ana")
        small.remember("Asia/Tokyo", of: "ben")
        small.remember("America/Lima", of: "cho")
        #expect(small.zone(of: "cho") == "America/Lima")
        #expect(small.zone(of: "ana") == nil && small.zone(of: "ben") == nil)
    }
}

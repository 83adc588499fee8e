import Foundation
import PlantGuideTestSupport
import Scheduling

/// A suite of tests over one scheduling store, on SQLite or PostgreSQL, with a clock the tests move. The suite says
/// when its clock starts and declares its three stored properties; `init()` (SQLite) and `init(_:)` come from here.
protocol SchedulingSuite {
    /// When the suite's clock starts.
    static var start: Date { get }
    init(clock: TestClock, backend: SchedulingBackend, store: SchedulingStore)
}

extension SchedulingSuite {
    init() async throws { try await self.init(.sqlite) }

    init(_ kind: TestBackend) async throws {
        let clock = TestClock(start: Self.start)
        let backend = try await SchedulingBackend(kind)
        self.init(clock: clock, backend: backend, store: backend.store(clock: clock))
    }
}

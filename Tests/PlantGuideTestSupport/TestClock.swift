import Foundation
import Synchronization

/// Wall-clock time that a test moves by hand, for code that takes a `now` closure.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    /// Starts at 2026-09-21 (1,790,000,000 s after the epoch) unless told otherwise.
    public init(start: Date = Date(timeIntervalSince1970: 1_790_000_000)) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    public func advance(days: Double) { advance(seconds: days * 86_400) }

    public func advance(seconds: TimeInterval) { current.withLock { $0.addTimeInterval(seconds) } }
}

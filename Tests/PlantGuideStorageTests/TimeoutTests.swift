import Foundation
@testable import PlantGuideStorage
import Synchronization
import Testing

/// `withTimeout`, which bounds every PostgreSQL call: it must return at its limit even when the operation ignores
/// cancellation, as a driver call can when the server goes away mid-call.
@Suite("Timeouts of database calls")
struct TimeoutTests {
    /// An operation's progress, and what lets it end.
    final class Finished: Sendable {
        let count = Atomic<Int>(0)
        let released = Atomic<Bool>(false)
    }

    /// Waits until `finished` is released (or `seconds` pass, so that a test of a wrong `withTimeout` ends),
    /// deaf to cancellation.
    private static func deafWait(atMost seconds: Double, finished: Finished) async -> Int {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end && !finished.released.load(ordering: .relaxed) { try? await Task.sleep(for: .milliseconds(20)) }
        finished.count.add(1, ordering: .relaxed)
        return 1
    }

    @Test("an operation deaf to cancellation is abandoned at the limit, not waited for; it finishes in the background")
    func abandonsDeafOperation() async throws {
        let finished = Finished()
        await #expect(throws: TimedOut.self) {
            _ = try await withTimeout(.milliseconds(100)) { await Self.deafWait(atMost: 60, finished: finished) }
        }
        let finishedByThen = finished.count.load(ordering: .relaxed)
        #expect(finishedByThen == 0, "withTimeout returned only once the operation ended")
        finished.released.store(true, ordering: .relaxed)
        for _ in 0..<500 where finished.count.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(20)) }
        let finishedLater = finished.count.load(ordering: .relaxed)
        #expect(finishedLater == 1)
    }

    @Test("giving up when told, and an answer in time passes through")
    func giveUpAndAnswer() async throws {
        let told = Finished()
        let started = Date()
        let givenUp = Task {
            try await withTimeout(.seconds(60), giveUpWhen: { told.released.load(ordering: .relaxed) }) { try await Task.sleep(for: .seconds(60)) }
        }
        try await Task.sleep(for: .milliseconds(100))
        told.released.store(true, ordering: .relaxed)
        await #expect(throws: TimedOut.self) { try await givenUp.value }
        let waited = Date().timeIntervalSince(started)
        #expect(waited < 30, "gave up after \(waited) s, not at the 60 s limit")
        #expect(try await withTimeout(.seconds(5)) { 42 } == 42)
    }

    @Test("a caller cancelled meanwhile gets CancellationError")
    func callerCancelled() async throws {
        let task = Task { try await withTimeout(.seconds(30)) { try await Task.sleep(for: .seconds(30)) } }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}

@testable import PlantGuideRPC
import Testing

@Suite("Admission control, alone")
struct AdmissionTests {
    @Test("calls start up to the limit, then queue in order, then are refused; a free slot starts the oldest")
    func limits() {
        var admission = Admission<Int>(maxRunning: 2, maxQueued: 2, maxQueuedBytes: 1_000)

        let decisions = (1...5).map { admission.admit($0, bytes: 10) }
        #expect(decisions == [.start, .start, .queue, .queue, .refuse])
        #expect(admission.running == 2 && admission.queuedCount == 2 && admission.queuedBytes == 20)
        #expect(admission.next() == nil, "no slot is free yet")

        admission.finished()
        #expect(admission.next() == 3)
        #expect(admission.next() == nil)
        admission.finished()
        #expect(admission.next() == 4)
        #expect(admission.running == 2 && admission.queuedCount == 0 && admission.queuedBytes == 0)
    }

    @Test("the queue is bounded by bytes as well as by count")
    func bytes() {
        var admission = Admission<Int>(maxRunning: 1, maxQueued: 100, maxQueuedBytes: 100)

        #expect(admission.admit(1, bytes: 500) == .start, "a running call's payload does not count")
        #expect(admission.admit(2, bytes: 60) == .queue)
        #expect(admission.admit(3, bytes: 60) == .refuse)
        #expect(admission.admit(4, bytes: 40) == .queue)
        #expect(admission.queuedBytes == 100)
    }

    @Test("a call that left the queue is skipped and frees its place and bytes")
    func withdrawn() {
        var admission = Admission<Int>(maxRunning: 1, maxQueued: 2, maxQueuedBytes: 1_000)
        _ = admission.admit(1, bytes: 1)
        _ = admission.admit(2, bytes: 30)
        _ = admission.admit(3, bytes: 40)

        admission.withdraw(2, bytes: 30)
        #expect(admission.queuedCount == 1 && admission.queuedBytes == 40)
        #expect(admission.admit(4, bytes: 5) == .queue, "the withdrawn call's place is free")
        admission.finished()

        #expect(admission.next() == 3, "2 is skipped")
        admission.finished()
        #expect(admission.next() == 4)
    }

    @Test("while calls wait, a new one queues behind them even if a slot has just freed")
    func fifo() {
        var admission = Admission<Int>(maxRunning: 1, maxQueued: 10, maxQueuedBytes: 1_000)
        _ = admission.admit(1, bytes: 1)
        _ = admission.admit(2, bytes: 1)
        admission.finished()

        #expect(admission.admit(3, bytes: 1) == .queue)
        #expect(admission.next() == 2)
    }

    @Test("a long run of calls keeps the queue's storage small")
    func compaction() {
        var admission = Admission<Int>(maxRunning: 1, maxQueued: 10_000, maxQueuedBytes: .max)
        _ = admission.admit(0, bytes: 0)
        for key in 1...5_000 { #expect(admission.admit(key, bytes: 1) == .queue) }
        var started: [Int] = []
        for _ in 1...5_000 {
            admission.finished()
            if let key = admission.next() { started.append(key) }
        }
        #expect(started == Array(1...5_000))
        #expect(admission.queuedCount == 0 && admission.queuedBytes == 0)
    }
}

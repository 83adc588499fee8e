@testable import PlantGuideRPC
import Testing

@Suite("DeadlineHeap")
struct DeadlineHeapTests {
    @Test("pops keys in deadline order, only once expired")
    func order() {
        var heap = DeadlineHeap<Int>()
        for value in [50, 10, 40, 20, 30, 10] { heap.insert(MonotonicTime(nanoseconds: UInt64(value)), value) }

        #expect(heap.popExpired(now: MonotonicTime(nanoseconds: 5)) == nil)
        var popped: [Int] = []
        while let key = heap.popExpired(now: MonotonicTime(nanoseconds: 45)) { popped.append(key) }

        #expect(popped == [10, 10, 20, 30, 40])
        #expect(heap.earliest == MonotonicTime(nanoseconds: 50))
    }

    @Test("compaction drops finished entries and keeps the order of the rest")
    func compaction() {
        var heap = DeadlineHeap<Int>()
        for value in (0..<5_000).reversed() { heap.insert(MonotonicTime(nanoseconds: UInt64(value)), value) }

        heap.compact(liveCount: 100) { $0 % 50 == 0 }

        #expect(heap.count == 100)
        var popped: [Int] = []
        while let key = heap.popExpired(now: MonotonicTime(nanoseconds: .max)) { popped.append(key) }
        #expect(popped == Array(stride(from: 0, to: 5_000, by: 50)))
    }
}

import Metrics
import Synchronization

/// A count kept both ways: readable in the process (for GetCacheStats) and, when labelled, exported as a
/// swift-metrics counter (for the metrics scrape).
final class CountingMetric: Sendable {
    private let value = Atomic<Int>(0)
    private let counter: Counter?

    init(_ label: String?) {
        counter = label.map { Counter(label: $0) }
    }

    func increment() {
        value.add(1, ordering: .relaxed)
        counter?.increment()
    }

    var count: Int { value.load(ordering: .relaxed) }
}

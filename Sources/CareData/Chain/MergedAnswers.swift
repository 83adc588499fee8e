import Foundation
import PlantGuideCore
import Synchronization

/// Answers put together from fresh records, kept in memory by the name as asked until the first of those records
/// expires, so that a cache hit costs one dictionary lookup however many sources the answer merged. Bounded: past
/// `capacity` it starts again empty. Answers that used a stale record or met a failed provider are not kept.
final class MergedAnswers: Sendable {
    private let capacity: Int
    private let answers = Mutex<[String: (care: CareInfo, validUntil: Date)]>([:])

    init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// The key of a name as someone wrote it: white space collapsed, lower case.
    static func key(_ asked: String) -> String {
        asked.split(whereSeparator: \.isWhitespace).joined(separator: " ").lowercased()
    }

    /// The answer kept for `asked`, with its source said as served again: CACHE for a provider's answer.
    func answer(_ asked: String, now: Date) -> CareInfo? {
        guard var care = answers.withLock({ $0[Self.key(asked)] }).flatMap({ $0.validUntil > now ? $0.care : nil }) else { return nil }
        if care.source != .catalog && care.source != .default { care.source = .cache }
        return care
    }

    func keep(_ care: CareInfo, for asked: String, until validUntil: Date) {
        answers.withLock { answers in
            if answers.count >= capacity { answers.removeAll(keepingCapacity: true) }
            answers[Self.key(asked)] = (care, validUntil)
        }
    }

    func removeAll() {
        answers.withLock { $0.removeAll() }
    }
}

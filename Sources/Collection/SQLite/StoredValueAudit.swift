import GRDB
import PlantGuideRPCCore

/// Counts, at start-up, the rows that hold values older code accepted and the contract no longer does (times
/// outside proto3's Timestamp range). Such rows are served clamped, never refused and never fatal; the count
/// tells an operator that they exist.
enum StoredValueAudit {
    /// Table and time columns checked.
    private static let columns = [
        ("plant", ["addedAt", "updatedAt", "identifiedAt"]), ("identification", ["identifiedAt"]),
        ("journalEvent", ["occurredAt"]), ("plantPhoto", ["addedAt"]), ("photo", ["addedAt"]),
    ]

    /// The number of rows per table with a time out of range.
    static func outOfRangeRows(_ db: Database) throws -> [String: Int] {
        let low = Double(WireTimestamp.minimumSeconds)
        let high = Double(WireTimestamp.maximumSeconds) + 1
        var counts: [String: Int] = [:]
        for (table, times) in columns {
            let condition = times.map { "(\($0) IS NOT NULL AND NOT (\($0) >= \(low) AND \($0) < \(high)))" }.joined(separator: " OR ")
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE \(condition)") ?? 0
            if count > 0 { counts[table] = count }
        }
        return counts
    }
}

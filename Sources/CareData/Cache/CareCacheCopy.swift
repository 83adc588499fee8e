import PlantGuideStorage

/// Moves a care-data cache from one store to another (a SQLite deployment into PostgreSQL).
public enum CareCacheCopy {
    /// Copies every entry of `source` into `target`, replacing entries of the same key (so running it again is
    /// harmless), then compares the two entry by entry.
    /// - Parameter progress: told the number of entries copied so far, after each page.
    public static func copy(
        from source: any CareEntryStore, to target: any CareEntryStore, pageSize: Int = 500, progress: (Int) -> Void = { _ in }
    ) async throws -> [CopyCheck] {
        var after = ""
        var copied = 0
        while true {
            let page = try await source.rows(after: after, limit: pageSize)
            guard let last = page.last else { break }
            for row in page { try await target.store(row) }
            copied += page.count
            progress(copied)
            after = last.key
        }
        return [try await compare(source, target, pageSize: pageSize)]
    }

    /// Compares two stores entry by entry: counts, and a SHA-256 of each side's entries.
    public static func compare(_ source: any CareEntryStore, _ target: any CareEntryStore, pageSize: Int = 500) async throws -> CopyCheck {
        try await CopyCheck.compare(
            "care entries", source: { try await source.rows(after: $0, limit: pageSize) }, target: { try await target.rows(after: $0, limit: pageSize) },
            key: \.key, encode: bytes)
    }

    private static func bytes(_ row: CareEntryRow) -> [UInt8] {
        var bytes = RowBytes()
        bytes.add(row.key)
        bytes.add(row.trefleID)
        bytes.add(row.careJSON)
        bytes.add(row.rawJSON)
        bytes.add(row.fetchedAt)
        return bytes.bytes
    }
}

import Foundation

/// One row of a user's data as a copy compares it: under its owner and key, as bytes (owner and key included).
public struct KeyedRow: Sendable {
    public var key: String
    public var bytes: [UInt8]

    public init(owner: String, id: String, content: [UInt8]) {
        key = owner + "\u{1}" + id
        var bytes = RowBytes()
        bytes.add(key)
        bytes.add(content)
        self.bytes = bytes.bytes
    }
}

/// A store whose tables hold users' rows, read one owner at a time (for `copy-data`'s comparison).
public protocol OwnerRowSource: Sendable {
    /// Every owner with a row in any table.
    func owners() async throws -> [String]
    /// The rows of `table` of one owner, in any order.
    func rows(of owner: String, table: String) async throws -> [KeyedRow]
}

/// An ``OwnerRowSource`` made of a store's functions: its owners, and one owner's rows of a table.
public struct OwnerRows: OwnerRowSource {
    private let allOwners: @Sendable () async throws -> [String]
    private let tableRows: @Sendable (_ owner: String, _ table: String) async throws -> [KeyedRow]

    public init(owners: @escaping @Sendable () async throws -> [String],
                rows: @escaping @Sendable (_ owner: String, _ table: String) async throws -> [KeyedRow]) {
        allOwners = owners
        tableRows = rows
    }

    public func owners() async throws -> [String] { try await allOwners() }

    public func rows(of owner: String, table: String) async throws -> [KeyedRow] { try await tableRows(owner, table) }
}

/// Compares users' tables of two stores (a SQLite deployment and its copy in PostgreSQL) row by row, in owner and
/// key order, with ``CopyCheck``.
public enum OwnerTables {
    /// Copies each of `owners` with `copyOne`, telling `progress` how many are done every hundred and at the end.
    public static func copy(_ owners: [String], progress: (Int) -> Void, _ copyOne: (String) async throws -> Void) async throws {
        for (index, owner) in owners.enumerated() {
            try await copyOne(owner)
            if (index + 1) % 100 == 0 { progress(index + 1) }
        }
        progress(owners.count)
    }

    public static func compare(_ tables: [String], source: any OwnerRowSource, target: any OwnerRowSource) async throws -> [CopyCheck] {
        let sourceOwners = try await source.owners().sorted()
        let targetOwners = try await target.owners().sorted()
        var checks: [CopyCheck] = []
        for table in tables {
            checks.append(try await CopyCheck.compare(
                table, source: Pages(store: source, owners: sourceOwners, table: table).after,
                target: Pages(store: target, owners: targetOwners, table: table).after, key: \.key, encode: \.bytes))
        }
        return checks
    }

    /// One table of a store, an owner at a time.
    private struct Pages: Sendable {
        let store: any OwnerRowSource
        let owners: [String]
        let table: String

        /// The rows after `key` ("" for the first): the rest of that owner's, or the next owner's with any.
        func after(_ key: String) async throws -> [KeyedRow] {
            let owner = key.isEmpty ? nil : String(key.prefix { $0 != "\u{1}" })
            var index = owner.map { owner in owners.firstIndex { $0 >= owner } ?? owners.count } ?? 0
            while index < owners.count {
                let rows = try await store.rows(of: owners[index], table: table).filter { $0.key > key }.sorted { $0.key < $1.key }
                if !rows.isEmpty { return rows }
                index += 1
            }
            return []
        }
    }
}

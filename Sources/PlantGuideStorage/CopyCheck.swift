import CSodium
import Foundation

/// The proof a `copy-data` command prints: the source's rows and the target's compared one by one, in key order,
/// with a SHA-256 over each side's rows (every column's bytes, in order), so that an operator can see that
/// nothing was lost or changed.
public struct CopyCheck: Sendable, CustomStringConvertible {
    /// What is compared: a table's name.
    public var name: String
    public private(set) var sourceRows = 0
    public private(set) var targetRows = 0
    /// Source rows the target holds with the same content.
    public private(set) var matching = 0
    /// Source rows the target lacks.
    public private(set) var missing = 0
    /// Source rows the target holds with other content.
    public private(set) var differing = 0
    public private(set) var sourceDigest = ""
    public private(set) var targetDigest = ""

    /// Whether every source row is in the target, unchanged (the target may hold more).
    public var isComplete: Bool { missing == 0 && differing == 0 }

    public var description: String {
        "\(name): source \(sourceRows) rows (sha256 \(sourceDigest.prefix(16))…), target \(targetRows) rows (sha256 \(targetDigest.prefix(16))…): "
            + "\(matching) identical, \(missing) missing, \(differing) different"
    }

    /// Compares two tables read page by page in the same key order (`page(after)` gives the rows after a key, an
    /// empty page at the end; "" starts). `encode` gives a row's content as bytes, its key included.
    public static func compare<Row: Sendable>(
        _ name: String, source: @escaping (String) async throws -> [Row], target: @escaping (String) async throws -> [Row],
        key: (Row) -> String, encode: (Row) -> [UInt8]
    ) async throws -> CopyCheck {
        var check = CopyCheck(name: name)
        var sourceHash = Digest()
        var targetHash = Digest()
        var left = Cursor(page: source)
        var right = Cursor(page: target)
        while true {
            let a = try await left.peek(key: key)
            let b = try await right.peek(key: key)
            if a == nil && b == nil { break }
            if let a, b == nil || key(a) < key(b!) {
                check.sourceRows += 1
                check.missing += 1
                sourceHash.add(encode(a))
                try await left.advance(key: key)
            } else if let b, a == nil || key(b) < key(a!) {
                check.targetRows += 1
                targetHash.add(encode(b))
                try await right.advance(key: key)
            } else if let a, let b {
                let (bytesA, bytesB) = (encode(a), encode(b))
                check.sourceRows += 1
                check.targetRows += 1
                if bytesA == bytesB { check.matching += 1 } else { check.differing += 1 }
                sourceHash.add(bytesA)
                targetHash.add(bytesB)
                try await left.advance(key: key)
                try await right.advance(key: key)
            }
        }
        check.sourceDigest = sourceHash.hex()
        check.targetDigest = targetHash.hex()
        return check
    }

    /// Reads a table a page at a time.
    private struct Cursor<Row> {
        let page: (String) async throws -> [Row]
        var rows: [Row] = []
        var index = 0
        var finished = false
        var lastKey = ""

        init(page: @escaping (String) async throws -> [Row]) {
            self.page = page
        }

        mutating func peek(key: (Row) -> String) async throws -> Row? {
            if index == rows.count, !finished {
                rows = try await page(lastKey)
                index = 0
                finished = rows.isEmpty
            }
            return index < rows.count ? rows[index] : nil
        }

        mutating func advance(key: (Row) -> String) async throws {
            lastKey = key(rows[index])
            index += 1
        }
    }

    /// SHA-256 over length-prefixed rows.
    private struct Digest {
        private var state = crypto_hash_sha256_state()

        init() { crypto_hash_sha256_init(&state) }

        mutating func add(_ bytes: [UInt8]) {
            var length = UInt64(bytes.count).bigEndian
            withUnsafeBytes(of: &length) { crypto_hash_sha256_update(&state, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), 8) }
            crypto_hash_sha256_update(&state, bytes, UInt64(bytes.count))
        }

        mutating func hex() -> String {
            var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
            crypto_hash_sha256_final(&state, &digest)
            return digest.map { String(format: "%02x", $0) }.joined()
        }
    }
}

/// Length-prefixed fields, for `CopyCheck`'s `encode`: a row's columns as one byte string in which no two different
/// rows can look alike.
public struct RowBytes {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func add(_ value: String?) { add(value.map { Array($0.utf8) }) }

    public mutating func add(_ value: [UInt8]?) {
        guard let value else { bytes.append(0); return }
        bytes.append(1)
        withUnsafeBytes(of: UInt32(value.count).bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: value)
    }

    public mutating func add(_ value: Data?) { add(value.map { [UInt8]($0) }) }

    public mutating func add(_ value: Int?) { add(value.map { String($0) }) }

    public mutating func add(_ value: Double?) { add(value.map { withUnsafeBytes(of: $0.bitPattern.bigEndian) { Array($0) } }) }
}

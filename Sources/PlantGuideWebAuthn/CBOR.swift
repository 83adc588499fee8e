import Foundation

/// One CBOR data item (RFC 8949), as much of CBOR as WebAuthn's attestation objects and COSE keys use: integers,
/// byte and text strings, arrays, maps, tags, simple values and floats, definite lengths only (CTAP2's canonical
/// encoding has no indefinite ones).
public indirect enum CBOR: Sendable, Equatable {
    case unsigned(UInt64)
    /// A negative integer: -1 - `n`.
    case negative(UInt64)
    case bytes(Data)
    case text(String)
    case array([CBOR])
    /// Entries in the order they were written (COSE keys are maps with integer keys).
    case map([(key: CBOR, value: CBOR)])
    case tagged(UInt64, CBOR)
    case bool(Bool)
    case null
    case undefined
    case float(Double)

    /// The integer, when it is one that fits an `Int`.
    public var integer: Int? {
        switch self {
        case .unsigned(let value): value <= UInt64(Int.max) ? Int(value) : nil
        case .negative(let value): value < UInt64(Int.max) ? -1 - Int(value) : nil
        default: nil
        }
    }

    /// The value under `key` when this is a map.
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }

    /// The value under the text key `key` when this is a map.
    public subscript(text key: String) -> CBOR? { self[.text(key)] }

    /// The value under the integer key `key` when this is a map (COSE labels).
    public subscript(label key: Int) -> CBOR? { self[key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))] }

    public static func == (left: CBOR, right: CBOR) -> Bool {
        switch (left, right) {
        case (.unsigned(let a), .unsigned(let b)), (.negative(let a), .negative(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.text(let a), .text(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.map(let a), .map(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.tagged(let tagA, let a), .tagged(let tagB, let b)): tagA == tagB && a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null), (.undefined, .undefined): true
        case (.float(let a), .float(let b)): a == b
        default: false
        }
    }
}

/// Why bytes are not the CBOR asked for.
public struct CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}

/// Reads CBOR from untrusted bytes: every length is checked against what is left, nesting is bounded, and nothing
/// is allocated before the bytes for it are known to be there.
public struct CBORReader {
    /// Deeper nesting than WebAuthn ever has is refused, so that hostile input cannot exhaust the stack.
    public static let maxDepth = 16

    private let bytes: [UInt8]
    /// Where the next item starts.
    public private(set) var offset: Int

    public init(_ data: some DataProtocol, offset: Int = 0) {
        bytes = Array(data)
        self.offset = offset
    }

    /// Reads the one item `data` holds, refusing trailing bytes.
    public static func decode(_ data: some DataProtocol) throws -> CBOR {
        var reader = CBORReader(data)
        let item = try reader.read()
        guard reader.offset == reader.bytes.count else { throw CBORError("\(reader.bytes.count - reader.offset) bytes after the CBOR item") }
        return item
    }

    /// Reads the next item and moves past it.
    public mutating func read() throws -> CBOR {
        try read(depth: 0)
    }

    private mutating func read(depth: Int) throws -> CBOR {
        guard depth <= Self.maxDepth else { throw CBORError("CBOR nested deeper than \(Self.maxDepth)") }
        let initial = try byte()
        let major = initial >> 5
        let additional = initial & 0x1F
        if major == 7 { return try simple(additional) }
        let argument = try self.argument(additional)
        switch major {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2: return .bytes(Data(try take(argument)))
        case 3:
            guard let text = String(validating: try take(argument), as: UTF8.self) else { throw CBORError("a CBOR text string is not UTF-8") }
            return .text(text)
        case 4:
            let count = try count(argument, minimumBytesEach: 1)
            var items: [CBOR] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try read(depth: depth + 1)) }
            return .array(items)
        case 5:
            let count = try count(argument, minimumBytesEach: 2)
            var entries: [(key: CBOR, value: CBOR)] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let key = try read(depth: depth + 1)
                guard !entries.contains(where: { $0.key == key }) else { throw CBORError("a CBOR map repeats a key") }
                entries.append((key, try read(depth: depth + 1)))
            }
            return .map(entries)
        default:  // 6
            return .tagged(argument, try read(depth: depth + 1))
        }
    }

    private mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw CBORError("CBOR ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func take(_ count: UInt64) throws -> ArraySlice<UInt8> {
        guard count <= UInt64(bytes.count - offset) else { throw CBORError("CBOR ends early") }
        let start = offset
        offset += Int(count)
        return bytes[start..<offset]
    }

    /// The item's argument: the length, the value or the tag, by its additional information.
    private mutating func argument(_ additional: UInt8) throws -> UInt64 {
        switch additional {
        case 0..<24: return UInt64(additional)
        case 24...27:
            return try take(1 << (additional - 24)).reduce(0) { $0 << 8 | UInt64($1) }
        case 31: throw CBORError("indefinite-length CBOR is not accepted")
        default: throw CBORError("reserved CBOR additional information \(additional)")
        }
    }

    /// `argument` as an item count, refused when what is left could not hold that many items.
    private func count(_ argument: UInt64, minimumBytesEach: UInt64) throws -> Int {
        guard argument <= UInt64(bytes.count - offset) / minimumBytesEach else { throw CBORError("CBOR ends early") }
        return Int(argument)
    }

    private mutating func simple(_ additional: UInt8) throws -> CBOR {
        switch additional {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 25: return .float(Double(Float16(bitPattern: UInt16(try argument(additional)))))
        case 26: return .float(Double(Float(bitPattern: UInt32(try argument(additional)))))
        case 27: return .float(Double(bitPattern: try argument(additional)))
        case 31: throw CBORError("indefinite-length CBOR is not accepted")
        default: throw CBORError("CBOR simple value \(additional) is not accepted")
        }
    }
}

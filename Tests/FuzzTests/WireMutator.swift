import Foundation
import PlantGuideTestSupport

/// Mutates protobuf messages at the wire-format level, knowing no schema: it splits a message into fields and
/// changes them the way hostile callers do: values at their extremes, doubles that are NaN, infinite or 1e300,
/// strings that are empty, huge or not UTF-8, submessages mutated recursively, fields dropped, repeated or added
/// with unknown numbers; and, now and then, plain byte damage (flips, truncation, splices).
struct WireMutator {
    private var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    /// A mutation of `message`, occasionally spliced with `other`.
    mutating func mutate(_ message: Data, splicingWith other: Data) -> Data {
        switch random.next(below: 10) {
        case 0: return byteDamage(message)
        case 1: return Data(message.prefix(random.next(below: message.count + 1)) + other.suffix(random.next(below: other.count + 1)))
        default:
            guard var fields = WireField.parse(message) else { return byteDamage(message) }
            for _ in 0...random.next(below: 3) { mutateFields(&fields, depth: 0) }
            return WireField.serialize(fields)
        }
    }

    private mutating func mutateFields(_ fields: inout [WireField], depth: Int) {
        if fields.isEmpty || random.next(below: 8) == 0 {
            fields.append(WireField(number: 1 + UInt64(random.next(below: 20)), value: randomValue()))
            return
        }
        let index = random.next(below: fields.count)
        switch random.next(below: 10) {
        case 0: fields.remove(at: index)
        case 1: fields.append(fields[index])
        case 2: fields[index].number = [0, 1, 15, 16, 536_870_911, 19_000, UInt64(random.next(below: 40))][random.next(below: 7)]
        default: fields[index].value = mutateValue(fields[index].value, depth: depth)
        }
    }

    private mutating func mutateValue(_ value: WireField.Value, depth: Int) -> WireField.Value {
        switch value {
        case .varint:
            return .varint(Self.extremeVarints[random.next(below: Self.extremeVarints.count)])
        case .fixed64:
            let doubles: [Double] = [.nan, .infinity, -.infinity, 1e300, -1e300, -1, 0, .greatestFiniteMagnitude, 1e-320]
            return random.next(below: 3) == 0 ? .fixed64(random.next()) : .fixed64(doubles[random.next(below: doubles.count)].bitPattern)
        case .fixed32:
            let floats: [Float] = [.nan, .infinity, -1, 3e38]
            return .fixed32(floats[random.next(below: floats.count)].bitPattern)
        case .bytes(let bytes):
            if depth < 3, random.next(below: 2) == 0, var inner = WireField.parse(bytes), !inner.isEmpty {
                mutateFields(&inner, depth: depth + 1)
                return .bytes(WireField.serialize(inner))
            }
            switch random.next(below: 6) {
            case 0: return .bytes(Data())
            case 1: return .bytes(Data(repeating: UInt8(ascii: "a"), count: [201, 1_001, 5_001, 70_000][random.next(below: 4)]))
            case 2: return .bytes(Data([0xff, 0xfe, 0xc3, 0x28, 0x00]))
            case 3: return .bytes(Data("-1".utf8))
            case 4: return .bytes(Data("../../etc/passwd".utf8))
            default: return .bytes(byteDamage(bytes))
            }
        }
    }

    private mutating func randomValue() -> WireField.Value {
        switch random.next(below: 4) {
        case 0: .varint(Self.extremeVarints[random.next(below: Self.extremeVarints.count)])
        case 1: .fixed64(random.next())
        case 2: .fixed32(UInt32(truncatingIfNeeded: random.next()))
        default: .bytes(Data((0..<random.next(below: 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        }
    }

    private mutating func byteDamage(_ data: Data) -> Data {
        var bytes = [UInt8](data)
        guard !bytes.isEmpty else { return Data([UInt8(truncatingIfNeeded: random.next())]) }
        switch random.next(below: 3) {
        case 0:
            for _ in 0...random.next(below: 4) { bytes[random.next(below: bytes.count)] ^= 1 << UInt8(random.next(below: 8)) }
        case 1:
            bytes = Array(bytes.prefix(random.next(below: bytes.count)))
        default:
            bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: random.next(below: bytes.count + 1))
        }
        return Data(bytes)
    }

    /// Varints at the edges of every integer type protobuf has (as 64-bit two's complement, as the wire holds them).
    static let extremeVarints: [UInt64] = [
        0, 1, 2, 7, 127, 128, 255, 1_000, 65_535, 1 << 31 - 1, 1 << 31, 1 << 32 - 1, 1 << 32, UInt64(Int64.max),
        UInt64(bitPattern: Int64.min), UInt64.max, UInt64(bitPattern: -1), UInt64(bitPattern: Int64(Int32.min)),
        253_402_300_799, 253_402_300_800, UInt64(bitPattern: -62_135_596_801), 999_999_999, 1_000_000_000,
    ]
}

/// One top-level field of a protobuf message on the wire.
struct WireField {
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case bytes(Data)
        case fixed32(UInt32)
    }

    var number: UInt64
    var value: Value

    /// The fields of `data`, or nil when it is not a well-formed message.
    static func parse(_ data: Data) -> [WireField]? {
        let bytes = [UInt8](data)
        var offset = 0
        func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while offset < bytes.count, shift < 64 {
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        var fields: [WireField] = []
        while offset < bytes.count {
            guard let key = varint(), key >> 3 > 0 else { return nil }
            switch key & 7 {
            case 0:
                guard let value = varint() else { return nil }
                fields.append(.init(number: key >> 3, value: .varint(value)))
            case 1:
                guard offset + 8 <= bytes.count else { return nil }
                let value = bytes[offset..<offset + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                offset += 8
                fields.append(.init(number: key >> 3, value: .fixed64(value)))
            case 2:
                guard let length = varint(), length <= UInt64(bytes.count - offset) else { return nil }
                fields.append(.init(number: key >> 3, value: .bytes(Data(bytes[offset..<offset + Int(length)]))))
                offset += Int(length)
            case 5:
                guard offset + 4 <= bytes.count else { return nil }
                let value = bytes[offset..<offset + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                offset += 4
                fields.append(.init(number: key >> 3, value: .fixed32(value)))
            default:
                return nil
            }
        }
        return fields
    }

    static func serialize(_ fields: [WireField]) -> Data {
        var out: [UInt8] = []
        func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                out.append(UInt8(value & 0x7f) | 0x80)
                value >>= 7
            }
            out.append(UInt8(value))
        }
        for field in fields {
            switch field.value {
            case .varint(let value):
                varint(field.number << 3)
                varint(value)
            case .fixed64(let value):
                varint(field.number << 3 | 1)
                for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
            case .bytes(let data):
                varint(field.number << 3 | 2)
                varint(UInt64(data.count))
                out += data
            case .fixed32(let value):
                varint(field.number << 3 | 5)
                for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
            }
        }
        return Data(out)
    }
}

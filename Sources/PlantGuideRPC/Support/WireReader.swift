/// Reads protobuf's wire format without allocating: the envelopes' fields, straight from a received frame.
struct WireReader {
    /// A field's key: its number and wire type.
    struct Key {
        let number: UInt64
        let wireType: UInt64
    }

    let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var atEnd: Bool { offset >= bytes.count }

    /// The next base-128 varint; nil when the bytes end inside it or it runs past ten bytes.
    mutating func varint() -> UInt64? {
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

    /// The next field's key; nil when it does not read as one as swift-protobuf reads keys: at most five bytes,
    /// below 2^32, and a field number other than 0.
    mutating func key() -> Key? {
        let start = offset
        guard let key = varint(), offset - start <= 5, key <= UInt64(UInt32.max), key >> 3 != 0 else { return nil }
        return Key(number: key >> 3, wireType: key & 7)
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= bytes.count - offset else { return false }
        offset += count
        return true
    }

    /// The bytes of a length-delimited field (its length read here); nil when they run past the end.
    mutating func lengthDelimited() -> UnsafeRawBufferPointer? {
        guard let length = varint(), length <= UInt64(bytes.count - offset) else { return nil }
        let start = offset
        offset += Int(length)
        return UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
    }

    /// Skips the value of a field of `wireType` the reader does not keep; false for a wire type it cannot skip
    /// (groups, which no envelope has, and the invalid 6 and 7).
    mutating func skipValue(wireType: UInt64) -> Bool {
        switch wireType {
        case 0: varint() != nil
        case 1: skip(8)
        case 2: lengthDelimited() != nil
        case 5: skip(4)
        default: false
        }
    }
}

extension String {
    /// The UTF-8 text in `bytes`; nil when they are not valid UTF-8 (protobuf's rule for `string` fields).
    init?(validatingUTF8Bytes bytes: UnsafeRawBufferPointer) {
        let units = UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        guard let text = String(validating: units, as: UTF8.self) else { return nil }
        self = text
    }
}

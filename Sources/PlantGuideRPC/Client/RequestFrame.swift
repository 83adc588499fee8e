/// A request's wire frame: the `RpcRequest` envelope with its id (field 1) ahead and its timeout (field 3) behind,
/// which the client adds when it sends, without decoding or re-encoding the envelope.
enum RequestFrame {
    static func size(id: UInt64, envelope: [UInt8], timeoutMs: UInt64) -> Int {
        2 + Varint.size(id) + envelope.count + Varint.size(timeoutMs)
    }

    /// Writes the frame into `buffer`, which holds exactly ``size(id:envelope:timeoutMs:)`` bytes.
    static func write(id: UInt64, envelope: [UInt8], timeoutMs: UInt64, into buffer: UnsafeMutableRawBufferPointer) {
        var offset = 0
        buffer[offset] = 0x08  // field 1, varint
        offset += 1
        offset = Varint.write(id, into: buffer, at: offset)
        envelope.withUnsafeBytes { bytes in
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + bytes.count)]).copyMemory(from: bytes)
        }
        offset += envelope.count
        buffer[offset] = 0x18  // field 3, varint
        offset += 1
        _ = Varint.write(timeoutMs, into: buffer, at: offset)
    }
}

/// Protobuf base-128 varints, for the two envelope fields the loop writes itself.
enum Varint {
    static func size(_ value: UInt64) -> Int {
        var value = value
        var size = 1
        while value >= 0x80 {
            value >>= 7
            size += 1
        }
        return size
    }

    static func write(_ value: UInt64, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        var value = value
        var offset = offset
        while value >= 0x80 {
            buffer[offset] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            offset += 1
        }
        buffer[offset] = UInt8(value)
        return offset + 1
    }
}

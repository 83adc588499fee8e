import Foundation

/// A reply's wire frame (a serialized `RpcResponse`) as the server loop sends it. The usual answer (OK, no
/// trailing metadata) is kept as its id and payload and written straight into the socket's message, the bytes
/// SwiftProtobuf would write (field 1, the id; field 3, the payload), without an encoded copy in between; any other
/// answer is encoded by SwiftProtobuf.
enum ReplyFrame {
    case ok(id: UInt64, payload: Data)
    case encoded([UInt8])

    var size: Int {
        switch self {
        case .ok(let id, let payload):
            (id == 0 ? 0 : 1 + Varint.size(id)) + (payload.isEmpty ? 0 : 1 + Varint.size(UInt64(payload.count)) + payload.count)
        case .encoded(let bytes):
            bytes.count
        }
    }

    /// Writes the frame into `buffer`, which holds exactly ``size`` bytes.
    func write(into buffer: UnsafeMutableRawBufferPointer) {
        switch self {
        case .ok(let id, let payload):
            var offset = 0
            if id != 0 {
                buffer[offset] = 0x08  // field 1, varint
                offset = Varint.write(id, into: buffer, at: offset + 1)
            }
            guard !payload.isEmpty else { return }
            buffer[offset] = 0x1A  // field 3, length-delimited
            offset = Varint.write(UInt64(payload.count), into: buffer, at: offset + 1)
            payload.withUnsafeBytes { bytes in
                UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]).copyMemory(from: bytes)
            }
        case .encoded(let bytes):
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
        }
    }

    /// The frame as bytes, for a caller in this process.
    var bytes: [UInt8] {
        if case .encoded(let bytes) = self { return bytes }
        return [UInt8](writing: size) { write(into: $0) }
    }
}

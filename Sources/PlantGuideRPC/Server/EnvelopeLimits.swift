/// Limits on an `RpcRequest` envelope, checked by scanning its wire bytes before it is parsed, so that a frame
/// carrying megabytes of metadata or of method name costs the socket's thread a scan, not a parse.
///
/// The limits are part of the contract (`Protos/plantguide/rpc/v1/rpc.proto`).
public enum EnvelopeLimits {
    /// The longest method path, in bytes.
    public static let maxMethodBytes = 256
    /// The most metadata entries.
    public static let maxMetadataEntries = 64
    /// The most metadata bytes, keys and values together (gRPC's default maximum metadata size).
    public static let maxMetadataBytes = 8 * 1_024

    /// What a scan found.
    public enum Verdict: Sendable {
        /// Within every limit: parse it.
        case acceptable
        /// Not a protobuf message: drop it.
        case malformed
        /// Over a limit: answer `id` (0 when the frame did not say) with `code` and `message` instead of parsing.
        case refused(id: UInt64, error: RPCError)
    }

    /// Scans the top-level fields of an `RpcRequest` frame.
    public static func check(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        var reader = WireReader(bytes: bytes)
        var id: UInt64 = 0
        var methodBytes = 0
        var metadataEntries = 0
        var metadataBytes = 0
        while !reader.atEnd {
            guard let key = reader.varint() else { return .malformed }
            let field = key >> 3
            switch key & 7 {
            case 0:
                guard let value = reader.varint() else { return .malformed }
                if field == 1 { id = value }
            case 2:
                guard let value = reader.lengthDelimited() else { return .malformed }
                if field == 2 { methodBytes += value.count }
                if field == 4 {
                    metadataEntries += 1
                    metadataBytes += value.count
                }
            case let wireType:
                guard reader.skipValue(wireType: wireType) else { return .malformed }
            }
        }
        return verdict(id: id, methodBytes: methodBytes, metadataEntries: metadataEntries, metadataBytes: metadataBytes)
    }

    /// The verdict on a well-formed envelope of request `id` whose method and metadata fields hold these many
    /// bytes and entries.
    static func verdict(id: UInt64, methodBytes: Int, metadataEntries: Int, metadataBytes: Int) -> Verdict {
        if methodBytes > maxMethodBytes {
            let message = "the method name is \(methodBytes) bytes; the limit is \(maxMethodBytes)"
            return .refused(id: id, error: .invalidArgument("method", .tooLong, message))
        }
        if metadataEntries > maxMetadataEntries || metadataBytes > maxMetadataBytes {
            let message = "the metadata (\(metadataEntries) entries, "
                + "\(metadataBytes) bytes) exceeds the limit of \(maxMetadataEntries) entries and \(maxMetadataBytes) bytes"
            let error = RPCError(.resourceExhausted, message)
                .reason(RPCErrorReason.requestTooLarge, domain: RPCErrorReason.transportDomain, metadata: ["part": "metadata"])
            return .refused(id: id, error: error)
        }
        return .acceptable
    }
}

import Foundation
import PlantGuideProtos
import SwiftProtobuf

/// A received `RpcRequest` as the server loop serves it, with its method found in the server's ``MethodTable``.
///
/// Read in one pass over the frame's bytes: the usual envelope (its five fields, each of the wire type the
/// contract gives it, and metadata entries of a key and a value) costs no swift-protobuf decoding and no method
/// name of its own. Any other envelope (unknown fields, a field of another wire type, a repeated method, text
/// that is not UTF-8) is left to swift-protobuf, so both read the same frames alike: what one reads, the other
/// reads the same, and what one rejects, so does the other (FuzzTests' envelope test holds them to it).
struct ReceivedRequest {
    var id: UInt64 = 0
    var method = ""
    /// The method's entry; nil for a method the server does not have.
    var entry: MethodTable.Entry?
    var timeoutMs: UInt32 = 0
    var metadata: [String: String] = [:]
    var payload = Data()

    /// Reads `bytes`; nil when they are not an `RpcRequest`.
    init?(_ bytes: UnsafeRawBufferPointer, methods: MethodTable) {
        if let read = Self.readUsual(bytes, methods: methods) {
            self = read
            return
        }
        guard let request = try? Plantguide_Rpc_V1_RpcRequest(serializedBytes: ReceivedFrame(bytes)) else { return nil }
        id = request.id
        method = request.method
        entry = methods.entry(named: request.method)
        timeoutMs = request.timeoutMs
        metadata = request.metadata
        payload = request.payload
    }

    private init() {}

    /// The usual envelope read straight from its bytes; nil for anything else (swift-protobuf reads that).
    /// Internal so that FuzzTests can hold it to swift-protobuf's reading.
    static func readUsual(_ bytes: UnsafeRawBufferPointer, methods: MethodTable) -> ReceivedRequest? {
        var request = ReceivedRequest()
        var reader = WireReader(bytes: bytes)
        var methodBytes = UnsafeRawBufferPointer(start: nil, count: 0)
        var methodSeen = false
        var payloadBytes = UnsafeRawBufferPointer(start: nil, count: 0)
        var metadataEntries = 0
        while !reader.atEnd {
            guard let key = reader.key() else { return nil }
            switch (key.number, key.wireType) {
            case (1, 0):
                guard let id = reader.varint() else { return nil }
                request.id = id
            case (2, 2):
                // A repeated method is rare; swift-protobuf checks that every one is UTF-8, not only the last.
                guard !methodSeen, let method = reader.lengthDelimited() else { return nil }
                methodBytes = method
                methodSeen = true
            case (3, 0):
                guard let timeout = reader.varint() else { return nil }
                request.timeoutMs = UInt32(truncatingIfNeeded: timeout)
            case (4, 2):
                guard reader.lengthDelimited() != nil else { return nil }
                metadataEntries += 1
            case (5, 2):
                guard let payload = reader.lengthDelimited() else { return nil }
                payloadBytes = payload
            default:
                return nil
            }
        }
        if let entry = methods.entry(forPath: methodBytes) {
            request.entry = entry
            request.method = entry.path
        } else {
            guard let method = String(validatingUTF8Bytes: methodBytes) else { return nil }
            request.method = method
        }
        if metadataEntries > 0 {
            guard let metadata = readMetadata(bytes, entries: metadataEntries) else { return nil }
            request.metadata = metadata
        }
        if !payloadBytes.isEmpty { request.payload = Data(payloadBytes) }
        return request
    }

    /// The metadata map of an envelope already read once (a second pass, so that counting the entries costs
    /// no array of them): entries of a key (field 1) and a value (field 2), both UTF-8; a later entry of the
    /// same key replaces an earlier one, as in swift-protobuf.
    private static func readMetadata(_ bytes: UnsafeRawBufferPointer, entries: Int) -> [String: String]? {
        var metadata = [String: String](minimumCapacity: entries)
        var reader = WireReader(bytes: bytes)
        while !reader.atEnd {
            guard let key = reader.key() else { return nil }
            guard key.number == 4 else {
                guard reader.skipValue(wireType: key.wireType) else { return nil }
                continue
            }
            guard let field = reader.lengthDelimited() else { return nil }
            var entry = WireReader(bytes: field)
            var name = "", value = ""
            while !entry.atEnd {
                guard let entryKey = entry.key(), entryKey.wireType == 2, entryKey.number <= 2,
                      let text = entry.lengthDelimited(), let string = String(validatingUTF8Bytes: text)
                else { return nil }
                if entryKey.number == 1 { name = string } else { value = string }
            }
            metadata[name] = value
        }
        return metadata
    }
}

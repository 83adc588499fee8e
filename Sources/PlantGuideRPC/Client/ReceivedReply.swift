import Foundation
import PlantGuideProtos
import SwiftProtobuf

/// Reads a reply frame (an `RpcResponse`) for the client loop.
///
/// The usual reply, an OK answer of an id and a payload (what the server loop writes itself, `ReplyFrame.ok`),
/// is read straight from its bytes; any other (a status, trailing metadata, unknown fields) is left to
/// swift-protobuf, so both read every frame alike.
enum ReceivedReply {
    /// The response in `bytes`; nil when they are not an `RpcResponse`.
    static func read(_ bytes: UnsafeRawBufferPointer) -> Plantguide_Rpc_V1_RpcResponse? {
        if let response = readUsual(bytes) { return response }
        return try? Plantguide_Rpc_V1_RpcResponse(serializedBytes: ReceivedFrame(bytes))
    }

    /// The usual reply read straight from its bytes; nil for anything else (swift-protobuf reads that).
    /// Internal so that FuzzTests can hold it to swift-protobuf's reading.
    static func readUsual(_ bytes: UnsafeRawBufferPointer) -> Plantguide_Rpc_V1_RpcResponse? {
        var response = Plantguide_Rpc_V1_RpcResponse()
        var reader = WireReader(bytes: bytes)
        var payload = UnsafeRawBufferPointer(start: nil, count: 0)
        while !reader.atEnd {
            guard let key = reader.key() else { return nil }
            switch (key.number, key.wireType) {
            case (1, 0):
                guard let id = reader.varint() else { return nil }
                response.id = id
            case (3, 2):
                guard let bytes = reader.lengthDelimited() else { return nil }
                payload = bytes
            default:
                return nil
            }
        }
        if !payload.isEmpty { response.payload = Data(payload) }
        return response
    }
}

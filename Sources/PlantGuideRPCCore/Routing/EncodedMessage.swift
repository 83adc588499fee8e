import Foundation
import SwiftProtobuf

/// A message already encoded, with the type it decodes as: what a handler registered with
/// ``RPCRouter/registerEncoded(_:runsOn:handler:)`` returns when its response holds parts kept encoded (a
/// schedule stored as its message), which the server would otherwise decode only to encode them again.
public struct EncodedMessage<Message: SwiftProtobuf.Message>: Sendable {
    /// The encoding of a `Message`.
    public let bytes: Data

    /// `message` encoded, followed by each of `fields`: the number of a message-typed field of `Message` that
    /// `message` leaves unset, and the encoding of its value. Protobuf reads a message's fields in any order, so
    /// the bytes decode as `message` with those fields set. The encoded values are taken as they are, unchecked.
    public init(_ message: Message, appending fields: [(number: Int, encoded: Data)]) throws {
        var bytes: Data = try message.serializedBytes()
        for field in fields {
            Self.appendVarint(UInt64(field.number) << 3 | 2, to: &bytes)  // wire type 2: length-delimited
            Self.appendVarint(UInt64(field.encoded.count), to: &bytes)
            bytes.append(field.encoded)
        }
        self.bytes = bytes
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout Data) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }
}

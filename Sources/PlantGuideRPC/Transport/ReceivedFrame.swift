import SwiftProtobuf

/// A received frame's bytes, lent to swift-protobuf's decoder without copying them: the envelope of every request
/// and reply is decoded straight from libzmq's message, which stays valid for the decode. Saves an allocation and a
/// copy of the whole frame per call on each side (`Scripts/bench allocs`).
///
/// Decoding only reads the bytes (`withUnsafeBytes`). The protocol's other requirements make or change a bag of
/// bytes, which a borrowed frame cannot be; decoding never calls them.
struct ReceivedFrame: SwiftProtobufContiguousBytes {
    let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    init(repeating: UInt8, count: Int) { preconditionFailure("a received frame is read, never made") }

    init<S: Sequence>(_ sequence: S) where S.Element == UInt8 { preconditionFailure("a received frame is read, never made") }

    var count: Int { bytes.count }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try body(bytes) }

    mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        preconditionFailure("a received frame is read, never changed")
    }
}

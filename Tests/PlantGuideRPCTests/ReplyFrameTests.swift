import Foundation
import PlantGuideProtos
@testable import PlantGuideRPC
import Testing

@Suite("A reply's wire frame")
struct ReplyFrameTests {
    @Test("an OK answer written in place is the bytes SwiftProtobuf writes",
          arguments: [UInt64(0), 1, 127, 128, 300, .max], [0, 1, 127, 128, 70_000])
    func okMatchesSwiftProtobuf(id: UInt64, payloadSize: Int) throws {
        let payload = Data((0..<payloadSize).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var response = Plantguide_Rpc_V1_RpcResponse()
        response.id = id
        response.payload = payload
        let expected: [UInt8] = try response.serializedBytes()

        let frame = ReplyFrame.ok(id: id, payload: payload)
        #expect(frame.size == expected.count)
        #expect(frame.bytes == expected)
        var written = [UInt8](repeating: 0xEE, count: frame.size)
        written.withUnsafeMutableBytes { frame.write(into: $0) }
        #expect(written == expected)
        #expect(try Plantguide_Rpc_V1_RpcResponse(serializedBytes: written) == response)
    }

    @Test("an encoded frame is sent as it is")
    func encodedAsItIs() {
        let frame = ReplyFrame.encoded([1, 2, 3])
        #expect(frame.size == 3)
        #expect(frame.bytes == [1, 2, 3])
        var written = [UInt8](repeating: 0, count: 3)
        written.withUnsafeMutableBytes { frame.write(into: $0) }
        #expect(written == [1, 2, 3])
    }
}

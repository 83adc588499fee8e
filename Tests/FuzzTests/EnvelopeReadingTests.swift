import Foundation
import PlantGuideProtos
@testable import PlantGuideRPC
import PlantGuideTestSupport
import SwiftProtobuf
import Testing

/// The RPC loops read the usual request and reply envelopes themselves and leave the rest to swift-protobuf.
/// Here both readings meet mutated envelopes: whatever the loops' own reading accepts, swift-protobuf must
/// accept with the same fields, and the whole reading (own or swift-protobuf's) must accept exactly what
/// swift-protobuf accepts. CPU-heavy: thousands of decodes in a synchronous test would hold a thread of Swift's
/// cooperative pool for seconds (a run pinned to one core reported a 4.3 s executor stall until it was marked).
@Suite("Reading envelopes as swift-protobuf does", .cpuHeavy)
struct EnvelopeReadingTests {
    static let iterations = FuzzTests.iterations * 3

    /// A router with the collection's GetPlant and a probe, so that paths are found in the method table.
    private let methods: MethodTable = {
        var router = RPCRouter()
        router.register(Plantguide_Collection_V1_CollectionService.getPlant) { _, _ in .init() }
        router.registerProbe(Plantguide_Health_V1_Health.check) { _ in .init() }
        return MethodTable(router: router)
    }()

    @Test("requests: the usual envelope is read without swift-protobuf, and mutated ones as swift-protobuf reads them")
    func requests() throws {
        var good = Plantguide_Rpc_V1_RpcRequest()
        good.id = 42
        good.method = Plantguide_Collection_V1_CollectionService.getPlant.path
        good.timeoutMs = 1_000
        good.metadata = [RPCServerContext.userIDKey: "u1", "plantguide-trace-id": "t", "é": ""]
        good.payload = try Plantguide_Collection_V1_GetPlantRequest.with { $0.id = "p1" }.serializedData()
        let seed = try good.serializedData()
        let usual = try #require(seed.withUnsafeBytes { ReceivedRequest.readUsual($0, methods: methods) })
        expect(usual, equals: good)
        #expect(usual.entry?.path == good.method)

        // Keys as swift-protobuf reads them: at most five bytes (six are refused, five with a small last byte
        // are read), and never field 0.
        let edges: [[UInt8]] = [
            [0x88, 0x80, 0x80, 0x80, 0x80, 0x00, 0x2A], [0x88, 0x80, 0x80, 0x80, 0x00, 0x2A], [0x00, 0x01],
            [0x08, 0x2A, 0x12, 0x00, 0x12, 0x01, 0x41], [0x22, 0x02, 0x1A, 0x00], [0x22, 0x04, 0x0A, 0x01, 0xFF, 0x12],
        ]
        for edge in edges {
            let reference = try? Plantguide_Rpc_V1_RpcRequest(serializedBytes: edge)
            let read = edge.withUnsafeBytes { ReceivedRequest($0, methods: methods) }
            #expect((read == nil) == (reference == nil), "accepting \(Self.hex(Data(edge)))")
            if let read, let reference { expect(read, equals: reference) }
        }

        var mutator = WireMutator(seed: FuzzTests.seed)
        var readUsually = 0, accepted = 0
        for _ in 0..<Self.iterations {
            let envelope = mutator.mutate(seed, splicingWith: seed)
            let reference = try? Plantguide_Rpc_V1_RpcRequest(serializedBytes: envelope)
            if let own = envelope.withUnsafeBytes({ ReceivedRequest.readUsual($0, methods: methods) }) {
                readUsually += 1
                guard let reference else {
                    Issue.record("read \(Self.hex(envelope)) that swift-protobuf rejects")
                    continue
                }
                expect(own, equals: reference)
            }
            let read = envelope.withUnsafeBytes { ReceivedRequest($0, methods: methods) }
            if (read == nil) != (reference == nil) {
                Issue.record("accepting \(Self.hex(envelope)): \(read != nil) against swift-protobuf's \(reference != nil)")
            }
            if let read, let reference { expect(read, equals: reference) }
            if read != nil { accepted += 1 }
        }
        #expect(readUsually > Self.iterations / 10)
        #expect(accepted > readUsually)
    }

    @Test("replies: the usual OK reply is read without swift-protobuf, and mutated ones as swift-protobuf reads them")
    func replies() throws {
        var ok = Plantguide_Rpc_V1_RpcResponse()
        ok.id = 300
        ok.payload = Data((0..<200).map { UInt8($0) })
        var failed = ok
        failed.payload = Data()
        failed.status = RPCError(.notFound, "no such plant").wireStatus
        failed.trailingMetadata = ["traceresponse": "00-1-2-01"]
        let seeds = [try ok.serializedData(), try failed.serializedData()]
        let usual = try #require(seeds[0].withUnsafeBytes { ReceivedReply.readUsual($0) })
        #expect(usual == ok)
        #expect(seeds[1].withUnsafeBytes { ReceivedReply.readUsual($0) } == nil)
        #expect(seeds[1].withUnsafeBytes { ReceivedReply.read($0) } == failed)

        var mutator = WireMutator(seed: FuzzTests.seed)
        var readUsually = 0
        for iteration in 0..<Self.iterations {
            let envelope = mutator.mutate(seeds[iteration % 2], splicingWith: seeds[(iteration + 1) % 2])
            let reference = try? Plantguide_Rpc_V1_RpcResponse(serializedBytes: envelope)
            if let own = envelope.withUnsafeBytes({ ReceivedReply.readUsual($0) }), own != reference {
                Issue.record("read \(Self.hex(envelope)) unlike swift-protobuf: \(own) against \(String(describing: reference))")
            }
            if envelope.withUnsafeBytes({ ReceivedReply.readUsual($0) }) != nil { readUsually += 1 }
            if envelope.withUnsafeBytes({ ReceivedReply.read($0) }) != reference {
                Issue.record("read \(Self.hex(envelope)) unlike swift-protobuf")
            }
        }
        #expect(readUsually > Self.iterations / 20)
    }

    private static func hex(_ bytes: Data) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private func expect(_ read: ReceivedRequest, equals reference: Plantguide_Rpc_V1_RpcRequest,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(read.id == reference.id, sourceLocation: sourceLocation)
        #expect(read.method == reference.method, sourceLocation: sourceLocation)
        #expect(read.entry?.path == methods.entry(named: reference.method)?.path, sourceLocation: sourceLocation)
        #expect(read.timeoutMs == reference.timeoutMs, sourceLocation: sourceLocation)
        #expect(read.metadata == reference.metadata, sourceLocation: sourceLocation)
        #expect(read.payload == reference.payload, sourceLocation: sourceLocation)
    }
}

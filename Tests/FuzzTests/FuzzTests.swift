import CareData
import Collection
import Foundation
import Identification
import Logging
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Scheduling
import Testing

/// Every method of every service under mutated requests, in process on a temporary database: no crash, no
/// UNKNOWN or INTERNAL, no internals in a message. `Scripts/test` runs a fixed number of iterations per service
/// (PLANTGUIDE_FUZZ_ITERATIONS, default 3000); `Scripts/fuzz SERVICE --seconds N` runs longer, with a new seed.
@Suite("Fuzzing every method", .cpuHeavy)
struct FuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    static let iterations = environment["PLANTGUIDE_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 3_000
    static let seconds = environment["PLANTGUIDE_FUZZ_SECONDS"].flatMap(Double.init)
    static let seed = environment["PLANTGUIDE_FUZZ_SEED"].flatMap(UInt64.init) ?? 20_261_124

    private static func folder(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private static var logger: Logger {
        var logger = Logger(label: "fuzz")
        logger.logLevel = .critical
        return logger
    }

    private func fuzz(_ service: any RPCService, seeds: [FuzzCorpus.Seed], name: String) async {
        var router = RPCRouter()
        router.register(service)
        var fuzzer = Fuzzer(router: router, seeds: seeds, seed: Self.seed)
        let iterations = Self.seconds == nil ? Self.iterations : .max
        let deadline = ContinuousClock.now + .seconds(Self.seconds ?? 600)
        let report = await fuzzer.run(iterations: iterations, until: deadline)
        let codes = report.codes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("fuzz \(name): \(report.iterations) calls, seed \(Self.seed), \(report.findings.count) findings; \(codes)")
        #expect(report.findings.isEmpty, "\(report.findings.prefix(5).map(\.description).joined(separator: "\n"))")
        #expect(report.iterations >= min(iterations, 1))
    }

    @Test("envelopes: the limit scan and the parse of mutated RpcRequests never trap and agree on what is malformed")
    func envelopes() throws {
        var mutator = WireMutator(seed: Self.seed)
        var good = Plantguide_Rpc_V1_RpcRequest()
        good.id = 42
        good.method = Plantguide_Collection_V1_CollectionService.getPlant.path
        good.timeoutMs = 1_000
        good.metadata = [RPCServerContext.userIDKey: "u1", "plantguide-trace-id": "t"]
        good.payload = try Plantguide_Collection_V1_GetPlantRequest.with { $0.id = "p1" }.serializedData()
        let seed = try good.serializedData()
        var parsed = 0
        for _ in 0..<(Self.iterations * 10) {
            let envelope = mutator.mutate(seed, splicingWith: seed)
            let verdict = envelope.withUnsafeBytes { EnvelopeLimits.check($0) }
            let request = try? Plantguide_Rpc_V1_RpcRequest(serializedBytes: envelope)
            if case .acceptable = verdict, request != nil { parsed += 1 }
            // What the scan calls malformed never parses (the server drops it unparsed).
            if case .malformed = verdict { #expect(request == nil, "scan and parser disagree on \(envelope.map { String(format: "%02x", $0) }.joined())") }
        }
        #expect(parsed > 0)
    }

    @Test("collection") func collection() async throws {
        let folder = try Self.folder("collection")
        defer { try? FileManager.default.removeItem(at: folder) }
        await fuzz(try CollectionRPCService(configuration: .init(dataDirectory: folder), logger: Self.logger),
                   seeds: FuzzCorpus.collection, name: "collection")
    }

    @Test("scheduling") func scheduling() async throws {
        let folder = try Self.folder("scheduling")
        defer { try? FileManager.default.removeItem(at: folder) }
        await fuzz(try SchedulingRPCService(configuration: .init(dataDirectory: folder), logger: Self.logger),
                   seeds: FuzzCorpus.scheduling, name: "scheduling")
    }

    @Test("caredata") func caredata() async throws {
        let folder = try Self.folder("caredata")
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = CareDataConfiguration(dataDirectory: folder, trefle: .init(token: nil))
        await fuzz(try CareDataRPCService(configuration: configuration, logger: Self.logger),
                   seeds: FuzzCorpus.caredata, name: "caredata")
    }

    @Test("identification") func identification() async throws {
        let folder = try Self.folder("identification")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = IdentificationConfiguration(dataDirectory: folder, plantnet: .init(apiKey: nil))
        configuration.offline = true
        await fuzz(IdentificationRPCService(identifier: Identifier(configuration: configuration)),
                   seeds: FuzzCorpus.identification, name: "identification")
    }
}

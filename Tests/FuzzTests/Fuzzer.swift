import Foundation
import PlantGuideProtos
@testable import PlantGuideRPC
import PlantGuideTestSupport

/// A structured fuzzer over one service's methods, in process: it runs the seeds, then mutated requests (with
/// mutated metadata now and then) through ``RPCRouter/invoke(_:payload:metadata:timeout:logger:)``, and records
/// every answer that breaks the contract: UNKNOWN or INTERNAL (an error that escaped the status mapping), or a
/// message that hands out internals. A crash ends the process, and with it the test run.
struct Fuzzer {
    struct Finding: CustomStringConvertible {
        let path: String
        let code: RPCError.Code
        let message: String
        let request: Data

        var description: String {
            "\(path): \(code) \"\(message)\" for request \(request.prefix(64).map { String(format: "%02x", $0) }.joined())"
        }
    }

    struct Report {
        var iterations = 0
        var codes: [String: Int] = [:]
        var findings: [Finding] = []
    }

    let router: RPCRouter
    let seeds: [FuzzCorpus.Seed]
    var mutator: WireMutator
    private var random: SplitMix64

    init(router: RPCRouter, seeds: [FuzzCorpus.Seed], seed: UInt64) {
        self.router = router
        self.seeds = seeds
        mutator = WireMutator(seed: seed)
        random = SplitMix64(seed: seed ^ 0x5eed)
    }

    /// Runs the seeds, then mutations until `iterations` calls were made or `deadline` passed.
    mutating func run(iterations: Int, until deadline: ContinuousClock.Instant) async -> Report {
        var report = Report()
        for seed in seeds { await call(seed.path, seed.request, metadata: Self.user, into: &report) }
        while report.iterations < iterations && ContinuousClock.now < deadline {
            let seed = seeds[random.next(below: seeds.count)]
            let other = seeds[random.next(below: seeds.count)]
            let request = mutator.mutate(seed.request, splicingWith: other.request)
            await call(seed.path, request, metadata: metadata(), into: &report)
        }
        return report
    }

    static let user = [RPCServerContext.userIDKey: "u1"]

    private mutating func metadata() -> [String: String] {
        switch random.next(below: 12) {
        case 0: [:]
        case 1: [RPCServerContext.userIDKey: ""]
        case 2: [RPCServerContext.userIDKey: String(repeating: "u", count: 5_000)]
        case 3: [RPCServerContext.userIDKey: "u2"]
        case 4: [RPCServerContext.userIDKey: "u1\u{0}x", "idempotency-key": "\u{ff}"]
        default: Self.user
        }
    }

    private func call(_ path: String, _ request: Data, metadata: [String: String], into report: inout Report) async {
        let outcome = await router.invoke(path, payload: request, metadata: metadata, timeout: .seconds(10))
        report.iterations += 1
        let code = outcome.error?.code ?? .ok
        report.codes[code.name, default: 0] += 1
        guard let error = outcome.error else { return }
        let leaks = ["SQLite", "SELECT ", "INSERT ", "/tmp/", "NSCocoaErrorDomain", "Error Domain=", "malformedProtobuf"]
        if code == .unknown || code == .internal || leaks.contains(where: error.message.contains) {
            report.findings.append(Finding(path: path, code: code, message: error.message, request: request))
        }
        // The contract's promise (error_details.proto): a program can always tell which field was wrong, and
        // whether and when to retry an overload or an outage.
        let wire = RPCError(wireStatus: error.wireStatus)
        let unnamedField = code == .invalidArgument
            && (wire.details.fieldViolations.isEmpty || wire.details.fieldViolations.contains { $0.field.isEmpty || $0.reason.rawValue.isEmpty })
        let noReason = (code == .resourceExhausted || code == .unavailable) && wire.details.info == nil
        if unnamedField || noReason {
            report.findings.append(Finding(path: path, code: code, message: "details missing: \(error.message)", request: request))
        }
    }
}

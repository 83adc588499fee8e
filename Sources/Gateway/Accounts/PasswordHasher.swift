import CSodium
import Foundation
import PlantGuideCore
import PlantGuideRPCCore
import PlantGuideThreads
import Synchronization

/// Hashes and checks passwords with Argon2id (libsodium's `crypto_pwhash_str`) at OWASP's parameters: 19 MiB of
/// memory and two passes, about 30 ms of one core each.
///
/// That cost is the point, so it must not land on the gateway's other work: hashing runs on threads of its own
/// (``threads``, at most one per core) at nice 10, so that the gateway's other calls take the cores first when both
/// want them; and beyond ``maxWaiting`` hashes queued a sign-in is refused at once with RESOURCE_EXHAUSTED, so a
/// flood of sign-ins cannot queue without bound or starve the cooperative pool.
final class PasswordHasher: Sendable {
    /// OWASP's Password Storage Cheat Sheet, Argon2id: m=19 MiB, t=2, p=1 (libsodium's parallelism is 1).
    static let memoryLimit = 19 * 1_024 * 1_024
    static let passes: UInt64 = 2

    private let threads: WorkerThreads
    private let maxWaiting: Int
    private let waiting = Atomic<Int>(0)
    private let checks = Atomic<Int>(0)
    /// A hash of a password no one has, checked for names that have no account so that an unknown name costs as
    /// much time as a wrong password (no account enumeration by timing). Made on first use, on ``threads``.
    private let decoy = Mutex<String?>(nil)

    /// - Parameters:
    ///   - threads: how many hashes may run at once (default: one per core).
    ///   - maxWaiting: how many may wait beyond those before new ones are refused.
    init(threads count: Int = ProcessInfo.processInfo.activeProcessorCount, maxWaiting: Int = 64) {
        threads = WorkerThreads(count: max(1, count), name: "plantguide-password", niceness: 10)
        self.maxWaiting = max(1, maxWaiting)
    }

    /// The Argon2id string of `password` (algorithm, parameters, salt and hash, as libsodium encodes them).
    /// - Throws: RESOURCE_EXHAUSTED when too many hashes wait; INTERNAL when libsodium fails (out of memory).
    func hash(_ password: String) async throws -> String {
        guard let encoded = try await run({ Self.hashNow(password) }) else {
            throw RPCError(.internal, "hashing the password failed")
        }
        return encoded
    }

    /// Whether `password` matches `encoded` (a string from ``hash(_:)``); with no `encoded`, checks against the
    /// decoy and answers false, in the same time.
    func verify(_ password: String, against encoded: String?) async throws -> Bool {
        let matches = try await run { [self] in
            let target = encoded ?? decoy.withLock { made in
                if made == nil { made = Self.hashNow(AccountStore.randomHex(bytes: 16)) }
                return made ?? ""
            }
            checks.add(1, ordering: .relaxed)
            return Self.verifyNow(password, against: target)
        }
        return matches && encoded != nil
    }

    /// How many passwords were checked, decoy checks included: an unknown name costs one, as a wrong password does.
    var checkCount: Int { checks.load(ordering: .relaxed) }

    private func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async throws -> Result {
        let before = waiting.add(1, ordering: .relaxed).oldValue
        defer { waiting.subtract(1, ordering: .relaxed) }
        guard before < maxWaiting else {
            throw RPCError(.resourceExhausted, "too many sign-ins at once: try again in a moment")
        }
        return await withCheckedContinuation { continuation in
            threads.submit { continuation.resume(returning: work()) }
        }
    }

    private static func hashNow(_ password: String) -> String? {
        var output = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
        let status = password.withCString { bytes in
            crypto_pwhash_str_alg(&output, bytes, UInt64(strlen(bytes)), passes, memoryLimit, crypto_pwhash_ALG_ARGON2ID13)
        }
        guard status == 0 else { return nil }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func verifyNow(_ password: String, against encoded: String) -> Bool {
        password.withCString { bytes in
            encoded.withCString { crypto_pwhash_str_verify($0, bytes, UInt64(strlen(bytes))) == 0 }
        }
    }
}

import Foundation
import PlantGuideThreads

/// Resolves host names to numeric addresses with the system's resolver (getaddrinfo, as libcurl does), on a thread
/// of its own: a lookup blocks, and must never hold one of Swift's cooperative threads.
public enum HostResolver {
    /// Why a name could not be resolved.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// Whether asking again later may succeed (the resolver was unreachable), as opposed to "no such name".
        public var isTemporary: Bool
        public var description: String
    }

    /// Every address `host` resolves to ("127.0.0.1", "::1"); numeric hosts in any spelling getaddrinfo takes
    /// ("2130706433", "127.1", "0x7f.1", "[::ffff:127.0.0.1]") come back as the address they stand for.
    /// - Throws: ``Failure``.
    public static func addresses(of host: String) async throws -> [String] {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return try await withCheckedThrowingContinuation { continuation in
            Thread(named: "plantguide-resolve") {
                continuation.resume(with: resolve(name))
            }.start()
        }
    }

    private static func resolve(_ name: String) -> Result<[String], any Error> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0 else {
            let temporary = status == EAI_AGAIN || status == EAI_SYSTEM || status == EAI_MEMORY
            return .failure(Failure(isTemporary: temporary, description: "cannot resolve \(name): \(String(cString: gai_strerror(status)))"))
        }
        var addresses: [String] = []
        var entry = list
        while let current = entry {
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            if let address = current.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                        var bytes = inet.pointee.sin_addr
                        _ = inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count))
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                        var bytes = inet6.pointee.sin6_addr
                        _ = inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count))
                    }
                default: break
                }
            }
            let address = String(cString: text)
            if !address.isEmpty && !addresses.contains(address) { addresses.append(address) }
            entry = current.pointee.ai_next
        }
        return .success(addresses)
    }
}

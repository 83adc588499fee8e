import Foundation

/// Resolves a host name to every address it has (getaddrinfo), as tcp endpoints. Blocking: the client calls it
/// from its resolver thread, never from a socket-owning thread.
enum DNSResolver {
    static func endpoints(host: String, port: Int) -> Result<[String], RPCError> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            return .failure(RPCError(.unavailable, "cannot resolve \(host): \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(list) }
        var found: [String] = []
        var node: UnsafeMutablePointer<addrinfo>? = list
        while let current = node {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(current.pointee.ai_addr, current.pointee.ai_addrlen, &buffer, socklen_t(buffer.count),
                           nil, 0, NI_NUMERICHOST) == 0 {
                let address = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let endpoint = RPCTarget.tcpEndpoint(host: address, port: port)
                if !found.contains(endpoint) { found.append(endpoint) }
            }
            node = current.pointee.ai_next
        }
        return found.isEmpty ? .failure(RPCError(.unavailable, "\(host) has no address")) : .success(found.sorted())
    }
}

import Foundation

/// The address a request over HTTP comes from, as failed sign-ins count against it (``SignInBackoff``).
///
/// The HTTP front knows the connection's peer. Behind a proxy (a TLS terminator, an Ingress, a load balancer) that
/// peer is the proxy for everyone, so the front believes `X-Forwarded-For` from the proxies it is told to trust, and
/// from no one else: a client cannot pick its own address. An IPv6 client counts by its /64, the block one
/// subscriber gets, so that stepping through the addresses of one's own block does not reset the count.
///
/// Calls over RPC carry no address (``HTTPRequestFacts``): their callers are programs, which count per account
/// name only.
public struct ClientAddresses: Sendable, Equatable {
    /// Peers whose `X-Forwarded-For` is believed.
    public var trustedProxies: [AddressRange]

    public init(trustedProxies: [AddressRange] = []) {
        self.trustedProxies = trustedProxies
    }

    /// The client's address as a back-off key ("203.0.113.7", "2001:db8:1:2::/64"), or nil when the peer is unknown.
    /// - Parameters:
    ///   - peer: the connection's remote IP address.
    ///   - forwardedFor: the `X-Forwarded-For` header values, in order.
    func client(peer: String?, forwardedFor: [String]) -> String? {
        guard let peer, var address = IPAddress(peer) else { return nil }
        if isTrusted(address) {
            // Each proxy appends the address it was reached from: from the right, the first one not trusted is the
            // client; when every hop is trusted, the leftmost is.
            let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
            for hop in hops.reversed() {
                guard let hopAddress = IPAddress(hop) else { break }  // a garbled hop: stop at the last one understood
                address = hopAddress
                if !isTrusted(hopAddress) { break }
            }
        }
        return address.backoffKey
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }
}

/// An IPv4 or IPv6 address as its bytes; an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is its IPv4 address.
struct IPAddress: Sendable, Equatable {
    let bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            let all = withUnsafeBytes(of: &v6) { Array($0) }
            bytes = all.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] ? Array(all.suffix(4)) : all
        } else {
            return nil
        }
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// IPv4: the address; IPv6: its /64 prefix.
    var backoffKey: String {
        guard bytes.count == 16 else { return text }
        return IPAddress(bytes: Array(bytes.prefix(8)) + Array(repeating: 0, count: 8)).text + "/64"
    }

    var text: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// An address block, "10.0.0.0/8", "fd00::/8", or one address, "127.0.0.1".
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    private let network: IPAddress
    private let prefixLength: Int

    /// Nil for text that is not an address or a block with a prefix length its family allows.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let network = IPAddress(String(parts[0])) else { return nil }
        // An IPv4-mapped block (::ffff:10.0.0.0/104) is the IPv4 block it maps.
        let mapped = network.bytes.count == 4 && parts[0].contains(":")
        let bits = mapped ? 128 : network.bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
            prefixLength = mapped ? max(0, length - 96) : length
        } else {
            prefixLength = network.bytes.count * 8
        }
        self.network = network
    }

    func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        var left = prefixLength
        for (byte, networkByte) in zip(address.bytes, network.bytes) where left > 0 {
            let mask = left >= 8 ? UInt8(0xFF) : UInt8(0xFF) << (8 - left)
            if byte & mask != networkByte & mask { return false }
            left -= 8
        }
        return true
    }

    public var description: String { "\(network.text)/\(prefixLength)" }
}

@testable import Gateway
import Testing

/// Which address a request over HTTP counts as, behind trusted proxies or none.
@Suite("Gateway: the client address of an HTTP request")
struct ClientAddressTests {
    @Test("without trusted proxies the peer is the client, whatever X-Forwarded-For says")
    func noProxy() {
        let addresses = ClientAddresses()
        #expect(addresses.client(peer: "192.0.2.10", forwardedFor: ["198.51.100.1"]) == "192.0.2.10")
        #expect(addresses.client(peer: nil, forwardedFor: ["198.51.100.1"]) == nil)
        #expect(addresses.client(peer: "not an address", forwardedFor: []) == nil)
    }

    @Test("behind trusted proxies the rightmost untrusted hop is the client; what the client wrote to the left is ignored")
    func trustedProxies() throws {
        let addresses = ClientAddresses(trustedProxies: [try #require(AddressRange("10.0.0.0/8")), try #require(AddressRange("127.0.0.1"))])
        #expect(addresses.client(peer: "127.0.0.1", forwardedFor: ["198.51.100.1"]) == "198.51.100.1")
        // The client sent "X-Forwarded-For: 1.2.3.4" itself; the edge proxy appended its real address, then an inner one.
        #expect(addresses.client(peer: "10.1.2.3", forwardedFor: ["1.2.3.4, 198.51.100.1", "10.9.9.9"]) == "198.51.100.1")
        #expect(addresses.client(peer: "10.1.2.3", forwardedFor: ["10.0.0.5, 10.0.0.6"]) == "10.0.0.5", "all trusted: the leftmost")
        #expect(addresses.client(peer: "10.1.2.3", forwardedFor: []) == "10.1.2.3", "no header: the proxy itself")
        #expect(addresses.client(peer: "10.1.2.3", forwardedFor: ["198.51.100.1, garbage"]) == "10.1.2.3",
                "a garbled hop ends the walk at the last hop understood")
        #expect(addresses.client(peer: "192.0.2.10", forwardedFor: ["198.51.100.1"]) == "192.0.2.10", "an untrusted peer's header is ignored")
    }

    @Test("an IPv6 client counts by its /64; an IPv4-mapped address is its IPv4 address")
    func ipv6() throws {
        let addresses = ClientAddresses(trustedProxies: [try #require(AddressRange("::1"))])
        #expect(addresses.client(peer: "2001:db8:1:2:aaaa::1", forwardedFor: []) == "2001:db8:1:2::/64")
        #expect(addresses.client(peer: "2001:db8:1:2:bbbb::7", forwardedFor: []) == "2001:db8:1:2::/64")
        #expect(addresses.client(peer: "::ffff:192.0.2.10", forwardedFor: []) == "192.0.2.10")
        #expect(addresses.client(peer: "::1", forwardedFor: ["2001:db8::5"]) == "2001:db8::/64")
    }

    @Test("address blocks: prefixes by family, bad text refused")
    func ranges() throws {
        func range(_ text: String, contains address: String) throws -> Bool {
            try #require(AddressRange(text)).contains(try #require(IPAddress(address)))
        }
        #expect(try range("192.168.0.0/16", contains: "192.168.40.1"))
        #expect(try !range("192.168.0.0/16", contains: "192.169.0.1"))
        #expect(try !range("192.168.0.0/16", contains: "::1"), "another family is never inside")
        #expect(try range("10.0.0.0/12", contains: "10.15.255.255"))
        #expect(try !range("10.0.0.0/12", contains: "10.16.0.0"))
        #expect(try range("::ffff:10.0.0.0/104", contains: "10.200.0.1"))
        #expect(try range("fd00::/8", contains: "fd12::1"))
        #expect(try range("0.0.0.0/0", contains: "203.0.113.1"))
        for bad in ["", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "example.org", "10.0.0/8", "10.0.0.0/x"] {
            #expect(AddressRange(bad) == nil, "\(bad)")
        }
    }
}

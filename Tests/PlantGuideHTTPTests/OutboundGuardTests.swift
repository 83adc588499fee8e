import Foundation
import PlantGuideHTTP
import PlantGuideTestSupport
import Testing

/// The outbound guard for URLs users give (webhooks, push services): no loopback, private, link-local or
/// reserved address, checked before the socket opens.
@Suite("The HTTP client's outbound guard", .cleansUp)
struct OutboundGuardTests {
    private let client = CurlHTTPClient()

    @Test("public addresses pass; loopback, private, link-local, CGNAT, multicast, documentation and unspecified ones do not")
    func addresses() {
        let refused = ["127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
                       "224.0.0.1", "255.255.255.255", "192.0.2.10", "198.51.100.1", "203.0.113.5", "198.18.0.1", "::1", "::", "fe80::1",
                       "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:10.0.0.1", "::ffff:127.0.0.1", "2001:db8::1", "not an address"]
        let allowed = ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "142.250.74.46", "2606:4700:4700::1111", "::ffff:8.8.4.4"]
        for address in refused { #expect(!OutboundAddresses.publicOnly.allows(address), "\(address) passed") }
        for address in allowed { #expect(OutboundAddresses.publicOnly.allows(address), "\(address) was refused") }
        #expect(OutboundAddresses.publicOrLoopback.allows("127.0.0.1") && OutboundAddresses.publicOrLoopback.allows("::1"))
        #expect(!OutboundAddresses.publicOrLoopback.allows("10.0.0.1") && !OutboundAddresses.publicOrLoopback.allows("169.254.169.254"))
        #expect(OutboundAddresses.any.allows("10.0.0.1"))
    }

    @Test("a request to a loopback server under publicOnly fails at once and the server sees nothing; with loopback allowed it goes through")
    func refusesBeforeConnecting() async throws {
        let server = try FakeHTTPServer { _ in .reply(status: 204) }
        defer { server.stop() }
        let guarded = HTTPRequest(method: "POST", url: server.baseURL.appendingPathComponent("hook"), body: Data("{}".utf8), addresses: .publicOnly)
        await #expect(throws: HTTPClientError.self) { try await client.send(guarded, timeout: TestTime.scaled(.seconds(10))) }
        do {
            _ = try await client.send(guarded, timeout: TestTime.scaled(.seconds(10)))
        } catch let error as HTTPClientError {
            #expect(error.message.contains("not a public one"), "\(error.message)")
        }
        #expect(server.requests.isEmpty)
        // "localhost" resolves to loopback: a name is no way around the guard.
        let byName = HTTPRequest(url: URL(string: "http://localhost:\(server.baseURL.port!)/hook")!, addresses: .publicOnly)
        await #expect(throws: HTTPClientError.self) { try await client.send(byName, timeout: TestTime.scaled(.seconds(10))) }
        #expect(server.requests.isEmpty)
        var allowed = guarded
        allowed.addresses = .publicOrLoopback
        #expect(try await client.send(allowed, timeout: TestTime.scaled(.seconds(10))).status == 204)
        #expect(server.requests.count == 1)
    }
}

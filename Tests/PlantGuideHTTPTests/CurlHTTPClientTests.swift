import Foundation
import PlantGuideHTTP
import PlantGuideTestSupport
import Testing

@Suite("The HTTP client (libcurl) against a real local server", .cleansUp)
struct CurlHTTPClientTests {
    private let client = CurlHTTPClient()

    @Test("a GET carries its headers; the answer's status, headers (lower-case) and body come back")
    func get() async throws {
        let server = try FakeHTTPServer { request in
            .json(Data(#"{"path": "\#(request.path)"}"#.utf8), headers: ["X-Remaining": "12"])
        }
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("api/v1/species/sorbus")

        let response = try await client.get(url, headers: ["Authorization": "Bearer t"], timeout: TestTime.scaled(.seconds(10)))

        #expect(response.status == 200 && response.headers["x-remaining"] == "12" && response.headers["content-type"] == "application/json")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"path": "/api/v1/species/sorbus"}"#)
        #expect(server.requests.first?.headers["authorization"] == "Bearer t" && server.requests.first?.method == "GET")
    }

    @Test("a POST's body of 300 KB arrives intact, with no 100-continue pause")
    func post() async throws {
        let server = try FakeHTTPServer { _ in .reply(status: 201) }
        defer { server.stop() }
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

        let response = try await client.send(HTTPRequest(method: "POST", url: server.baseURL, headers: ["Content-Type": "application/octet-stream"],
                                                         body: body), timeout: TestTime.scaled(.seconds(10)))

        #expect(response.status == 201)
        #expect(server.requests.first?.body == body && server.requests.first?.headers["expect"] == nil)
    }

    /// The hazard this client avoids by not using URLSession: a request sent right after a server closed the
    /// previous connection (a retry after a 500) can reuse the closed socket's descriptor number, and libdispatch's
    /// sources, which URLSession drives libcurl with on Linux, can then miss its events (libdispatch#833).
    @Test("400 requests in a row, each on a new connection right after the last one closed, are all answered")
    func connectionAfterClose() async throws {
        let server = try FakeHTTPServer { _ in .reply(status: 500) }
        defer { server.stop() }
        for round in 0..<400 {
            let response = try await client.get(server.baseURL, headers: [:], timeout: TestTime.scaled(.seconds(20)))
            #expect(response.status == 500, "round \(round)")
        }
        #expect(server.requests.count == 400)
    }

    @Test("a server that never answers fails the request as timed out")
    func timeout() async throws {
        let server = try FakeHTTPServer { _ in .hang }
        defer { server.stop() }
        let error = await #expect(throws: HTTPClientError.self) {
            _ = try await client.get(server.baseURL, headers: [:], timeout: .milliseconds(300))
        }
        #expect(error?.code == .timedOut)
    }

    @Test("nobody listening is a transport error naming the host")
    func refused() async throws {
        let server = try FakeHTTPServer { _ in .reply(status: 200) }
        let url = server.baseURL
        server.stop()
        let error = await #expect(throws: HTTPClientError.self) { _ = try await client.get(url, headers: [:], timeout: .seconds(5)) }
        #expect(error?.code == .transport && error?.message.hasPrefix("cannot reach 127.0.0.1") == true)
    }

    @Test("a body over the limit fails the request instead of filling memory")
    func tooLarge() async throws {
        let server = try FakeHTTPServer { _ in .reply(status: 200, body: Data(count: 2_000)) }
        defer { server.stop() }
        let error = await #expect(throws: HTTPClientError.self) {
            _ = try await CurlHTTPClient(maxBodyBytes: 1_000).get(server.baseURL, headers: [:], timeout: .seconds(5))
        }
        #expect(error?.message.contains("over 1000 bytes") == true)
    }
}

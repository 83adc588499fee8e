import PlantGuideRPC
import Testing

@Suite("Parsing targets")
struct RPCTargetTests {
    @Test("endpoint lists and shorthands", arguments: [
        ("tcp://127.0.0.1:7003", RPCTarget.endpoints(["tcp://127.0.0.1:7003"])),
        ("127.0.0.1:7003", .endpoints(["tcp://127.0.0.1:7003"])),
        ("tcp://127.0.0.1:1,tcp://127.0.0.2:2", .endpoints(["tcp://127.0.0.1:1", "tcp://127.0.0.2:2"])),
        ("tcp://[::1]:7003", .endpoints(["tcp://[::1]:7003"])),
        ("ipc:///tmp/pg.sock", .endpoints(["ipc:///tmp/pg.sock"])),
        ("dns:///plantguide-identification:7001", .dns(host: "plantguide-identification", port: 7001)),
        ("localhost:7003", .dns(host: "localhost", port: 7003)),
    ])
    func parses(text: String, expected: RPCTarget) throws {
        #expect(try RPCTarget(parsing: text) == expected)
    }

    @Test("bad targets are INVALID_ARGUMENT", arguments: [
        "", "tcp://127.0.0.1", "tcp://127.0.0.1:0", "tcp://127.0.0.1:70000", "tcp://a:1,tcp://b:2", "http://x",
    ])
    func rejects(text: String) {
        let error = #expect(throws: RPCError.self) { try RPCTarget(parsing: text) }
        #expect(error?.code == .invalidArgument)
    }
}

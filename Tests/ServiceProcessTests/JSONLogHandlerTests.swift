import Foundation
import Logging
@testable import PlantGuideServiceKit
import Testing

@Suite("JSON log lines")
struct JSONLogHandlerTests {
    private let time = Date(timeIntervalSince1970: 1_795_680_615.123_9)

    @Test("a line has time, level, service, message, the trace and span ids lifted out, and the rest as sorted metadata")
    func fields() throws {
        let line = JSONLogHandler.line(
            time: time, level: .warning, service: "plantguide-gateway", logger: "plantguide.rpc.client", message: "reply failed",
            metadata: ["plantguide.trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "plantguide.span_id": "00f067aa0ba902b7",
                       "b": "2", "a": .array(["x", .dictionary(["k": "v"])])])

        #expect(line == #"{"time":"2026-11-26T08:10:15.123Z","level":"warning","service":"plantguide-gateway","#
            + #""logger":"plantguide.rpc.client","message":"reply failed","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","#
            + #""span_id":"00f067aa0ba902b7","metadata":{"a":["x",{"k":"v"}],"b":"2"}}"#)
    }

    @Test("quotes, backslashes, newlines and control characters are escaped, and the line parses back to what was logged")
    func escaping() throws {
        let message = "a \"quoted\" path C:\\plants\nsecond line\t\u{01}\u{2028}é🌱"
        let line = JSONLogHandler.line(time: time, level: .info, service: "s", logger: "s", message: message, metadata: ["k\"ey": "v\n"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])

        #expect(!line.contains("\n") && object["message"] as? String == message)
        #expect((object["metadata"] as? [String: String])?["k\"ey"] == "v\n")
        #expect(object["logger"] == nil && object["trace_id"] == nil)
    }
}

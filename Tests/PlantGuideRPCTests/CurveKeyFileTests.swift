import PlantGuideRPC
import Testing

@Suite("CurveZMQ key files")
struct CurveKeyFileTests {
    @Test("keys may start with '#' or hold '=': a 40-character line is a key; comments, zcert lines and junk are told apart")
    func parsing() throws {
        let hashKey = "#" + String(repeating: "a", count: 38) + "="
        let text = """
            # a comment, skipped
            \(hashKey)

            public-key = "\(String(repeating: "b", count: 40))"
            """
        #expect(try CurveSecurity.keys(in: text, source: "t") == [hashKey, String(repeating: "b", count: 40)])
        let bad = #expect(throws: RPCError.self) { _ = try CurveSecurity.keys(in: "not a key", source: "f.pub") }
        #expect(bad?.message.contains("f.pub, line 1") == true)
    }

    @Test("a pair made here round-trips: the public key derived from the secret is the one generated")
    func derivation() throws {
        let pair = try CurveKeyPair.generate()
        #expect(try CurveKeyPair(secretKey: pair.secretKey) == pair)
        #expect(throws: RPCError.self) { _ = try CurveKeyPair(secretKey: "short") }
    }
}

import Foundation
import PlantGuideCore
import Testing

@Suite("JSON decoding problems in words")
struct DecodingProblemTests {
    private struct Answer: Decodable {
        struct Result: Decodable { var score: Double }
        var results: [Result]
        var name: String
    }

    @Test("the path and the problem, never a Swift type name", arguments: [
        (#"{"results": [{"score": "high"}], "name": "x"}"#, "at results[0].score: expected a number"),
        (#"{"results": []}"#, "at name: missing"),
        (#"{"results": [], "name": null}"#, "at name: expected a string, found null"),
        ("not json", "the body is not valid JSON"),
    ])
    func described(json: String, expected: String) throws {
        let error = #expect(throws: DecodingError.self) { try JSONDecoder().decode(Answer.self, from: Data(json.utf8)) }
        let text = DecodingProblem.describe(try #require(error))
        #expect(text == expected)
        #expect(!text.contains("Swift") && !text.contains("CodingKeys") && !text.contains("Double"))
    }
}

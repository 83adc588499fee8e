@testable import Gateway
import Mustache
import Testing

@Suite("HTML escaping of the web app's templates")
struct HTMLEscapingTests {
    @Test("the five characters as swift-mustache escapes them, in any text; a text without them as it is")
    func sameAsMustache() throws {
        let samples = ["", "Fig", "<script>alert('fig')</script>", "Tom & Jerry's \"café\" > 3 < 4", "ünïcödé 🌿 <b>", "p1|watering|2026-11-27"]
        let plain = try MustacheTemplate(string: "{{value}}")
        for sample in samples {
            #expect(HTMLEscaping.escaped(sample) == plain.render(["value": sample]), "\(sample)")
        }
    }

    @Test("a template with the pragma parses (only a registered content type does) and escapes; marked matches stay marked and escaped")
    func pragma() throws {
        HTMLEscaping.registered
        let template = try MustacheTemplate(string: "{{% CONTENT_TYPE: \(HTMLEscaping.contentTypeName)}}\n<p>{{value}}</p>{{{marked}}}")
        let html = template.render(["value": "<fig>", "marked": WebApp.highlighted("Fig tree <fig>", query: "fig")])
        #expect(html == "<p>&lt;fig&gt;</p><mark>Fig</mark> tree &lt;<mark>fig</mark>&gt;", "\(html)")
    }
}

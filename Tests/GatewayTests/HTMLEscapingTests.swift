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

    @Test("a task's row and a plant's card escape every value they show, in text and in attributes")
    func rows() {
        let hostile = "<script>\"x\"&'y'</script>"
        let row = WebRows.Task(id: "p1|\"><b>", what: "Water", plant: hostile, when: "due <today>", overdue: true,
                               doneLabel: "Done<", snoozeLabel: "Tomorrow", skipLabel: "Skip").html
        #expect(!row.contains("<script>") && !row.contains("<b>") && !row.contains("<today>") && !row.contains("Done<"), "\(row)")
        #expect(row.contains("id=\"task-p1|&quot;&gt;&lt;b&gt;\" class=\"task overdue\"") && row.contains("value=\"&lt;script&gt;&quot;x&quot;"), "\(row)")
        #expect(row.components(separatedBy: "<form method=\"post\"").count == 4 && row.contains(": Water &lt;script&gt;"), "three buttons, labelled: \(row)")
        let card = WebRows.PlantCard(id: "a\"b", name: WebApp.highlighted(hostile, query: "x"), scientificName: "Ficus", favorite: true,
                                     photo: (src: "/v1/photos/ab?size=256", width: 256, height: 192), favoriteLabel: "<Fav>").html
        #expect(!card.contains("<script>") && card.contains("href=\"/plants/a&quot;b\"") && card.contains("★ &lt;Fav&gt;"), "\(card)")
        #expect(card.contains("<mark>x</mark>") && card.contains("width=\"256\" height=\"192\""), "\(card)")
    }
}

import ArgumentParser
import Foundation

/// `plantguide care SPECIES`: how to care for a species.
struct CareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "care", abstract: "How to care for a species.")
    @Argument(help: "A scientific name, e.g. \"Ficus lyrata\", or a common name the offline catalog knows.") var species: String
    @Flag(help: "Print the gateway's JSON.") var json = false

    func run() async throws {
        try await runApp {
            let escaped = species.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? species
            let body = try await GatewayClient(try AppConfiguration.load()).call("GET", "/v1/care/\(escaped)")
            if json { return TextTable.printJSON(body) }
            let care = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["careInfo"] as? [String: Any] ?? [:]
            let common = (care["commonNames"] as? [String])?.first.map { " (\($0))" } ?? ""
            print("\(care["scientificName"] as? String ?? species)\(common), from \(CareWords.source(care["source"]))")
            let rows = CareWords.rows(care)
            TextTable.print(header: ["CARE", "ADVICE", "FROM"], rows: rows, style: { row, column in
                column == 2 && rows[row][2] == "default" ? .dim : nil
            })
            if rows.contains(where: { $0[2] == "default" }) {
                print("(\"default\": no source has it for this species; the notes say what stands in)")
            }
            for note in care["notes"] as? [String] ?? [] { print("- \(note)") }
        }
    }
}

/// `plantguide identify PHOTO...`: names the plant in one to five photos.
struct IdentifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "identify", abstract: "Name the plant in one to five photos of it.")
    @Argument(help: "JPEG, PNG, WebP or HEIC photos of the same plant.") var photos: [String]
    @Flag(help: "Print the gateway's JSON.") var json = false

    func run() async throws {
        try await runApp {
            let images = try photos.map { ["data": try Data(contentsOf: URL(fileURLWithPath: $0)).base64EncodedString()] }
            let body = try await GatewayClient(try AppConfiguration.load()).call("POST", "/v1/identifications", json: ["images": images],
                                                                                  progress: "uploading")
            if json { return TextTable.printJSON(body) }
            let answer = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["identification"] as? [String: Any] ?? [:]
            if answer["noPlantRecognized"] as? Bool == true { return print("no plant recognised") }
            let candidates = answer["candidates"] as? [[String: Any]] ?? []
            let scores = candidates.map { $0["score"] as? Double ?? 0 }
            TextTable.print(header: ["SCORE", "SPECIES", "COMMON NAME"], rows: candidates.map {
                [String(format: "%.2f", $0["score"] as? Double ?? 0), $0["scientificName"] as? String ?? "",
                 ($0["commonNames"] as? [String])?.first ?? ""]
            }, style: { row, column in
                guard column == 0 else { return nil }
                return scores[row] >= 0.7 ? .green : scores[row] < 0.2 ? .dim : nil
            })
            if answer["lowConfidence"] as? Bool == true { print("(a guess: the best score is low)") }
        }
    }
}

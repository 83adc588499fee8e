/// Pl@ntNet's identify response (API v2), as recorded in both its current form (`bestMatch`, `version`, numeric
/// ids, `powo`) and its older one (no `bestMatch`, `gbif.id` a string). Only the fields PlantGuide reads.
struct PlantNetResponse: Decodable {
    var bestMatch: String?
    var results: [Result]
    var remainingIdentificationRequests: Int?
    var version: String?

    struct Result: Decodable {
        var score: Double
        var species: Species
        var gbif: ExternalID?
        var powo: ExternalID?
    }

    struct Species: Decodable {
        var scientificNameWithoutAuthor: String
        var genus: Taxon?
        var family: Taxon?
        var commonNames: [String]?
    }

    struct Taxon: Decodable {
        var scientificNameWithoutAuthor: String?
    }

    /// `{"id": "3189636"}` or `{"id": 3189636}`.
    struct ExternalID: Decodable {
        var id: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            if let text = try? container.decode(String.self, forKey: .id) {
                id = text
            } else if let number = try? container.decode(Int64.self, forKey: .id) {
                id = String(number)
            }
        }

        enum Keys: String, CodingKey { case id }
    }
}

/// Pl@ntNet's error body: `{"statusCode": 404, "error": "Not Found", "message": "Species not found"}`.
struct PlantNetErrorBody: Decodable {
    var message: String?
    var error: String?
}

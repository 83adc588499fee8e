import Foundation
import PlantGuideCore

/// Every word the web app shows, one catalog per language (`WebAssets/strings/LANGUAGE.json`), chosen by the
/// browser's `Accept-Language`; English is the default and the reference every other catalog must match key for key.
/// How a task is worded ("task.watering": "Water") comes from ``PlantGuideCore/TaskWords``, which Web Push
/// notifications word tasks from too.
struct WebStrings: Sendable {
    /// Language code → its strings.
    let catalogs: [String: [String: String]]

    static let languages = ["en", "es"]

    /// Reads the catalogs from the gateway's resources.
    /// - Throws: when one is missing, is not a JSON object of strings, or lacks a key English has.
    static func load() throws -> WebStrings {
        var catalogs: [String: [String: String]] = [:]
        for language in languages {
            guard let url = Bundle.module.url(forResource: "WebAssets/strings/\(language)", withExtension: "json"),
                  let catalog = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: String] else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: "\(language).json"])
            }
            catalogs[language] = catalog.merging(TaskWords.keys.map { ("task.\($0)", TaskWords.phrase(key: $0, language: language)) }) { $1 }
        }
        let reference = Set(catalogs["en"]?.keys ?? [:].keys)
        for (language, catalog) in catalogs where Set(catalog.keys) != reference {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: "\(language).json: keys differ from en.json"])
        }
        return WebStrings(catalogs: catalogs)
    }

    /// The catalog for the first language of `acceptLanguage` ("es-ES,es;q=0.9,en;q=0.8") that has one, else English.
    func catalog(acceptLanguage: String?) -> [String: String] {
        let wanted = (acceptLanguage ?? "").split(separator: ",").compactMap { part -> (String, Double)? in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first, !tag.isEmpty else { return nil }
            let quality = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (String(tag.prefix { $0 != "-" }).lowercased(), quality)
        }
        let best = wanted.filter { $0.1 > 0 }.sorted { $0.1 > $1.1 }.first { catalogs[$0.0] != nil }
        return catalogs[best?.0 ?? "en"] ?? catalogs["en"] ?? [:]
    }
}

extension Dictionary where Key == String, Value == String {
    /// The string `key` with each `{name}` replaced by `values[name]`.
    func format(_ key: String, _ values: [String: String] = [:]) -> String {
        values.reduce(self[key] ?? key) { text, value in text.replacingOccurrences(of: "{\(value.key)}", with: value.value) }
    }
}

import Foundation
import PlantGuideCore

/// The offline catalog of common species shipped with PlantGuide (`Resources/catalog.psv`, whose header explains
/// the columns): the answer when Trefle is not configured or fails and nothing is cached.
public struct CareCatalog: Sendable {
    /// A catalog species and what kind of plant it is.
    public struct Species: Sendable {
        public var care: CareInfo
        /// house, balcony, garden, herb or vegetable.
        public var category: String
    }

    /// The catalog's version line date: what `fetchedAt` of its answers says.
    public let writtenAt: Date
    public let species: [Species]
    private let byKey: [String: Int]
    private let byGenus: [String: Int]
    private let byCommonName: [String: Int]

    /// The catalog shipped in this module's resources.
    /// - Throws: `CatalogError` naming the line when the file is malformed.
    public static func bundled() throws -> CareCatalog {
        try CareCatalog(parsing: try bundledText())
    }

    /// The text of the shipped catalog.
    static func bundledText() throws -> String {
        guard let url = Bundle.module.url(forResource: "catalog", withExtension: "psv"),
              let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw CatalogError(line: 0, message: "catalog.psv is missing from the CareData resources")
        }
        return text
    }

    /// Parses catalog text (see `Resources/catalog.psv`).
    public init(parsing text: String) throws {
        var parsed: [Species] = []
        var written = Date(timeIntervalSince1970: 0)
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#") {
                if let date = Self.versionDate(in: trimmed) { written = date }
                continue
            }
            if trimmed.isEmpty { continue }
            parsed.append(try CatalogLine.parse(trimmed, line: index + 1))
        }
        for index in parsed.indices { parsed[index].care.fetchedAt = written }
        writtenAt = written
        species = parsed
        byKey = Dictionary(parsed.enumerated().map { ($1.care.scientificName.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        byGenus = Dictionary(parsed.enumerated().map { ($1.care.genus.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        byCommonName = Dictionary(parsed.enumerated().flatMap { index, species in species.care.commonNames.map { (Self.fold($0), index) } },
                                  uniquingKeysWith: { first, _ in first })
    }

    /// The entry of a scientific name (any spelling `ScientificName` normalises).
    public func care(for scientificName: String) -> CareInfo? {
        guard let key = CareCache.key(for: scientificName), let index = byKey[key] else { return nil }
        return species[index].care
    }

    /// The entry one of whose common names is `name` (case and accents aside): "swiss cheese plant".
    public func care(forCommonName name: String) -> CareInfo? {
        let folded = Self.fold(name.split(whereSeparator: \.isWhitespace).joined(separator: " "))
        return byCommonName[folded].map { species[$0].care }
    }

    /// The first entry of a genus, as a stand-in for an unknown species of it.
    public func care(forGenus genus: String) -> CareInfo? {
        byGenus[genus.lowercased()].map { species[$0].care }
    }

    /// Species whose scientific name, common names or family contain every word of `query` (case- and
    /// diacritic-insensitive, word prefixes), best first: scientific-name matches, then common names.
    public func search(_ query: String) -> [CareInfo] {
        let words = Self.fold(query).split(separator: " ").map(String.init)
        guard !words.isEmpty else { return [] }
        var scored: [(score: Int, care: CareInfo)] = []
        for entry in species {
            let care = entry.care
            let scientific = Self.fold(care.scientificName)
            let haystack = ([scientific] + care.commonNames.map(Self.fold) + [Self.fold(care.family)]).joined(separator: " | ")
            let tokens = haystack.split(whereSeparator: { $0 == " " || $0 == "|" || $0 == "-" || $0 == "'" })
            guard words.allSatisfy({ word in tokens.contains { $0.hasPrefix(word) } }) else { continue }
            let score = scientific.hasPrefix(words.joined(separator: " ")) ? 0 : words.allSatisfy(scientific.contains) ? 1 : 2
            scored.append((score, care))
        }
        return scored.sorted { ($0.score, $0.care.scientificName) < ($1.score, $1.care.scientificName) }.map(\.care)
    }

    /// Lower-cased, without diacritics, `×` as x.
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).replacingOccurrences(of: "×", with: "x")
    }

    private static func versionDate(in comment: String) -> Date? {
        guard comment.contains("version"), let open = comment.firstIndex(of: "("), let close = comment.firstIndex(of: ")"),
              open < close else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.date(from: String(comment[comment.index(after: open)..<close]))
    }
}

/// A malformed catalog line.
public struct CatalogError: Error, CustomStringConvertible {
    public var line: Int
    public var message: String

    public var description: String { "catalog.psv line \(line): \(message)" }
}

/// A scientific plant name in canonical form: the key the care-data cache and the collection compare on.
///
/// `ScientificName("monstera  Deliciosa Liebm.")` is "Monstera deliciosa": whitespace collapsed, the genus
/// capitalised, the epithet and infraspecific parts lower-cased, and the author citation dropped.
public struct ScientificName: Hashable, Sendable, CustomStringConvertible {
    /// The canonical form, e.g. "Monstera deliciosa" or "Ficus elastica var. variegata".
    public let canonical: String

    /// Ranks that introduce an infraspecific epithet.
    private static let ranks: Set<String> = ["subsp.", "ssp.", "var.", "f.", "cv.", "subvar.", "nothosubsp."]

    /// Normalises `raw`; returns nil when it holds no name (empty, or no letter in the first word).
    public init?(_ raw: String) {
        let words = raw.split(whereSeparator: Self.isSpace).map(String.init)
        guard let genus = words.first, genus.contains(where: Self.isLetter) else { return nil }
        var parts = [genus.prefix(1).uppercased() + genus.dropFirst().lowercased()]
        var index = 1
        // A hybrid sign may stand before the epithet: "Citrus × limon".
        while index < words.count {
            let word = words[index]
            let lower = word.lowercased()
            if lower == "×" || lower == "x" {
                parts.append("×")
            } else if Self.ranks.contains(lower), index + 1 < words.count {
                parts.append(lower)
                parts.append(words[index + 1].lowercased())
                index += 1
            } else if parts.count == 1 || parts.last == "×", Self.isEpithet(word) {
                parts.append(lower)
            } else if word.hasPrefix("'") || word.hasPrefix("\u{2018}") {
                parts.append(words[index...].joined(separator: " "))  // a cultivar name keeps its case
                break
            } else {
                break  // an author citation ("L.", "Liebm.", "(Schott) Engl.") ends the name
            }
            index += 1
        }
        canonical = parts.joined(separator: " ")
    }

    /// The genus, e.g. "Monstera".
    public var genus: String { String(canonical.prefix { $0 != " " }) }

    public var description: String { canonical }

    /// The word after the genus is the epithet when it is letters (and hyphens) only, whatever its case; an
    /// author citation ("L.", "Liebm.", "(Schott)") carries a period or parenthesis.
    private static func isEpithet(_ word: String) -> Bool {
        word.allSatisfy { isLetter($0) || $0 == "-" }
    }

    // ASCII fast paths: Character's Unicode property lookups dominated the cost of parsing a name.
    private static func isSpace(_ character: Character) -> Bool {
        if let ascii = character.asciiValue { return ascii == 32 || (9...13).contains(ascii) }
        return character.isWhitespace
    }

    private static func isLetter(_ character: Character) -> Bool {
        if let ascii = character.asciiValue { return (65...90).contains(ascii) || (97...122).contains(ascii) }
        return character.isLetter
    }
}

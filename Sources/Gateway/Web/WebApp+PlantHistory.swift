import Foundation
import PlantGuideProtos

/// A plant's identification history on its page: when it was named, by what, and how sure that was.
extension WebApp {
    /// Each identification as a row ("27 Nov 2026, 20:41 UTC", "Pl@ntNet", "Hibiscus rosa-sinensis", "97% sure").
    static func history(_ records: [Plantguide_Collection_V1_IdentificationRecord], _ strings: [String: String]) -> [[String: String]] {
        records.map { record in
            let best = record.topResults.first
            return [
                "when": moment(record.identifiedAt, strings), "source": strings.format(sourceKey(record.source)),
                "name": best?.scientificName ?? "", "confidence": strings.format("confidence", ["percent": percent(record.confidence, strings)]),
            ]
        }
    }

    private static func sourceKey(_ source: Plantguide_Collection_V1_IdentificationSource) -> String {
        switch source {
        case .onDevice: "from.onDevice"
        case .plantnet: "from.plantnet"
        case .hybrid: "from.hybrid"
        case .manual: "from.manual"
        default: "from.unknown"
        }
    }
}

import Foundation
import PlantGuideProtos
import PlantGuideRPCCore
import SwiftProtobuf

/// Plants as rows, what both backends share: the display name, common names as JSON, times as seconds.
enum PlantRow {
    typealias Plant = Plantguide_Collection_V1_Plant

    /// The name a person sees: custom name, else first common name, else scientific name.
    static func displayName(of plant: Plant) -> String {
        if !plant.customName.isEmpty { return plant.customName }
        return plant.commonNames.first ?? plant.scientificName
    }

    static func encodeNames(_ names: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(names)) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// JSONSerialization rather than JSONDecoder: on Linux it is several times faster, and lists read this per row.
    static func decodeNames(_ text: String) -> [String] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String] ?? []
    }

    /// A stored time as a Timestamp, clamped into proto3's range: a row written by older code must never stop a
    /// read or an export.
    static func timestamp(_ seconds: Double) -> Google_Protobuf_Timestamp {
        WireTimestamp.clamped(seconds)
    }

    static func seconds(_ timestamp: Google_Protobuf_Timestamp) -> Double {
        Double(timestamp.seconds) + Double(timestamp.nanos) / 1e9
    }
}

import Foundation

extension CareInfo {
    /// Care that suits most houseplants (bright indirect light, weekly watering, monthly feeding in the growing
    /// season), for a species nothing knows, so that the plant still gets a schedule. Marked `default`, with a
    /// note that says it is generic and why.
    /// - Parameters:
    ///   - scientificName: the name asked for (empty when unknown).
    ///   - why: what was tried, for the note.
    public static func generic(scientificName: String, why: String, now: Date = Date()) -> CareInfo {
        CareInfo(
            scientificName: scientificName,
            notes: ["Generic houseplant care: no care data is known for this species (\(why)). "
                + "Watch the plant and adjust: water when the top few centimetres of soil are dry."],
            source: .default, fetchedAt: now)
    }
}

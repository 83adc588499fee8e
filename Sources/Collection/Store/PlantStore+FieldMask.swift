import PlantGuideProtos

extension PlantStore {
    /// A field a person may change, and how to copy it from an update's message into the stored plant.
    struct EditableField: Sendable {
        let copy: @Sendable (_ from: Plant, _ into: inout Plant) -> Void
    }

    /// The field of a mask path (snake_case as in the .proto, or lowerCamelCase as in JSON).
    /// - Throws: INVALID_ARGUMENT for a read-only or unknown path.
    static func editableField(for path: String) throws -> EditableField {
        switch path {
        case "scientific_name", "scientificName": EditableField { $1.scientificName = $0.scientificName }
        case "common_names", "commonNames": EditableField { $1.commonNames = $0.commonNames }
        case "family": EditableField { $1.family = $0.family }
        case "genus": EditableField { $1.genus = $0.genus }
        case "custom_name", "customName": EditableField { $1.customName = $0.customName }
        case "notes": EditableField { $1.notes = $0.notes }
        case "location": EditableField { $1.location = $0.location }
        case "favorite": EditableField { $1.favorite = $0.favorite }
        case "identification_source", "identificationSource": EditableField { $1.identificationSource = $0.identificationSource }
        case "identification_confidence", "identificationConfidence":
            EditableField { $1.identificationConfidence = $0.identificationConfidence }
        case "identified_at", "identifiedAt":
            EditableField { from, into in
                if from.hasIdentifiedAt { into.identifiedAt = from.identifiedAt } else { into.clearIdentifiedAt() }
            }
        case "id", "owner_id", "ownerId", "added_at", "addedAt", "updated_at", "updatedAt", "photos":
            throw CollectionError.invalidArgument("update_mask.paths", .immutable, "\(path) cannot be changed")
        default:
            throw CollectionError.invalidArgument("update_mask.paths", .unknownValue, "\(path) is not a field of Plant")
        }
    }
}

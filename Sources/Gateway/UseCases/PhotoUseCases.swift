import Foundation
import PlantGuideProtos
import PlantGuideRPCCore

/// A plant's photos: add, fetch (originals and thumbnails), remove; the collection keeps them per person.
struct PhotoUseCases: Sendable {
    typealias Collection = Plantguide_Collection_V1_CollectionService

    let services: Downstream

    func add(_ request: Plantguide_Gateway_V1_AddPlantPhotoRequest, as caller: Caller) async throws -> Plantguide_Gateway_V1_AddPlantPhotoResponse {
        guard !request.plantID.isEmpty else { throw RPCError.invalidArgument("plant_id", .required, "plant_id is required") }
        guard !request.data.isEmpty else { throw RPCError.invalidArgument("data", .required, "the photo is empty") }
        let stored = try await services.call(services.collection, Collection.putPhoto, .with {
            $0.plantID = request.plantID
            $0.kind = request.kind == .unspecified ? .captured : request.kind
            $0.data = request.data
        }, as: caller)
        return .with {
            $0.photo = stored.photo
            $0.deduplicated = stored.deduplicated
        }
    }

    func get(_ request: Plantguide_Gateway_V1_GetPhotoRequest, as caller: Caller) async throws -> Plantguide_Gateway_V1_GetPhotoResponse {
        let photo = try await services.call(services.collection, Collection.getPhoto, .with {
            $0.sha256 = request.sha256
            $0.thumbnailSize = request.size
        }, as: caller)
        return .with {
            $0.data = photo.data
            $0.mediaType = photo.mediaType
            $0.contentSha256 = photo.contentSha256
        }
    }

    func delete(_ request: Plantguide_Gateway_V1_DeletePlantPhotoRequest, as caller: Caller) async throws
        -> Plantguide_Gateway_V1_DeletePlantPhotoResponse
    {
        let removed = try await services.call(services.collection, Collection.deletePhoto, .with {
            $0.plantID = request.plantID
            $0.sha256 = request.sha256
        }, as: caller)
        return .with {
            $0.deleted = removed.deleted
            $0.filesRemoved = removed.filesRemoved
        }
    }
}

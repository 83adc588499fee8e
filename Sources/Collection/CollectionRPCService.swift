import Foundation
import Logging
import PlantGuideProtos
import PlantGuideRPCCore
import PlantGuideStorage

/// Configuration of plantguide-collection.
public struct CollectionConfiguration: Sendable {
    /// Holds `collection.sqlite` and the photo files (`photos/`) when the collection is in SQLite.
    public var dataDirectory: URL
    /// Largest photo accepted, in bytes. Default 15 MiB.
    public var maxPhotoBytes: Int = 15 << 20
    /// Largest export archive sent, in bytes (it must fit one RPC message). Default 16 MiB less 64 KiB.
    public var maxArchiveBytes: Int = (16 << 20) - (64 << 10)
    /// The current time (tests move it).
    public var now: @Sendable () -> Date = { Date() }

    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }

}

/// The RPC methods of plantguide-collection (see `Protos/plantguide/collection/v1/collection.proto`).
///
/// Every method reads the caller from the "plantguide-user-id" metadata (UNAUTHENTICATED without it) and sees only
/// that user's rows.
public struct CollectionRPCService: RPCService {
    public let plants: PlantStore
    public let history: HistoryStore
    public let photos: PhotoStore
    public let archiver: CollectionArchiver
    private let maxArchiveBytes: Int
    private let logger: Logger

    private let database: PostgresStorage?

    /// Opens (creating and migrating) the SQLite database and photo folder in the data folder.
    public init(configuration: CollectionConfiguration, logger: Logger) throws {
        try self.init(configuration: configuration, records: SQLiteCollection.open(folder: configuration.dataDirectory, logger: logger), logger: logger)
    }

    /// Serves the collection that `records` keep; `database`, when they are in PostgreSQL, tells health whether
    /// it answers.
    public init(configuration: CollectionConfiguration, records: any CollectionRecords, database: PostgresStorage? = nil, logger: Logger) {
        plants = PlantStore(records: records, now: configuration.now)
        history = HistoryStore(records: records)
        photos = PhotoStore(records: records, maxBytes: configuration.maxPhotoBytes, now: configuration.now)
        archiver = CollectionArchiver(records: records, photos: photos, now: configuration.now)
        maxArchiveBytes = configuration.maxArchiveBytes
        self.database = database
        self.logger = logger
    }

    public var isReady: Bool { database?.isReachable ?? true }

    /// Its handlers only await (the database's queue or pool, other services); hashing, thumbnails and archives run
    /// on ``BlockingWork``'s threads. So they run where the calls arrive, on the RPC I/O thread.
    public var handlerExecution: RPCHandlerExecution? { .ioThread }

    public func registerMethods(with router: inout RPCRouter) {
        typealias Methods = Plantguide_Collection_V1_CollectionService
        let plants = self.plants
        let history = self.history
        let photos = self.photos
        let archiver = self.archiver
        let maxArchiveBytes = self.maxArchiveBytes

        router.register(Methods.addPlant) { request, context in
            let (plant, created) = try await plants.add(request.plant, owner: try context.requireUserID())
            return .with {
                $0.plant = plant
                $0.created = created
            }
        }
        // A read of one row that only awaits the database: answered on the RPC I/O thread, with no hand-off.
        router.register(Methods.getPlant, runsOn: .ioThread) { request, context in
            let plant = try await plants.plant(id: request.id, owner: try context.requireUserID())
            return .with { $0.plant = plant }
        }
        router.register(Methods.updatePlant) { request, context in
            let plant = try await plants.update(request.plant, mask: request.updateMask, owner: try context.requireUserID())
            return .with { $0.plant = plant }
        }
        router.register(Methods.deletePlant) { request, context in
            let (deleted, photosRemoved) = try await plants.delete(id: request.id, owner: try context.requireUserID())
            return .with {
                $0.deleted = deleted
                $0.photosRemoved = UInt32(photosRemoved)
            }
        }
        router.register(Methods.listPlants) { request, context in
            try await plants.list(request, owner: try context.requireUserID())
        }
        router.register(Methods.setFavorite) { request, context in
            let plant = try await plants.setFavorite(id: request.id, favorite: request.favorite, owner: try context.requireUserID())
            return .with { $0.plant = plant }
        }
        router.register(Methods.searchPlants) { request, context in
            guard request.limit <= 100 else { throw RPCError.invalidArgument("limit", .outOfRange, "limit must be at most 100") }
            let hits = try await plants.search(request.query, limit: request.limit == 0 ? 20 : Int(request.limit), owner: try context.requireUserID())
            return .with { $0.hits = hits }
        }
        router.register(Methods.suggestNames) { request, context in
            guard request.limit <= 50 else { throw RPCError.invalidArgument("limit", .outOfRange, "limit must be at most 50") }
            let names = try await plants.suggestions(
                prefix: request.prefix, limit: request.limit == 0 ? 10 : Int(request.limit), owner: try context.requireUserID())
            return .with { $0.suggestions = names }
        }
        router.register(Methods.getStatistics) { request, context in
            let zone = request.timeZone.isEmpty ? TimeZone(identifier: "UTC") : TimeZone(identifier: request.timeZone)
            guard let zone else { throw RPCError.invalidArgument("time_zone", .unknownValue, "unknown time zone '\(request.timeZone)'") }
            return try await plants.statistics(owner: try context.requireUserID(), timeZone: zone)
        }
        router.register(Methods.putPhoto) { request, context in
            let (photo, deduplicated) = try await photos.put(request.data, kind: request.kind, plantID: request.plantID, owner: try context.requireUserID())
            return .with {
                $0.photo = photo
                $0.deduplicated = deduplicated
            }
        }
        router.register(Methods.getPhoto) { request, context in
            let (data, mediaType, sha) = try await photos.get(
                sha: request.sha256, thumbnailSize: Int(request.thumbnailSize), owner: try context.requireUserID())
            return .with {
                $0.data = data
                $0.mediaType = mediaType
                $0.contentSha256 = sha
            }
        }
        router.register(Methods.deletePhoto) { request, context in
            let (deleted, removed) = try await photos.delete(sha: request.sha256, plantID: request.plantID, owner: try context.requireUserID())
            return .with {
                $0.deleted = deleted
                $0.filesRemoved = removed
            }
        }
        router.register(Methods.addIdentification) { request, context in
            let (record, created) = try await history.add(request.identification, owner: try context.requireUserID())
            return .with {
                $0.identification = record
                $0.created = created
            }
        }
        router.register(Methods.listIdentifications) { request, context in
            let (records, next) = try await history.identifications(
                    plantID: request.plantID, pageSize: Int(request.pageSize), pageToken: request.pageToken, owner: try context.requireUserID())
            return .with {
                $0.identifications = records
                $0.nextPageToken = next
            }
        }
        router.register(Methods.addJournalEvent) { request, context in
            let (event, created) = try await history.add(request.event, owner: try context.requireUserID())
            return .with {
                $0.event = event
                $0.created = created
            }
        }
        router.register(Methods.listJournalEvents) { request, context in
            let (events, next) = try await history.events(
                    plantID: request.plantID, pageSize: Int(request.pageSize), pageToken: request.pageToken, owner: try context.requireUserID())
            return .with {
                $0.events = events
                $0.nextPageToken = next
            }
        }
        router.register(Methods.exportCollection) { _, context in
            let archive = try await archiver.export(owner: try context.requireUserID())
            guard archive.count <= maxArchiveBytes else {
                throw RPCError(.resourceExhausted, "the archive is \(archive.count) bytes, more than the \(maxArchiveBytes) one message carries")
                    .reason("RESPONSE_TOO_LARGE", domain: "plantguide-collection", metadata: ["limit_bytes": "\(maxArchiveBytes)"])
            }
            return .with {
                $0.archive = archive
                $0.exportedAt = .init(date: Date())
            }
        }
        router.register(Methods.importCollection) { request, context in
            let (imported, unchanged, photos) = try await archiver.import(request.archive, owner: try context.requireUserID())
            return .with {
                $0.plantsImported = UInt32(imported)
                $0.plantsUnchanged = UInt32(unchanged)
                $0.photosImported = UInt32(photos)
            }
        }
        router.register(Methods.deleteUserData) { _, context in
            let (count, photosRemoved) = try await plants.deleteAll(owner: try context.requireUserID())
            return .with {
                $0.plantsDeleted = UInt32(count)
                $0.photosRemoved = UInt32(photosRemoved)
            }
        }
    }

}

import Foundation
import PlantGuideProtos

/// Where the collection keeps its records: SQLite with photo files beside it (``SQLiteCollection``, the default)
/// or PostgreSQL with photo bytes in it (``PostgresCollection``, for replicas). Every method is scoped by owner:
/// none reads or changes another owner's rows. The stores above it (``PlantStore``, ``HistoryStore``,
/// ``PhotoStore``, ``CollectionArchiver``) validate what callers send and shape answers; a backend stores and reads.
public protocol CollectionRecords: Sendable {
    typealias Plant = Plantguide_Collection_V1_Plant
    typealias Photo = Plantguide_Collection_V1_Photo
    typealias Identification = Plantguide_Collection_V1_IdentificationRecord
    typealias JournalEvent = Plantguide_Collection_V1_JournalEvent
    typealias Archive = Plantguide_Collection_V1_CollectionArchive

    // MARK: Plants

    /// Adds a validated plant unless its id exists; returns the stored plant and whether it was added.
    func addPlant(_ plant: Plant, owner: String, time: Double) async throws -> (plant: Plant, created: Bool)
    /// Changes a stored plant in one transaction: `change` edits it (and may throw to refuse); nil when there is none.
    func updatePlant(id: String, owner: String, time: Double, _ change: @escaping @Sendable (inout Plant) throws -> Void) async throws -> Plant?
    /// Deletes a plant with its photo links, identifications and journal; returns whether it existed and how many
    /// photos nothing of the owner shows any more (removed with it).
    func deletePlant(id: String, owner: String) async throws -> (deleted: Bool, photosRemoved: Int)
    /// Deletes every row of `owner`; returns how many plants and photos went.
    func deleteAll(owner: String) async throws -> (plants: Int, photosRemoved: Int)
    func plant(id: String, owner: String) async throws -> Plant?
    /// One page of plants matching `query`, each with its sort key, and how many match in all.
    func listPlants(_ query: PlantListQuery, owner: String) async throws -> (plants: [(plant: Plant, key: SortValue)], total: Int)
    /// Plants with every word of `words` as a word prefix, best first, with their rank (higher is better).
    func searchPlants(words: [String], limit: Int, owner: String) async throws -> [(plant: Plant, rank: Double)]
    /// Every plant's display name, common names and scientific name, for suggestions.
    func plantNames(owner: String) async throws -> [[String]]
    /// Totals, per family, species and source; "added this month" counts plants added at or after `monthStart`.
    func statistics(owner: String, monthStart: Double) async throws -> Plantguide_Collection_V1_GetStatisticsResponse

    // MARK: History

    /// Stores an identification unless its id exists; nil when it names a plant the owner does not have.
    func addIdentification(_ record: Identification, owner: String) async throws -> (record: Identification, created: Bool)?
    /// Newest first, of one plant or (empty `plantID`) of all.
    func identifications(plantID: String, limit: Int, offset: Int, owner: String) async throws -> [Identification]
    /// Stores a journal event unless its id exists; nil when its plant is not the owner's.
    func addEvent(_ event: JournalEvent, owner: String) async throws -> (event: JournalEvent, created: Bool)?
    /// Newest first; nil when the plant is not the owner's.
    func events(plantID: String, limit: Int, offset: Int, owner: String) async throws -> [JournalEvent]?

    // MARK: Photos

    /// Links a validated photo to a plant, storing its bytes and thumbnails unless the owner has them; returns the
    /// photo and whether the owner had these bytes already, or nil when the plant is not the owner's.
    func putPhoto(_ upload: PhotoUpload, kind: Plantguide_Collection_V1_PhotoKind, plantID: String, owner: String, time: Double)
        async throws -> (photo: Photo, deduplicated: Bool)?
    /// The original (`thumbnailSize` 0, in its media type) or a JPEG thumbnail of a photo the owner can see; nil
    /// when the owner has no such photo.
    /// - Throws: DATA_LOSS when the row exists and its bytes do not.
    func photoBytes(sha: String, thumbnailSize: Int, owner: String) async throws -> (data: Data, mediaType: String)?
    /// Takes a photo off a plant; returns whether the plant showed it and whether its bytes went (nothing else of
    /// the owner shows it).
    func deletePhoto(sha: String, plantID: String, owner: String) async throws -> (deleted: Bool, removed: Bool)

    // MARK: Archives

    /// Everything `owner` has, photos as links (their bytes are read one by one).
    func manifest(owner: String) async throws -> Archive
    /// Writes a validated archive in one transaction: plants already there are left as they are.
    func importArchive(_ archive: Archive, photos: [String: PhotoUpload], owner: String, time: Double)
        async throws -> (imported: Int, unchanged: Int, photos: Int)
}

/// A plant list's sort value of one plant, as a page token carries it: a time in seconds or a name.
public enum SortValue: Sendable, Equatable {
    case number(Double)
    case text(String)
    case none
}

/// What a plant listing asks a backend for: filters (texts already lower-cased), order, and where the page
/// starts.
public struct PlantListQuery: Sendable {
    /// Search words: every one must start a word of the plant's text.
    public var words: [String] = []
    public var families: [String] = []
    public var favoritesOnly = false
    public var sources: [Int] = []
    public var addedAfter: Double?
    public var addedBefore: Double?
    public var location: String?
    public var scientificNames: [String] = []
    public var sort: Plantguide_Collection_V1_PlantSort = .dateAdded
    public var descending = false
    /// The sort key and id of the previous page's last plant.
    public var after: (key: SortValue, id: String)?
    /// Rows to return (a page and one more, to know whether another page follows).
    public var limit = 51
}

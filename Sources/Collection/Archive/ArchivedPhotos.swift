import PlantGuideProtos

/// An archive's photos from the owner's links, as both backends read them.
enum ArchivedPhotos {
    /// One archived photo per hash, in hash order, listing the plants that show it; `links` are (hash, media
    /// type, plant id, kind) in hash and plant order.
    static func group(_ links: [(sha: String, mediaType: String, plantID: String, kind: Int)]) -> [Plantguide_Collection_V1_ArchivedPhoto] {
        var photos: [Plantguide_Collection_V1_ArchivedPhoto] = []
        for link in links {
            if photos.last?.sha256 != link.sha {
                photos.append(.with {
                    $0.sha256 = link.sha
                    $0.mediaType = link.mediaType
                })
            }
            photos[photos.count - 1].links.append(.with {
                $0.plantID = link.plantID
                $0.kind = .init(rawValue: link.kind) ?? .captured
            })
        }
        return photos
    }
}

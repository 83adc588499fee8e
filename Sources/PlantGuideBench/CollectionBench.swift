import ArgumentParser
import Collection
import Foundation
import PlantGuideImaging
import PlantGuideProtos
import PlantGuideRPC
import SwiftProtobuf

/// Fills a running collection service with users u0… each holding plants of varied names, families,
/// locations and notes, through ImportCollection (one archive, one transaction, per user).
struct SeedCollection: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "seed-collection", abstract: "Load plants into a collection service.")

    @Option(help: "Server endpoint.") var target: String
    @Option(help: "Users.") var users = 100
    @Option(help: "Plants per user.") var plants = 1_000

    static let species: [(String, String, String)] = [
        ("Monstera deliciosa", "Swiss cheese plant", "Araceae"), ("Ficus lyrata", "Fiddle-leaf fig", "Moraceae"),
        ("Epipremnum aureum", "Golden pothos", "Araceae"), ("Ocimum basilicum", "Sweet basil", "Lamiaceae"),
        ("Sansevieria trifasciata", "Snake plant", "Asparagaceae"), ("Aloe vera", "Aloe", "Asphodelaceae"),
        ("Rosa hybrids", "Rose", "Rosaceae"), ("Solanum lycopersicum", "Tomato", "Solanaceae"),
        ("Phalaenopsis amabilis", "Moth orchid", "Orchidaceae"), ("Crassula ovata", "Jade plant", "Crassulaceae"),
        ("Lavandula angustifolia", "English lavender", "Lamiaceae"), ("Hedera helix", "English ivy", "Araliaceae"),
    ]
    static let locations = ["Kitchen", "Living room", "Bedroom", "Balcony", "Garden bed 1", "Garden bed 2", "Office", "Hall"]

    /// Plant `index` of user number `user`: species, names, locations and notes varied as in a real collection.
    static func plant(_ index: Int, user: Int) -> Plantguide_Collection_V1_Plant {
        let (scientific, common, family) = species[(index * 7 + user) % species.count]
        return .with {
            $0.id = "p\(index)"
            $0.scientificName = scientific
            $0.commonNames = [common]
            $0.family = family
            $0.genus = String(scientific.prefix { $0 != " " })
            $0.customName = index % 5 == 0 ? "\(common) \(index)" : ""
            $0.location = locations[index % locations.count]
            $0.notes = index % 3 == 0 ? "repotted in spring, water \(index % 4 + 1) times a week" : ""
            $0.favorite = index % 11 == 0
            $0.identificationSource = .init(rawValue: index % 5) ?? .unspecified
            $0.addedAt = Google_Protobuf_Timestamp(date: Date(timeIntervalSince1970: 1_780_000_000 + Double(index * 3_600)))
        }
    }

    func run() async throws {
        var configuration = RPCClientConfiguration()
        configuration.maxMessageSize = 64 << 20
        configuration.defaultTimeout = .seconds(120)
        let client = try RPCClient(target: target, configuration: configuration)
        defer { client.close() }
        let clock = ContinuousClock()
        let started = clock.now
        for user in 0..<users {
            let list = (0..<plants).map { Self.plant($0, user: user) }
            let reply = try await client.call(
                Plantguide_Collection_V1_CollectionService.importCollection,
                .with { $0.archive = try! CollectionArchiver.archive(of: list) },
                options: .init(metadata: ["plantguide-user-id": "u\(user)"]))
            guard reply.plantsImported + reply.plantsUnchanged == plants else { throw ValidationError("user u\(user): import incomplete") }
        }
        FileHandle.standardError.write(Data("seeded \(users * plants) plants in \(clock.now - started)\n".utf8))
    }
}

/// Thumbnails of a 12-megapixel JPEG (4000×3000), timed one at a time on one thread.
struct ThumbnailBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "thumbnail", abstract: "Time thumbnails of a 12 MP JPEG.")

    @Option(help: "Thumbnails per size.") var iterations = 20

    func run() throws {
        let photo = try Data(JPEGCodec.encode(Self.photo(width: 4_000, height: 3_000), quality: 90))
        for size in [256, 1_024] {
            _ = try Thumbnailer.thumbnail(of: photo, longSide: size)
            var samples: [Int64] = []
            let clock = ContinuousClock()
            for _ in 0..<iterations {
                let start = clock.now
                _ = try Thumbnailer.thumbnail(of: photo, longSide: size)
                samples.append((clock.now - start).nanoseconds)
            }
            print(BenchResult(implementation: "thumbnail-\(size)", payload: photo.count, inflight: 1, samples: samples,
                              elapsed: .nanoseconds(samples.reduce(0, +))).json)
        }
    }

    /// A photo-like image: gradients with texture, so it compresses like a real photo (about 3–5 MB).
    static func photo(width: Int, height: Int) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var seed: UInt32 = 12_345
        for y in 0..<height {
            for x in 0..<width {
                seed = seed &* 1_103_515_245 &+ 12_345
                let noise = Int(seed >> 27)
                let offset = (y * width + x) * 3
                pixels[offset] = UInt8(clamping: x * 200 / width + noise)
                pixels[offset + 1] = UInt8(clamping: 60 + y * 150 / height + noise)
                pixels[offset + 2] = UInt8(clamping: ((x / 40 + y / 40) % 2) * 60 + noise)
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }
}

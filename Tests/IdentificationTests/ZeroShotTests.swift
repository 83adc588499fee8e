import Foundation
import Identification
import PlantGuideImaging
import PlantGuideTestSupport
import Testing

/// A CLIP-style model: labels ranked by the cosine similarity of the photo's embedding with each label's text
/// embedding. The generated demo's encoder embeds a photo as its mean colour and each label's embedding is its
/// colour, so the right answer for a coloured photo is known by construction.
@Suite("Zero-shot identification from label embeddings")
struct ZeroShotTests {
    private static let repository = ModelFixtures.testModels.appendingPathComponent("repository")

    private static func photo(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> RGBImage {
        RGBImage(width: 64, height: 48, pixels: Array(repeating: [red, green, blue], count: 64 * 48).flatMap { $0 })
    }

    @Test("each colour's photo is identified as the species named after it, with probabilities that sum to 1")
    func ranksByCosineSimilarity() async throws {
        let installed = try ModelRepository(directory: Self.repository).load("zero-shot-demo")
        #expect(installed.labelEmbeddings?.dimension == 3 && installed.labels.count == 4)
        let classifier = OnnxSpeciesClassifier(installed)
        defer { classifier.stop() }
        let photos = [Self.photo(255, 0, 0), Self.photo(0, 255, 0), Self.photo(0, 0, 255), Self.photo(255, 255, 0)]
        let answers = try await classifier.classify(photos, maxResults: 4, deadline: .now + .seconds(20))
        #expect(answers.map { $0.first?.scientificName } == ["Rosa rubra", "Ficus viridis", "Iris caerulea", "Helianthus aureus"])
        for guesses in answers {
            #expect(abs(guesses.reduce(0) { $0 + $1.score } - 1) < 1e-4)
            // An exact match (cosine 1) against the next best (cosine 1/3), scaled by logit_scale 10.
            #expect(guesses[0].score > 0.99 && guesses[0].commonNames.count == 1)
        }
    }

    @Test("an embeddings file that does not hold one row per label is refused at load, naming it")
    func wrongEmbeddingsFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-zero-shot-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.repository.appendingPathComponent("zero-shot-demo"), to: folder.appendingPathComponent("demo"))
        let file = folder.appendingPathComponent("demo/species-embeddings.f32")
        try Data(try Data(contentsOf: file).dropLast(4)).write(to: file)
        let error = #expect(throws: ModelRepositoryError.self) { try ModelRepository(directory: folder).load("demo") }
        #expect(error?.description == "demo/species-embeddings.f32: 44 bytes are not 4 rows of float32 (one per label)")

        try Data(repeating: 0, count: 4 * 4 * 2).write(to: file)
        let mismatch = #expect(throws: ModelRepositoryError.self) { try ModelRepository(directory: folder).load("demo") }
        #expect(mismatch?.description == "demo/species-embeddings.f32: row 1 is zero or not finite")
    }
}

import Foundation
import PlantGuideTestSupport
import Testing

/// Scheduling's `--public-origin`: the origin that Declarative Web Push's `navigate` is built on, so a value that is
/// not a scheme and host would put a broken link in every notification. It stops the service at start instead.
@Suite("Scheduling's public origin")
struct SchedulingPublicOriginTests {
    @Test("a --public-origin with a path, a query or no scheme stops scheduling at start, saying what it must be")
    func refused() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("origin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for origin in ["plants.example.org", "https://plants.example.org/app", "https://plants.example.org/?x=1", "ftp://plants.example.org"] {
            // Under `timeout`: a service that took the value would serve until killed.
            let outcome = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/timeout"), [
                "20", BuildProducts.url(of: "plantguide-scheduling").path, "--public-origin", origin, "--data", folder.path,
                "--bind", "tcp://127.0.0.1:0",
            ], mergingStandardError: true)
            #expect(outcome.status != 0 && outcome.output.contains("the public origin is a scheme and host"), "\(origin): \(outcome.output)")
        }
    }
}

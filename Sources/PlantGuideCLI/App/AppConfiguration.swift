import ArgumentParser
import Foundation

/// Where the app commands find the gateway and the token: `plantguide login` writes them to a file only its owner
/// can read (PLANTGUIDE_CONFIG, else $XDG_CONFIG_HOME/plantguide/config.json, else ~/.config/plantguide/config.json);
/// PLANTGUIDE_URL and PLANTGUIDE_TOKEN override it.
struct AppConfiguration: Codable, Equatable {
    var url: String
    var token: String

    static var path: URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["PLANTGUIDE_CONFIG"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        return base.appendingPathComponent("plantguide/config.json")
    }

    /// The saved configuration with the environment's overrides.
    /// - Throws: a ValidationError telling to log in when there is neither.
    static func load() throws -> AppConfiguration {
        let environment = ProcessInfo.processInfo.environment
        let saved = (try? Data(contentsOf: path)).flatMap { try? JSONDecoder().decode(AppConfiguration.self, from: $0) }
        let url = environment["PLANTGUIDE_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? saved?.url
        let token = environment["PLANTGUIDE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 } ?? saved?.token
        guard let url, let token else {
            throw ValidationError("not logged in: run plantguide login URL TOKEN (or set PLANTGUIDE_URL and PLANTGUIDE_TOKEN)")
        }
        return AppConfiguration(url: url, token: token)
    }

    func save() throws {
        let file = Self.path
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: file, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    }
}

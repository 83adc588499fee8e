import Foundation

/// The recorded Trefle, Pl@ntNet, Open Plantbook, Perenual and GBIF responses in `Fixtures/` (see its README for their source).
public enum Fixtures {
    /// The bytes of `Fixtures/<folder>/<name>.json`.
    public static func data(_ folder: String, _ name: String) throws -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: folder) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "Fixtures/\(folder)/\(name).json"])
        }
        return try Data(contentsOf: url)
    }

    public static func trefle(_ name: String) throws -> Data { try data("trefle", name) }
    public static func plantnet(_ name: String) throws -> Data { try data("plantnet", name) }
    /// Open Plantbook, Perenual and GBIF bodies.
    public static func provider(_ name: String) throws -> Data { try data("providers", name) }

    /// The text of `Fixtures/providers/<name>.txt` (a body that is not valid JSON as published).
    public static func providerText(_ name: String) throws -> String {
        guard let url = Bundle.module.url(forResource: name, withExtension: "txt", subdirectory: "providers") else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "Fixtures/providers/\(name).txt"])
        }
        return try String(contentsOf: url, encoding: .utf8)
    }
}

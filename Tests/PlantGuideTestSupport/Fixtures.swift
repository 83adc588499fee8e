import Foundation

/// The recorded Trefle and Pl@ntNet responses in `Fixtures/` (see its README for their source).
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
}

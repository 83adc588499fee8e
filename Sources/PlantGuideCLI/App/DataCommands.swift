import ArgumentParser
import Foundation

/// `plantguide export FILE`: the collection as a tar archive.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Save your collection (plants, photos, history) to a file.")
    @Argument(help: "The archive to write (a .tar).") var file: String

    func run() async throws {
        try await runApp {
            let answer = try await GatewayClient(try AppConfiguration.load()).object("GET", "/v1/export", progress: "exporting")
            let encoded = ((answer["export"] as? [String: Any])?["archive"] as? String) ?? ""
            guard let archive = Data(base64Encoded: encoded) else { throw CLIFailure("the gateway sent no archive", status: 3) }
            try archive.write(to: URL(fileURLWithPath: file), options: .atomic)
            print("wrote \(archive.count) bytes to \(file)")
        }
    }
}

/// `plantguide import FILE`: takes an export back (idempotent).
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import", abstract: "Load an exported collection; plants keep their ids.")
    @Argument(help: "An archive written by plantguide export.") var file: String

    func run() async throws {
        try await runApp {
            let archive = try Data(contentsOf: URL(fileURLWithPath: file))
            let answer = try await GatewayClient(try AppConfiguration.load()).object(
                "POST", "/v1/import", json: ["archive": archive.base64EncodedString()], progress: "importing")
            let imported = answer["imported"] as? [String: Any] ?? [:]
            print("imported \(imported["plantsImported"] as? Int ?? 0) plants and \(imported["photosImported"] as? Int ?? 0) photos; "
                  + "\(answer["schedulesPlanned"] as? Int ?? 0) schedules planned")
        }
    }
}

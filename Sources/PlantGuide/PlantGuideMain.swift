import CareDataService
import CollectionService
import Foundation
import GatewayService
import IdentificationService
import PlantGuideCLI
import SchedulingService

/// `plantguide`, the one executable: the command-line client, and every service.
///
/// A service runs as `plantguide serve SERVICE [its arguments]`, or by the name the executable is called by:
/// `plantguide-collection` (a symbolic link to `plantguide`) is the collection service, with its flags, `--help` and
/// environment as when it was an executable of its own. Each service is still its own process; only the packaging
/// is shared.
@main
enum PlantGuideMain {
    /// Each service's command, by the name it is served under (`plantguide-` and this is its executable's name).
    static let services: [(name: String, main: @Sendable ([String]) async -> Void)] = [
        ("identification", { await IdentificationCommand.main($0) }),
        ("caredata", { await CareDataServiceCommand.main($0) }),
        ("collection", { await CollectionServiceCommand.main($0) }),
        ("scheduling", { await SchedulingServiceCommand.main($0) }),
        ("gateway", { await GatewayServiceCommand.main($0) }),
    ]

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let calledAs = URL(fileURLWithPath: CommandLine.arguments.first ?? "plantguide").lastPathComponent
        if calledAs.hasPrefix("plantguide-"), let service = services.first(where: { "plantguide-\($0.name)" == calledAs }) {
            return await service.main(arguments)
        }
        guard arguments.first == "serve" else { return await PlantGuideCommand.main(arguments) }
        let rest = Array(arguments.dropFirst())
        guard let name = rest.first, let service = services.first(where: { $0.name == name }) else {
            let asked = ["-h", "--help", "help"].contains(rest.first ?? "")
            let usage = """
                USAGE: plantguide serve SERVICE [options]

                SERVICE is one of: \(services.map(\.name).joined(separator: ", ")). Its options are its own: see
                plantguide serve SERVICE --help. A service also runs as plantguide-SERVICE, a symbolic link to plantguide.

                """
            if let name = rest.first, !asked { FileHandle.standardError.write(Data("plantguide serve: unknown service \(name)\n\n".utf8)) }
            (asked ? FileHandle.standardOutput : FileHandle.standardError).write(Data(usage.utf8))
            exit(asked ? 0 : 64)  // EX_USAGE
        }
        await service.main(Array(rest.dropFirst()))
    }
}

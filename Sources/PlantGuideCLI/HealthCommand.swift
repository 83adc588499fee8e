import ArgumentParser
import Foundation
import PlantGuideProtos
import PlantGuideRPC

/// `plantguide rpc health TARGET`: exit code 0 when serving, as grpc_health_probe does, for scripts and
/// container health checks.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Check whether a service is serving.",
        discussion: """
            Exit codes (as grpc_health_probe): 0 serving, 1 bad arguments, 2 cannot connect, 3 the call failed, \
            4 not serving.
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: "Check one hosted service, e.g. plantguide.collection.v1.CollectionService.")
    var service: String = ""

    func run() async throws {
        let client: RPCClient
        do {
            client = try connection.client()
        } catch {
            printError("\(error)")
            throw ExitCode(1)
        }
        defer { client.close() }
        let options = RPCCallOptions(timeout: .seconds(connection.timeout), waitForReady: connection.waitForReady)
        do {
            let reply = try await client.call(Plantguide_Health_V1_Health.check, .with { $0.service = service }, options: options)
            print(reply.status == .serving ? "SERVING" : "\(reply.status)".uppercased())
            if reply.status != .serving { throw ExitCode(4) }
        } catch let error as RPCError {
            printError("\(error)")
            throw ExitCode(error.code == .unavailable || error.code == .deadlineExceeded ? 2 : 3)
        }
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
}

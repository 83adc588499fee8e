import ArgumentParser
import Foundation

/// `plantguide login URL TOKEN`: checks the token against the gateway and saves both for the app commands.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Save the gateway's HTTP URL and your token (checked first) for the other commands.",
        discussion: "The token comes from plantguide-gateway users add NAME. The file is only readable by you: \(AppConfiguration.path.path)")

    @Argument(help: "The gateway's HTTP front, e.g. http://127.0.0.1:7080.") var url: String
    @Argument(help: "Your token (pg_...).") var token: String

    func run() async throws {
        try await runApp {
            let configuration = AppConfiguration(url: url, token: token)
            _ = try await GatewayClient(configuration).call("GET", "/v1/plants?filter.page_size=1")
            try configuration.save()
            print("logged in to \(url); saved to \(AppConfiguration.path.path)")
        }
    }
}

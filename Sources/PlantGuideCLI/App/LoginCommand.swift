import ArgumentParser
import Foundation
import PlantGuideCore

/// `plantguide login`: checks a token (or signs in with a name and password) and saves the gateway's URL with it.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Save the gateway's HTTP URL and your token (checked first) for the other commands.",
        discussion: """
            Either give a token (from plantguide-gateway users add NAME) or --name and your password (asked for, or \
            PLANTGUIDE_PASSWORD, or standard input), which gets a new token for this device. The file is only \
            readable by you: \(AppConfiguration.path.path)
            """)

    @Argument(help: "The gateway's HTTP front, e.g. http://127.0.0.1:7080.") var url: String
    @Argument(help: "Your token (pg_...); leave it out with --name.") var token: String?
    @Option(name: .long, help: "Sign in with this account name and its password instead of a token.") var name: String?

    func validate() throws {
        guard (token == nil) != (name == nil) else { throw ValidationError("give either a token or --name NAME") }
    }

    func run() async throws {
        try await runApp {
            var token = self.token ?? ""
            if let name {
                let password = try await AccountCommands.password(prompt: "password for \(name): ")
                token = try await AccountCommands.token(url: url, path: "/v1/sessions", name: name, password: password)
            }
            let configuration = AppConfiguration(url: url, token: token)
            _ = try await GatewayClient(configuration).call("GET", "/v1/plants?filter.page_size=1")
            try configuration.save()
            print("logged in to \(url); saved to \(AppConfiguration.path.path)")
        }
    }
}

/// `plantguide signup`: opens an account on the gateway and logs in with it.
struct SignupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signup",
        abstract: "Open an account on the gateway with a name and a password, and log in with it.",
        discussion: """
            The password (10 to 128 characters, not the name, not a common one) is asked for twice at a terminal, or \
            taken from PLANTGUIDE_PASSWORD or standard input. The gateway's operator may allow sign-up by invitation \
            only (give the code with --invitation) or have closed it: then ask them for a token. Saves to \
            \(AppConfiguration.path.path).
            """)

    @Argument(help: "The gateway's HTTP front, e.g. http://127.0.0.1:7080.") var url: String
    @Argument(help: "Your account name: letters, digits, '.', '_', '-' or '@'.") var name: String
    @Option(name: .long, help: ArgumentHelp("The invitation code you were given (inv_...), where sign-up is by invitation.",
                                            valueName: "code"))
    var invitation: String?

    func run() async throws {
        try await runApp {
            let password = try await AccountCommands.password(prompt: "new password for \(name): ")
            if isatty(STDIN_FILENO) == 1, ProcessInfo.processInfo.environment["PLANTGUIDE_PASSWORD"] == nil {
                let again = try await AccountCommands.password(prompt: "the same again: ")
                guard again == password else { throw CLIFailure("the two passwords differ", status: 3) }
            }
            let token = try await AccountCommands.token(url: url, path: "/v1/accounts", name: name, password: password,
                                                        extra: invitation.map { ["invitation": $0] } ?? [:])
            try AppConfiguration(url: url, token: token).save()
            print("signed up as \(name) at \(url); logged in, saved to \(AppConfiguration.path.path)")
        }
    }
}

/// What signup and login --name share.
enum AccountCommands {
    static func password(prompt: String) async throws -> String {
        guard let password = await BlockingWork.run({ PasswordInput.read(prompt: prompt) }), !password.isEmpty else {
            throw CLIFailure("no password given", status: 3)
        }
        return password
    }

    /// POSTs the name and password to `path` (sign-up or sign-in, which need no token) and returns the token.
    static func token(url: String, path: String, name: String, password: String, extra: [String: String] = [:]) async throws -> String {
        let anonymous = GatewayClient(AppConfiguration(url: url, token: ""))
        let answer = try await anonymous.object("POST", path, json: extra.merging(["name": name, "password": password]) { $1 })
        guard let token = answer["token"] as? String, !token.isEmpty else {
            throw CLIFailure("the gateway answered without a token", status: 3)
        }
        return token
    }
}

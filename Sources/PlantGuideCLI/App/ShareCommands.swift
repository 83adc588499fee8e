import ArgumentParser
import Foundation

/// `plantguide share NAME [--read-write]`: shares your collection with another user of the gateway.
struct ShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share", abstract: "Share your collection with another user (read-only unless --read-write).",
        discussion: """
            They then see it, and with --read-write also tend it, by setting PLANTGUIDE_COLLECTION_OWNER to your user \
            name for their commands. `plantguide shares` lists what you share and what is shared with you.
            """)
    @Argument(help: "The user to share with.") var name: String
    @Flag(help: "Let them also add, edit and delete plants and complete tasks.") var readWrite = false

    func run() async throws {
        try await runApp {
            let access = readWrite ? "SHARE_ACCESS_READ_WRITE" : "SHARE_ACCESS_READ_ONLY"
            let encoded = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name
            _ = try await GatewayClient(try AppConfiguration.load()).object("PUT", "/v1/shares/\(encoded)", json: ["access": access])
            print("shared with \(name), \(readWrite ? "read-write" : "read-only")")
        }
    }
}

/// `plantguide unshare NAME`.
struct UnshareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unshare", abstract: "Stop sharing your collection with a user.")
    @Argument(help: "The user to stop sharing with.") var name: String

    func run() async throws {
        try await runApp {
            let encoded = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name
            let answer = try await GatewayClient(try AppConfiguration.load()).object("DELETE", "/v1/shares/\(encoded)")
            print(answer["revoked"] as? Bool == true ? "no longer shared with \(name)" : "it was not shared with \(name)")
        }
    }
}

/// `plantguide shares`: both directions.
struct SharesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "shares", abstract: "Who you share your collection with, and whose is shared with you.")
    @Flag(help: "Print the gateway's JSON.") var json = false

    func run() async throws {
        try await runApp {
            let body = try await GatewayClient(try AppConfiguration.load()).call("GET", "/v1/shares")
            if json { return TextTable.printJSON(body) }
            let answer = try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]
            func access(_ share: [String: Any]) -> String {
                share["access"] as? String == "SHARE_ACCESS_READ_WRITE" ? "read-write" : "read-only"
            }
            let given = (answer["given"] as? [[String: Any]] ?? []).map { ["you → \($0["memberName"] as? String ?? "?")", access($0)] }
            let received = (answer["received"] as? [[String: Any]] ?? []).map { ["\($0["ownerName"] as? String ?? "?") → you", access($0)] }
            if given.isEmpty && received.isEmpty { return print("nothing shared") }
            TextTable.print(header: ["COLLECTION", "ACCESS"], rows: given + received)
        }
    }
}

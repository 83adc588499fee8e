import ArgumentParser
import Foundation
import PlantGuideRPC

/// `plantguide keys generate NAME`: a CurveZMQ key pair for a service or a client.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "CurveZMQ keys for encrypted, authenticated service connections.",
        subcommands: [Generate.self])

    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a new key pair: NAME.key (the secret, readable by its owner only) and NAME.pub.",
            discussion: """
                Give the services one pair (--curve-secret-key-file services.key; clients get services.pub as \
                --curve-server-key-file) and each client its own (the gateway: --curve-client-key-file gateway.key); \
                list the clients' .pub keys, one per line, in the file the services read with \
                --curve-allowed-clients-file. Existing files are never overwritten.
                """)
        @Argument(help: "The pair's name, e.g. services or gateway.") var name: String
        @Option(name: .long, help: "Folder to write to.") var directory = "."

        func run() async throws {
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
                throw ValidationError("a key name is letters, digits, '-', '_' or '.'")
            }
            let folder = URL(fileURLWithPath: directory, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let secretFile = folder.appendingPathComponent("\(name).key")
            let publicFile = folder.appendingPathComponent("\(name).pub")
            for file in [secretFile, publicFile] where FileManager.default.fileExists(atPath: file.path) {
                throw ValidationError("\(file.path) exists already; remove it first to replace the pair")
            }
            let pair = try CurveKeyPair.generate()
            let header = "# CurveZMQ key \(name), made by plantguide keys generate on \(Date().formatted(.iso8601))\n"
            guard FileManager.default.createFile(atPath: secretFile.path, contents: Data((header + pair.secretKey + "\n").utf8),
                                                 attributes: [.posixPermissions: 0o600]) else {
                throw ValidationError("cannot write \(secretFile.path)")
            }
            try Data((header + pair.publicKey + "\n").utf8).write(to: publicFile)
            print("wrote \(secretFile.path) (secret: keep it to its owner) and \(publicFile.path) (public: \(pair.publicKey))")
        }
    }
}

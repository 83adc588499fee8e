import ArgumentParser
import Foundation
import PlantGuideCore
import PlantGuideRPC
import PlantGuideWebPush

/// `plantguide keys generate NAME`: a CurveZMQ key pair for a service or a client; `plantguide keys vapid NAME`:
/// the VAPID key pair Web Push reminders are signed with.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "CurveZMQ keys for service connections, and the VAPID key pair of Web Push.",
        subcommands: [Generate.self, VAPID.self])

    struct VAPID: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "vapid",
            abstract: "Write a new VAPID key pair for Web Push: NAME.key (PEM, readable by its owner only) and NAME.pub.",
            discussion: """
                plantguide-scheduling signs every Web Push reminder with NAME.key (--vapid-private-key-file); \
                browsers subscribe with the public key in NAME.pub, which the gateway serves at GET /v1/push/key. \
                Keep the pair for good: a new key makes every browser's subscription useless. Existing files are \
                never overwritten.
                """)
        @Argument(help: "The pair's name, e.g. vapid.") var name: String
        @Option(name: .long, help: "Folder to write to.") var directory = "."

        func run() async throws {
            let (secretFile, publicFile) = try KeysCommand.newFiles(name: name, directory: directory)
            let key = VAPIDKey.generate(subject: "mailto:admin@localhost")
            guard FileManager.default.createFile(atPath: secretFile.path, contents: Data(key.privateKeyPEM.utf8),
                                                 attributes: [.posixPermissions: 0o600]) else {
                throw ValidationError("cannot write \(secretFile.path)")
            }
            try Data((key.publicKeyBase64URL + "\n").utf8).write(to: publicFile)
            print("wrote \(secretFile.path) (secret: for plantguide-scheduling only) and \(publicFile.path) (public: \(key.publicKeyBase64URL))")
        }
    }

    /// NAME.key and NAME.pub in `directory` (made if needed), neither of which may exist yet.
    static func newFiles(name: String, directory: String) throws -> (secret: URL, public: URL) {
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
        return (secretFile, publicFile)
    }

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
            let (secretFile, publicFile) = try KeysCommand.newFiles(name: name, directory: directory)
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

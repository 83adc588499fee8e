import Foundation
import PlantGuideTestSupport
import Testing

/// The README's `plantguide` examples, run as written against a real stack, as Tests/Interop/run runs its C and
/// Python programs: a README line that stops working fails here. Only what cannot be literal is replaced: the
/// token (`pg_...`), the gateway's address, today's task date and the files' folder.
@Suite("The README's plantguide examples work as written", .serialized)
struct ReadmeClientExamplesTests {
    @Test("every line of the client example block exits 0")
    func clientBlock() async throws {
        let lines = try Self.exampleBlock(after: "The `plantguide` command is a client")
        #expect(lines.count >= 10, "the block was found: \(lines)")
        let stack = try await GatewayJourneyTests.Stack(.sqlite)
        let ana = try await stack.token(for: "ana")
        let bob = try await stack.token(for: "bob")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-readme-\(UUID().uuidString)")
        TestResources.track(folder: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["leaf.jpg", "flower.jpg"] {
            try TestImages.jpeg(TestImages.gradient(width: 320, height: 240)).write(to: folder.appendingPathComponent(name))
        }
        let base = stack.httpBase.absoluteString
        let today = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])

        var ran = 0
        for line in lines {
            for command in try Self.commands(line) {
                ran += 1
                // A line that sets variables ("as bob") runs as a second person, with their own token and no saved login.
                let environment = command.environment.isEmpty
                    ? ["PLANTGUIDE_CONFIG": folder.appendingPathComponent("config.json").path, "PLANTGUIDE_URL": "", "PLANTGUIDE_TOKEN": ""]
                    : command.environment.merging(["PLANTGUIDE_CONFIG": folder.appendingPathComponent("none.json").path,
                                                   "PLANTGUIDE_URL": base, "PLANTGUIDE_TOKEN": bob]) { $1 }
                let arguments = command.arguments.dropFirst().map { argument in
                    if argument == "pg_..." { return ana }
                    if argument == "http://127.0.0.1:7080" { return base }
                    if argument.hasSuffix(".jpg") || argument.hasSuffix(".tar") { return folder.appendingPathComponent(argument).path }
                    return argument.replacingOccurrences(of: "2026-11-24", with: today)
                }
                #expect(command.arguments.first == "plantguide", "\(line)")
                func run() async throws -> ChildProcess.Outcome {
                    try await ChildProcess.run(BuildProducts.url(of: "plantguide"), Array(arguments), environment: environment,
                                               mergingStandardError: true)
                }
                var outcome = try await run()
                // The gateway's HTTP front may still be starting when the first line (login) runs.
                for _ in 0..<50 where outcome.status == 2 {
                    try await Task.sleep(for: .milliseconds(100))
                    outcome = try await run()
                }
                #expect(outcome.status == 0, "README: \(line)\n\(outcome.output)")
            }
        }
        #expect(ran == lines.count + 1, "one command a line, two on the export && import line")
        await stack.stop()
    }

    /// The lines of the first ```sh block after `marker` in the README, without comments and blank lines.
    static func exampleBlock(after marker: String) throws -> [String] {
        let readme = try String(contentsOf: ModelFixtures.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: marker), let open = readme.range(of: "```sh\n", range: start.upperBound..<readme.endIndex),
              let close = readme.range(of: "```", range: open.upperBound..<readme.endIndex) else { return [] }
        return readme[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    /// One shell command: leading `NAME=value` assignments and the words after them.
    struct Command {
        var environment: [String: String] = [:]
        var arguments: [String] = []
    }

    /// The commands of one line as a POSIX shell splits them: single and double quotes, `#` comments, `&&`.
    static func commands(_ line: String) throws -> [Command] {
        var commands = [Command()]
        var word: String?
        var quote: Character?
        func finish() {
            guard let done = word else { return }
            word = nil
            if commands[commands.count - 1].arguments.isEmpty, let equals = done.firstIndex(of: "="),
               done[..<equals].allSatisfy({ $0.isUppercase || $0 == "_" }) {
                commands[commands.count - 1].environment[String(done[..<equals])] = String(done[done.index(after: equals)...])
            } else {
                commands[commands.count - 1].arguments.append(done)
            }
        }
        var characters = line[...]
        while let character = characters.popFirst() {
            if let open = quote {
                if character == open { quote = nil } else { word!.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                word = word ?? ""
            } else if character == "#" && word == nil {
                break
            } else if character == " " {
                finish()
            } else if character == "&" && characters.first == "&" && word == nil {
                characters.removeFirst()
                commands.append(Command())
            } else {
                word = (word ?? "") + String(character)
            }
        }
        struct UnclosedQuote: Error {}
        guard quote == nil else { throw UnclosedQuote() }
        finish()
        return commands.filter { !$0.arguments.isEmpty }
    }
}

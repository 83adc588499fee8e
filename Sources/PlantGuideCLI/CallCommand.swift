import ArgumentParser
import Foundation
import PlantGuideProtos
import PlantGuideRPC
import SwiftProtobuf

/// `plantguide rpc call TARGET METHOD JSON`: one call with the request and response in proto3 JSON.
struct CallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Call a method with a JSON request and print the JSON response.",
        discussion: """
            The request is the method's request message in proto3 JSON (field names in lowerCamelCase or as in \
            the .proto). On an error status the status is printed to stderr (with the answer's traceresponse \
            when the server traced the call) and the exit code is 64 + its number (as grpcurl does). `plantguide rpc list` shows the methods.
            Example: plantguide rpc call tcp://127.0.0.1:7003 /plantguide.health.v1.Health/Check '{}'
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The method, as /package.Service/Method.", valueName: "method"))
    var method: String

    @Argument(help: ArgumentHelp("The request in proto3 JSON; '-' reads it from stdin.", valueName: "json"))
    var json: String = "{}"

    @Option(name: [.customShort("H"), .long], help: ArgumentHelp(
        "Metadata entry 'key: value', repeatable (e.g. -H 'plantguide-user-id: u1').", valueName: "header"))
    var header: [String] = []

    func run() async throws {
        var metadata: [String: String] = [:]
        for entry in header {
            guard let colon = entry.firstIndex(of: ":") else {
                throw ValidationError("metadata '\(entry)' is not 'key: value'")
            }
            metadata[entry[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] =
                entry[entry.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let text = json == "-" ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) : json
        let known = PlantGuideMethods.all.first { $0.path == method }
        let payload: Data
        if let known {
            do {
                payload = try known.requestType.init(jsonString: text).serializedBytes()
            } catch {
                printError("the request is not a valid \(known.requestType.protoMessageName) in JSON: \(error)")
                throw ExitCode.validationFailure
            }
        } else {
            guard text.trimmingCharacters(in: .whitespacesAndNewlines) == "{}" else {
                printError("\(method) is not a known method, so only an empty request '{}' can be sent")
                throw ExitCode.validationFailure
            }
            payload = Data()
        }

        let client = try connection.client()
        defer { client.close() }
        let options = RPCCallOptions(timeout: .seconds(connection.timeout), metadata: metadata, waitForReady: connection.waitForReady)
        do {
            let reply = try await client.call(path: method, payload: payload, isIdempotent: known?.isIdempotent ?? false, options: options)
            if let known {
                var json = JSONEncodingOptions()
                json.alwaysPrintEnumsAsInts = false
                print(try known.responseType.init(serializedBytes: reply).jsonString(options: json))
            } else {
                print("{}")
            }
        } catch let error as RPCError {
            var text = "ERROR:\n  Code: \(error.code.name)\n  Message: \(error.message)\n"
            if let trace = error.trailingMetadata[TraceParent.responseKey] { text += "  Trace: \(trace)\n" }
            FileHandle.standardError.write(Data(text.utf8))
            throw ExitCode(Int32(64 + error.code.rawValue))
        }
    }
}

/// `plantguide rpc list`: every method of the contract.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List every method of the PlantGuide contract with its message types.")

    func run() {
        for method in PlantGuideMethods.all {
            let retry = method.isIdempotent ? "  [idempotent]" : ""
            print("\(method.path)(\(method.requestType.protoMessageName)) -> \(method.responseType.protoMessageName)\(retry)")
        }
    }
}

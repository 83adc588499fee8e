import ArgumentParser
import Foundation
import PlantGuideHTTP

/// The app commands' way to the gateway's HTTP/JSON front: one call, its JSON answer, and a failure as the
/// gateway's message with an exit status (2 cannot connect, 3 refused, 4 not logged in or token refused).
/// With PLANTGUIDE_COLLECTION_OWNER set, the calls act on that user's collection, shared with this one.
struct GatewayClient {
    let configuration: AppConfiguration
    private let http = CurlHTTPClient()

    init(_ configuration: AppConfiguration) {
        self.configuration = configuration
    }

    /// Sends `method` `path` with a JSON body (or raw bytes of `contentType`) and returns the answer's body; with a
    /// `progress` label, a progress bar on a terminal.
    func call(_ method: String, _ path: String, json: [String: Any]? = nil, raw: Data? = nil, contentType: String? = nil,
              progress: String? = nil, timeout: Duration = .seconds(60)) async throws -> Data {
        guard let url = URL(string: configuration.url.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path) else {
            throw CLIFailure("the gateway URL '\(configuration.url)' is not a URL", status: 4)
        }
        var headers = ["Accept": "application/json"]
        if !configuration.token.isEmpty { headers["Authorization"] = "Bearer \(configuration.token)" }
        var body = raw
        if let json {
            body = try JSONSerialization.data(withJSONObject: json)
            headers["Content-Type"] = "application/json"
        } else if let contentType {
            headers["Content-Type"] = contentType
        }
        if let owner = ProcessInfo.processInfo.environment["PLANTGUIDE_COLLECTION_OWNER"], !owner.isEmpty {
            headers["PlantGuide-Collection-Owner"] = owner
        }
        let bar = progress.flatMap(ProgressBar.forTransfer)
        defer { bar?.finish() }
        var report: (@Sendable (HTTPProgress) -> Void)?
        if let bar { report = { bar.update($0) } }
        let response: HTTPResponse
        do {
            response = try await http.send(HTTPRequest(method: method, url: url, headers: headers, body: body), timeout: timeout,
                                           progress: report)
        } catch let error as HTTPClientError {
            throw CLIFailure("cannot reach the gateway at \(configuration.url): \(error.message)", status: 2)
        }
        guard (200..<300).contains(response.status) else {
            let error = (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["error"] as? [String: Any]
            var message = (error?["message"] as? String) ?? "the gateway answered \(response.status)"
            for violation in (error?["fieldViolations"] as? [[String: Any]]) ?? [] {
                message += "\n  \(violation["field"] as? String ?? "?"): \(violation["description"] as? String ?? "")"
            }
            throw CLIFailure(message, status: response.status == 401 ? 4 : 3)
        }
        return response.body
    }

    /// `call`, with the answer parsed as a JSON object.
    func object(_ method: String, _ path: String, json: [String: Any]? = nil, raw: Data? = nil, contentType: String? = nil,
                progress: String? = nil) async throws -> [String: Any]
    {
        let body = try await call(method, path, json: json, raw: raw, contentType: contentType, progress: progress)
        return (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:]
    }
}

/// A failed app command: its message on stderr and its exit status.
struct CLIFailure: Error, CustomStringConvertible {
    var description: String
    var status: Int32

    init(_ description: String, status: Int32) {
        self.description = description
        self.status = status
    }
}

/// Runs an app command's body, turning a failure into its message and exit status.
func runApp(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as CLIFailure {
        FileHandle.standardError.write(Data("plantguide: \(failure.description)\n".utf8))
        throw ExitCode(failure.status)
    }
}

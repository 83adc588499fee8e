import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Delivers a signed JSON body to a webhook URL.
public protocol WebhookSender: Sendable {
    /// POSTs `body`; throws when the receiver does not answer 2xx.
    func post(_ body: Data, to url: URL, headers: [String: String]) async throws
}

/// `WebhookSender` over URLSession (libcurl on Linux), 10 s per attempt.
public final class URLSessionWebhookSender: WebhookSender {
    private let session: URLSession

    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10  // whole seconds: Linux's URLSession truncates fractions
        session = URLSession(configuration: configuration)
    }

    public func post(_ body: Data, to url: URL, headers: [String: String]) async throws {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (_, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else { throw SchedulingError(.failedPrecondition, "the receiver answered \(status)") }
    }
}

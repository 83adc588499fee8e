import Foundation
import PlantGuideCore
import PlantGuideHTTP
import Synchronization

/// A client of the Pl@ntNet identification API v2: `POST /v2/identify/{project}` with one to five photos and the
/// organs they show, as multipart/form-data. The key travels as the `api-key` query parameter, as the API wants;
/// URLs are therefore never logged. A 5xx is retried once; time-outs are not (the caller's deadline matters more).
public final class PlantNetClient: Sendable {
    public let configuration: PlantNetConfiguration
    private let http: any HTTPClient
    private let quota: Mutex<PlantNetQuota>

    public init(configuration: PlantNetConfiguration, http: any HTTPClient = CurlHTTPClient()) {
        self.configuration = configuration
        self.http = http
        quota = Mutex(PlantNetQuota(limit: configuration.dailyLimit, now: Date()))
    }

    public var isConfigured: Bool { !(configuration.apiKey ?? "").isEmpty }

    /// Today's quota: the plan's limit, how much is used and remains, and when it resets (00:00 UTC).
    var quotaSnapshot: PlantNetQuota.Snapshot { quota.withLock { $0.snapshot(at: Date()) } }

    /// Identifies the plant in `images`.
    /// - Throws: ``PlantNetError``: notConfigured, invalidRequest (no image, more than five, over 50 MB),
    ///   unauthorized (401), quotaExceeded (429, until 00:00 UTC), unavailable, timedOut, badResponse.
    public func identify(_ images: [PlantNetImage], language: String = "en", maxResults: Int = 5,
                         timeout: Duration? = nil) async throws -> PlantNetIdentification {
        guard let key = configuration.apiKey, !key.isEmpty else {
            throw PlantNetError(.notConfigured, "no Pl@ntNet key is configured (PLANTGUIDE_PLANTNET_KEY)")
        }
        guard (1...5).contains(images.count) else { throw PlantNetError(.invalidRequest, "give one to five photos, not \(images.count)") }
        guard images.reduce(0, { $0 + $1.data.count }) <= 50 << 20 else { throw PlantNetError(.invalidRequest, "the photos exceed 50 MB in all") }

        var form = MultipartForm()
        for (index, image) in images.enumerated() {
            form.addFile("images", filename: "photo\(index + 1).\(image.mediaType.replacingOccurrences(of: "image/", with: ""))",
                         mediaType: image.mediaType, data: image.data)
        }
        for image in images { form.addField("organs", image.organ.rawValue) }
        var components = URLComponents(url: configuration.baseURL.appendingPathComponent("v2/identify/\(configuration.project)"),
                                       resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "api-key", value: key), URLQueryItem(name: "lang", value: language),
            URLQueryItem(name: "nb-results", value: String(min(max(maxResults, 1), 20))),
            URLQueryItem(name: "include-related-images", value: "false"),
        ]
        let request = HTTPRequest(method: "POST", url: components.url!, headers: ["Content-Type": form.contentType, "Accept": "application/json"],
                                  body: form.data)

        var retried = false
        while true {
            let response: HTTPResponse
            quota.withLock { $0.sent(at: Date()) }
            do {
                response = try await http.send(request, timeout: timeout ?? configuration.timeout)
            } catch let error as HTTPClientError {
                throw PlantNetError(error.code == .timedOut ? .timedOut : .unavailable, error.message)
            }
            switch response.status {
            case 200..<300:
                return try decode(response.body)
            case 404:
                return PlantNetIdentification(candidates: [], noPlantRecognized: true, bestMatch: nil,
                                              remainingRequests: quotaSnapshot.remaining, version: nil)
            case 401, 403:
                throw PlantNetError(.unauthorized, message(response) ?? "the API key was refused")
            case 429:
                let reset = Self.nextMidnightUTC(after: Date())
                quota.withLock { $0.exhausted(at: Date()) }
                throw PlantNetError(.quotaExceeded, message(response) ?? "the daily quota is used up", resetsAt: reset)
            case 400, 413:
                throw PlantNetError(.invalidRequest, message(response) ?? "Pl@ntNet refused the request (\(response.status))")
            case 500...:
                if !retried {
                    retried = true
                    continue
                }
                throw PlantNetError(.unavailable, "Pl@ntNet answered \(response.status)")
            default:
                throw PlantNetError(.badResponse, "unexpected status \(response.status)")
            }
        }
    }

    private func decode(_ body: Data) throws -> PlantNetIdentification {
        let decoded: PlantNetResponse
        do {
            decoded = try JSONDecoder().decode(PlantNetResponse.self, from: body)
        } catch {
            throw PlantNetError(.badResponse, "cannot read Pl@ntNet's answer: \(DecodingProblem.describe(error))")
        }
        if let remaining = decoded.remainingIdentificationRequests { quota.withLock { $0.reported(remaining: remaining, at: Date()) } }
        let candidates = decoded.results.map { result in
            PlantNetIdentification.Candidate(
                scientificName: result.species.scientificNameWithoutAuthor,
                genus: result.species.genus?.scientificNameWithoutAuthor ?? "",
                family: result.species.family?.scientificNameWithoutAuthor ?? "",
                commonNames: result.species.commonNames ?? [], score: result.score,
                gbifID: result.gbif?.id, powoID: result.powo?.id)
        }
        return PlantNetIdentification(
            candidates: candidates.sorted { $0.score > $1.score }, noPlantRecognized: candidates.isEmpty,
            bestMatch: decoded.bestMatch ?? candidates.first?.scientificName, remainingRequests: decoded.remainingIdentificationRequests,
            version: decoded.version)
    }

    private func message(_ response: HTTPResponse) -> String? {
        (try? JSONDecoder().decode(PlantNetErrorBody.self, from: response.body))?.message
    }

    /// The quota resets at 00:00 UTC.
    static func nextMidnightUTC(after date: Date) -> Date {
        Date(timeIntervalSince1970: (floor(date.timeIntervalSince1970 / 86_400) + 1) * 86_400)
    }
}

import Foundation
import Synchronization

/// Fakes of Open Plantbook, Perenual and GBIF on loopback, replaying the recorded bodies of `Fixtures/providers`:
///
/// - Open Plantbook: `POST /api/v1/token/` (the recorded grant; a new token each time), and the recorded detail of
///   Acer buergerianum (`?lang=ru`: the recorded Russian one) for a request with a token it issued; any other pid 404.
/// - Perenual: `species-list` answers the recorded list page's items whose names contain `q`, plus one item made of
///   the recorded Alocasia amazonica details' own list fields (id, names, cycle, watering, sunlight, image), since
///   no recorded list page holds it; `species/details/710` answers those details; other ids 404.
/// - GBIF: `species/match` answers the recorded match of Helianthus annuus for that name (with or without author)
///   and GBIF's documented no-match body otherwise.
///
/// `inject` queues faults that the next requests to a provider meet instead (statuses with headers, a hang,
/// malformed JSON); Open Plantbook's token exchanges meet none. `expireTokens` makes every Open Plantbook token
/// issued so far refused, as after its 24 hours.
public final class FakeCareProviders: Sendable {
    public enum Provider: Sendable { case openPlantbook, perenual, gbif }

    /// What a request meets instead of the replayed body.
    public enum Fault: Sendable {
        case status(Int, headers: [String: String] = [:], body: String = #"{"detail": "fault injected"}"#)
        case hang
        case malformed
        /// A fixed delay before the normal answer (the internet, in benchmarks).
        case delay(Duration)
        /// The normal answer with its JSON object changed: the recorded body's variations (a field of another type,
        /// an implausible value).
        case edit(@Sendable ([String: Any]) -> [String: Any])
        /// A 200 with this body instead.
        case body(Data)
        /// The normal answer once `gate` opens (the connection's own thread waits): a provider that answers only
        /// after the test has seen what the lookup did without it.
        case until(Gate)
    }

    /// What a `.until` fault waits for.
    public final class Gate: Sendable {
        private let isOpen = Atomic<Bool>(false)

        public init() {}

        public func open() { isOpen.store(true, ordering: .releasing) }

        /// Waits (blocking the calling thread: the fake's connection thread) until the gate opens, at most `limit`.
        func wait(limit: Duration) {
            let end = ContinuousClock.now + limit
            while !isOpen.load(ordering: .acquiring) && ContinuousClock.now < end { usleep(10_000) }
        }
    }

    public let openPlantbook: FakeHTTPServer
    public let perenual: FakeHTTPServer
    public let gbif: FakeHTTPServer
    private let state: State

    /// - Parameter latency: a delay before every answer (stands in for the internet).
    public init(latency: Duration = .zero) throws {
        let state = State(latency: latency)
        self.state = state
        let detail = try Fixtures.provider("openplantbook-plant-detail-official-postman")
        let detailRussian = try Fixtures.provider("openplantbook-plant-detail-lang-official-postman")
        let grant = try Fixtures.provider("openplantbook-token-official-postman")
        let details = try Fixtures.provider("perenual-species-details-greenpets-alocasia")
        let list = try Self.perenualList(details: details)
        let match = try Fixtures.provider("gbif-species-match-pygbif-cassette")
        openPlantbook = try FakeHTTPServer { request in
            let answer = { Self.openPlantbook(request, state: state, grant: grant, detail: detail, russian: detailRussian) }
            return request.path == "/api/v1/token/" ? answer() : state.answer(.openPlantbook, answer)
        }
        perenual = try FakeHTTPServer { request in state.answer(.perenual) { Self.perenual(request, list: list, details: details) } }
        gbif = try FakeHTTPServer { request in state.answer(.gbif) { Self.gbif(request, match: match) } }
    }

    /// The next `faults.count` requests to `provider` meet these, in order.
    public func inject(_ provider: Provider, _ faults: [Fault]) {
        state.faults.withLock { $0[provider, default: []].append(contentsOf: faults) }
    }

    /// Every Open Plantbook token issued so far is refused from now on.
    public func expireTokens() {
        state.tokens.withLock { $0.valid.removeAll() }
    }

    /// Tokens Open Plantbook issued.
    public var tokensIssued: Int { state.tokens.withLock { $0.issued } }

    /// Requests that every fake received (tokens, searches and matches included).
    public var requestCount: Int { openPlantbook.requests.count + perenual.requests.count + gbif.requests.count }

    public func stop() {
        openPlantbook.stop()
        perenual.stop()
        gbif.stop()
    }

    private static func openPlantbook(_ request: FakeHTTPServer.Request, state: State, grant: Data, detail: Data,
                                      russian: Data) -> FakeHTTPServer.Response {
        if request.method == "POST" && request.path == "/api/v1/token/" {
            let form = String(decoding: request.body, as: UTF8.self)
            guard form.contains("grant_type=client_credentials"), form.contains("client_id=test-client"),
                  form.contains("client_secret=test-secret") else {
                return .json(Data(#"{"error": "invalid_client"}"#.utf8), status: 401)
            }
            let token = state.tokens.withLock { tokens -> String in
                tokens.issued += 1
                let token = "token-\(tokens.issued)"
                tokens.valid.insert(token)
                return token
            }
            // The recorded grant, with a token of this fake's own in place of the recorded (truncated) one.
            guard var object = try? JSONSerialization.jsonObject(with: grant) as? [String: Any] else { return .reply(status: 500) }
            object["access_token"] = token
            return .json((try? JSONSerialization.data(withJSONObject: object)) ?? grant)
        }
        let bearer = request.headers["authorization"]?.replacingOccurrences(of: "Bearer ", with: "") ?? ""
        guard state.tokens.withLock({ $0.valid.contains(bearer) }) else {
            return .json(Data(#"{"detail": "Authentication credentials were not provided."}"#.utf8), status: 401)
        }
        switch request.path {
        case "/api/v1/plant/detail/acer buergerianum/": return .json(request.query["lang"] == "ru" ? russian : detail)
        case let path where path.hasPrefix("/api/v1/plant/detail/"): return .json(Data(#"{"detail": "Not found."}"#.utf8), status: 404)
        default: return .json(Data(#"{"detail": "Not found."}"#.utf8), status: 404)
        }
    }

    private static func perenual(_ request: FakeHTTPServer.Request, list: [Data], details: Data) -> FakeHTTPServer.Response {
        guard request.query["key"] == "test-key" else {
            return .json(Data(#"{"message": "Invalid API key."}"#.utf8), status: 401)
        }
        switch request.path {
        case "/api/v2/species-list":
            let words = (request.query["q"] ?? "").lowercased()
            let items = list.compactMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }.filter { item in
                let names = [item["common_name"] as? String ?? ""] + (item["scientific_name"] as? [String] ?? [])
                return words.isEmpty || names.contains { $0.lowercased().contains(words) }
            }
            let page: [String: Any] = ["data": items, "to": items.count, "per_page": 30, "current_page": 1, "from": 1,
                                       "last_page": 1, "total": items.count]
            return .json((try? JSONSerialization.data(withJSONObject: page)) ?? Data())
        case "/api/v2/species/details/710":
            return .json(details)
        default:
            return .json(Data(#"{"message": "Not found"}"#.utf8), status: 404)
        }
    }

    private static func gbif(_ request: FakeHTTPServer.Request, match: Data) -> FakeHTTPServer.Response {
        let name = request.query["name"] ?? ""
        if name.lowercased().hasPrefix("helianthus annuus") { return .json(match) }
        // GBIF's documented answer when nothing matches.
        return .json(Data(#"{"confidence": 100, "note": "No match because of too little confidence", "matchType": "NONE", "synonym": false}"#.utf8))
    }

    /// The recorded list page's items, and Alocasia amazonica's list fields taken from its recorded details.
    private static func perenualList(details: Data) throws -> [Data] {
        let page = try JSONSerialization.jsonObject(with: try Fixtures.provider("perenual-species-list-greenpets-frequent-outdoor")) as? [String: Any]
        var items = page?["data"] as? [[String: Any]] ?? []
        let record = try JSONSerialization.jsonObject(with: details) as? [String: Any] ?? [:]
        let listFields = ["id", "common_name", "scientific_name", "other_name", "cycle", "watering", "sunlight", "default_image"]
        items.append(record.filter { listFields.contains($0.key) })
        return try items.map { try JSONSerialization.data(withJSONObject: $0) }
    }

    /// The faults queued and the tokens issued, shared by the servers' handlers.
    private final class State: Sendable {
        let faults = Mutex<[Provider: [Fault]]>([:])
        let tokens = Mutex<(issued: Int, valid: Set<String>)>((0, []))
        let latency: Duration

        init(latency: Duration) {
            self.latency = latency
        }

        func answer(_ provider: Provider, _ normal: () -> FakeHTTPServer.Response) -> FakeHTTPServer.Response {
            let fault = faults.withLock { faults -> Fault? in
                guard var queue = faults[provider], !queue.isEmpty else { return nil }
                let first = queue.removeFirst()
                faults[provider] = queue
                return first
            }
            let response: FakeHTTPServer.Response
            switch fault {
            case .status(let status, let headers, let body)?:
                response = .json(Data(body.utf8), status: status, headers: headers)
            case .hang?:
                return .hang
            case .malformed?:
                response = .json(Data(#"{"pid": "acer buergerianum", "min_temp": "#.utf8))
            case .delay(let pause)?:
                response = .delayed(pause, normal())
            case .edit(let change)?:
                guard case .reply(let status, let headers, let body) = normal(),
                      let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                      let edited = try? JSONSerialization.data(withJSONObject: change(object)) else { return normal() }
                response = .reply(status: status, headers: headers, body: edited)
            case .body(let body)?:
                response = .json(body)
            case .until(let gate)?:
                gate.wait(limit: .seconds(120))
                response = normal()
            case nil:
                response = normal()
            }
            return latency == .zero ? response : .delayed(latency, response)
        }
    }
}

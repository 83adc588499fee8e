import ArgumentParser
import Foundation
import PlantGuideCore
import Synchronization

/// `plantguide-bench app-mix`: what an app does, through the gateway's HTTP front, at a fixed open-loop rate: list
/// the plants (40%), open one (30%), tick off a care task (15%), save a new plant (15%). Requests are due at even
/// intervals whatever the answers, and each one's latency counts from when it was due, so that a gateway falling
/// behind shows as queueing delay instead of as a slower offered rate. For `Scripts/bench stack`.
struct AppMixLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-mix", abstract: "Drive the app's request mix at an open-loop rate and print a JSON result.",
        discussion: """
            The user's plants p1...pN must exist (details read them); its open tasks are listed first and ticked \
            off one by one (each completion's next occurrence goes back into the pool). New plants get ids \
            unique to the run.
            """)

    @Option(help: "The gateway's HTTP port on 127.0.0.1; repeat it for gateway replicas (connections are spread over them).")
    var port: [Int]
    @Option(help: "The user's bearer token.") var token: String
    @Option(help: "Requests a second.") var rate: Double
    @Option(help: "Seconds to measure.") var duration = 5.0
    @Option(help: "Seconds at the same rate before measuring.") var warmup = 1.0
    @Option(help: "The plants p1...pN that details read.") var plants = 50
    @Option(help: "Keep-alive connections (the most requests in flight).") var connections = 64
    @Option(help: "Name to report the results under.") var label = "app-mix"

    func validate() throws {
        guard rate > 0, rate <= 100_000 else { throw ValidationError("--rate must be more than 0 and at most 100000") }
        guard !port.isEmpty else { throw ValidationError("give the gateway's HTTP port with --port") }
        guard duration > 0, warmup >= 0, plants >= 1, (1...1_024).contains(connections) else {
            throw ValidationError("--duration, --plants and --connections (1 to 1024) must be positive")
        }
    }

    func run() async throws {
        let headers = ["Authorization: Bearer \(token)"]
        let tasks = try TaskPool(openTasksOf: HTTPConnection(port: port[0]), headers: headers)
        let run = MixRun(ports: port, headers: headers, plants: plants, tasks: tasks, label: label)
        let result = try await run.drive(rate: rate, warmup: warmup, duration: duration, connections: connections)
        print(result)
    }
}

/// The kinds of request in the mix, with their shares.
enum AppRequest: String, CaseIterable, Sendable {
    case list, detail, complete, save

    static func pick(_ roll: Double) -> AppRequest {
        switch roll {
        case ..<0.40: .list
        case ..<0.70: .detail
        case ..<0.85: .complete
        default: .save
        }
    }
}

/// Open tasks to tick off: one per plant and kind of care, each handed to one request at a time. A completion
/// replans its plant's occurrences of that kind (the next one gets a new id), so the pool takes the task the
/// completion planned in place of the one it took; an id held from before would be a task that is gone (404).
final class TaskPool: Sendable {
    private let tasks: Mutex<[String: String]>  // "plant kind" -> open task id

    init(openTasksOf connection: HTTPConnection, headers: [String]) throws {
        defer { connection.close() }
        let answer = try connection.exchange(HTTPConnection.request(method: "GET", path: "/v1/tasks?view=VIEW_OPEN", body: nil, headers: headers))
        guard answer.status == 200 else { throw ValidationError("listing the open tasks gave HTTP \(answer.status)") }
        var earliest: [String: String] = [:]
        for (key, id) in Self.tasks(in: answer.body, key: "tasks") where earliest[key] == nil { earliest[key] = id }
        tasks = Mutex(earliest)
    }

    func take() -> String? { tasks.withLock { $0.popFirst()?.value } }

    func giveBack(plannedIn body: [UInt8]) {
        let planned = Self.tasks(in: body, key: "planned")
        tasks.withLock { pool in
            for (key, id) in planned { pool[key] = id }
        }
    }

    /// (plant and kind, id) of the tasks under `key`, in their order.
    private static func tasks(in body: [UInt8], key: String) -> [(String, String)] {
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        return (object?[key] as? [[String: Any]] ?? []).compactMap { task in
            guard let id = task["id"] as? String, let plant = task["plantId"] as? String else { return nil }
            return ("\(plant) \(task["type"] as? String ?? "")", id)
        }
    }
}

/// One run at one rate: a pacing thread queues each request when it is due; `connections` threads, each with a
/// keep-alive connection of its own, take them in order.
final class MixRun: @unchecked Sendable {
    private struct Due {
        var kind: AppRequest
        var at: ContinuousClock.Instant
        var measured: Bool
        var number: Int
    }

    private let ports: [Int]
    private let headers: [String]
    private let plants: Int
    private let tasks: TaskPool
    private let label: String
    /// Keeps the new plants' ids of one run apart from another's.
    private let runID = UUID().uuidString.prefix(8).lowercased()
    private let queue = NSCondition()
    private var waiting: [Due] = []  // guarded by queue
    private var head = 0  // guarded by queue
    private var pacingDone = false  // guarded by queue
    private let samples = Mutex<[AppRequest: [Int64]]>([:])
    private let failures = Mutex<[String: Int]>([:])

    init(ports: [Int], headers: [String], plants: Int, tasks: TaskPool, label: String) {
        self.ports = ports
        self.headers = headers
        self.plants = plants
        self.tasks = tasks
        self.label = label
    }

    func drive(rate: Double, warmup: Double, duration: Double, connections: Int) async throws -> String {
        let start = ContinuousClock.now + .milliseconds(50)
        let measureFrom = start + .milliseconds(Int64(warmup * 1_000))
        let end = measureFrom + .milliseconds(Int64(duration * 1_000))
        let workers = try (0..<connections).map { try HTTPConnection(port: ports[$0 % ports.count]) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await OwnThread.run { self.pace(rate: rate, from: start, measureFrom: measureFrom, until: end) } }
            for connection in workers {
                group.addTask { await OwnThread.run { self.work(on: connection) } }
            }
        }
        return report(rate: rate, duration: duration, connections: connections)
    }

    private func pace(rate: Double, from start: ContinuousClock.Instant, measureFrom: ContinuousClock.Instant, until end: ContinuousClock.Instant) {
        var generator = SystemRandomNumberGenerator()
        let interval = Duration.nanoseconds(Int64(1e9 / rate))
        var due = start
        var number = 0
        while due < end {
            let now = ContinuousClock.now
            if now < due { Thread.sleep(forTimeInterval: Double((due - now).nanoseconds) / 1e9) }
            number += 1
            let request = Due(kind: AppRequest.pick(Double.random(in: 0..<1, using: &generator)), at: due, measured: due >= measureFrom,
                              number: number)
            queue.lock()
            waiting.append(request)
            queue.signal()
            queue.unlock()
            due = due + interval
        }
        queue.lock()
        pacingDone = true
        queue.broadcast()
        queue.unlock()
    }

    private func next() -> Due? {
        queue.lock()
        defer { queue.unlock() }
        while head == waiting.count && !pacingDone { queue.wait() }
        guard head < waiting.count else { return nil }
        head += 1
        return waiting[head - 1]
    }

    private func work(on connection: HTTPConnection) {
        defer { connection.close() }
        while let due = next() {
            let status: Int
            do {
                status = try send(due, on: connection)
            } catch {
                failures.withLock { $0["\(due.kind.rawValue): \(error)", default: 0] += 1 }
                return
            }
            guard due.measured else { continue }
            if (200..<300).contains(status) {
                let latency = (ContinuousClock.now - due.at).nanoseconds
                samples.withLock { $0[due.kind, default: []].append(latency) }
            } else {
                failures.withLock { $0["\(due.kind.rawValue): HTTP \(status)", default: 0] += 1 }
            }
        }
    }

    private func send(_ due: Due, on connection: HTTPConnection) throws -> Int {
        switch due.kind {
        case .list:
            return try exchange(connection, "GET", "/v1/plants?filter.page_size=20").status
        case .detail:
            return try exchange(connection, "GET", "/v1/plants/p\(due.number % plants + 1)").status
        case .complete:
            // Each completion plans the task's next occurrence, so the pool stays about as full as it started; if
            // it ran dry, the app would be showing its task list instead.
            guard let task = tasks.take() else { return try exchange(connection, "GET", "/v1/tasks?view=VIEW_OPEN").status }
            let body = try JSONSerialization.data(withJSONObject: ["taskIds": [task]])
            let answer = try exchange(connection, "POST", "/v1/tasks:complete", String(decoding: body, as: UTF8.self))
            tasks.giveBack(plannedIn: answer.body)
            return answer.status
        case .save:
            let body = #"{"plant": {"scientificName": "Monstera deliciosa", "customName": "Mix \#(due.number)"}}"#
            return try exchange(connection, "PUT", "/v1/plants/mix-\(runID)-\(due.number)", body).status
        }
    }

    private func exchange(_ connection: HTTPConnection, _ method: String, _ path: String, _ body: String? = nil) throws -> (status: Int, body: [UInt8]) {
        try connection.exchange(HTTPConnection.request(method: method, path: path, body: body, headers: headers))
    }

    /// One JSON line: the offered and achieved rates, latency percentiles in ms (overall and per kind), failures.
    private func report(rate: Double, duration: Double, connections: Int) -> String {
        let byKind = samples.withLock { $0 }
        let all = byKind.values.flatMap { $0 }.sorted()
        func percentiles(_ sorted: [Int64]) -> [String: Double] {
            func at(_ p: Double) -> Double {
                sorted.isEmpty ? 0 : Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1e6
            }
            return ["p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": Double(sorted.last ?? 0) / 1e6]
        }
        var kinds: [String: Any] = [:]
        for kind in AppRequest.allCases {
            let sorted = (byKind[kind] ?? []).sorted()
            kinds[kind.rawValue] = ["count": sorted.count, "latency_ms": percentiles(sorted)]
        }
        let failed = failures.withLock { $0 }
        let object: [String: Any] = [
            "label": label, "offered_rate": rate, "achieved_rate": Double(all.count) / duration, "ok": all.count,
            "failed": failed.values.reduce(0, +), "failures": failed, "latency_ms": percentiles(all), "kinds": kinds,
            "connections": connections,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

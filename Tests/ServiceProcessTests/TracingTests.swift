import Foundation
import PlantGuideHTTP
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

/// Traces exported over OTLP/HTTP by every process of a stack, read as a collector would.
@Suite("Traces across the stack", .serialized, .wholeStack, .cleansUp)
struct TracingTests {
    private let http = CurlHTTPClient()

    /// The gateway's HTTP span, its calls, under them the server spans of care data, collection and scheduling,
    /// and under those their database transactions; the response's traceresponse names the trace.
    @Test("one PUT /v1/plants/{id} is one trace over four services, continuing the caller's traceparent", arguments: TestBackend.allCases)
    func onePutIsOneTrace(backend: TestBackend) async throws {
        let collector = try FakeHTTPServer { _ in .reply(status: 200, headers: ["Content-Type": "application/x-protobuf"]) }
        let otel = ["OTEL_EXPORTER_OTLP_ENDPOINT": collector.baseURL.absoluteString, "OTEL_BSP_SCHEDULE_DELAY": "50"]
        let plantnetKey = "plantnet-key-\(UUID().uuidString)"
        let stack = try await GatewayJourneyTests.Stack(
            backend, gatewayExtra: otel, serviceExtra: otel.merging(["PLANTGUIDE_PLANTNET_KEY": plantnetKey]) { $1 })
        let token = try await stack.token(for: "ana")
        try await stack.waitForHTTP()
        let traceID = "0af7651916cd43dd8448eb211c80319c"
        let callerSpan = "b7ad6b7169203331"

        let reply = try await http.send(HTTPRequest(
            method: "PUT", url: stack.httpBase.appendingPathComponent("v1/plants/p1"),
            headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json", "traceparent": "00-\(traceID)-\(callerSpan)-01"],
            body: Data(#"{"plant": {"scientificName": "Ficus lyrata", "customName": "Fig"}}"#.utf8)), timeout: TestTime.scaled(.seconds(20)))
        #expect(reply.status == 200)
        let traceResponse = try #require(reply.headers["traceresponse"])
        #expect(traceResponse.split(separator: "-").map(String.init).dropFirst().first == traceID, "\(traceResponse)")

        // An RPC caller's traceparent is continued too, and the answer's trailing metadata names the trace;
        // Pl@ntNet's request is a span without its key.
        let identifyTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
        let photo = try TestImages.jpeg(TestImages.gradient(width: 320, height: 240))
        let identified = try await stack.reply(
            Plantguide_Gateway_V1_GatewayService.identifyPlant, .with { $0.images = [.with { $0.data = photo; $0.organ = .leaf }] },
            token: token, extra: ["traceparent": "00-\(identifyTrace)-\(callerSpan)-01"])
        #expect(identified.traceID == identifyTrace, "\(identified.trailingMetadata)")
        // A failed call's answer names its trace as well.
        let failedTrace = "5cf92f3577b34da6a3ce929d0e0e4737"
        let failure = await #expect(throws: RPCError.self) {
            try await stack.call(Plantguide_Gateway_V1_GatewayService.getPlantDetails, .with { $0.plantID = "missing" }, token: token,
                                 extra: ["traceparent": "00-\(failedTrace)-\(callerSpan)-01"])
        }
        #expect(failure?.code == .notFound && failure?.trailingMetadata["traceresponse"].flatMap(TraceParent.traceID) == failedTrace,
                "\(String(describing: failure))")

        // Spans are exported in batches after they end, each process on its own; wait for the last of each trace
        // (a process exports a span's children before it, as they end first).
        var spans: [ExportedSpan] = []
        var identifySpans: [ExportedSpan] = []
        for _ in 0..<100 {
            let exported = try await exportedSpans(collector)
            spans = exported.filter { $0.traceID == traceID }
            identifySpans = exported.filter { $0.traceID == identifyTrace }
            let servers = Set(spans.filter { $0.kind == "SPAN_KIND_SERVER" }.map(\.service))
            if servers.isSuperset(of: ["plantguide-gateway", "plantguide-caredata", "plantguide-collection", "plantguide-scheduling"]),
               Set(identifySpans.filter { $0.kind == "SPAN_KIND_SERVER" }.map(\.service))
                   .isSuperset(of: ["plantguide-gateway", "plantguide-identification"]) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        await stack.stop()

        checkIdentification(identifySpans, callerSpan: callerSpan, key: plantnetKey)
        let front = try #require(spans.first { $0.service == "plantguide-gateway" && $0.kind == "SPAN_KIND_SERVER" && $0.parentSpanID == callerSpan },
                                 "spans: \(spans.map(\.summary))")
        #expect(front.name == "PUT /v1/plants/{plant.id}" && front.attributes["http.response.status_code"] == "200")
        let byID = Dictionary(spans.map { ($0.spanID, $0) }) { first, _ in first }
        func descends(_ span: ExportedSpan, from ancestor: ExportedSpan) -> Bool {
            var current = span
            while let parent = byID[current.parentSpanID] {
                if parent.spanID == ancestor.spanID { return true }
                current = parent
            }
            return false
        }
        let database = backend == .postgres ? "postgresql" : "sqlite"
        for service in ["caredata", "collection", "scheduling"] {
            let server = spans.filter { $0.service == "plantguide-\(service)" && $0.kind == "SPAN_KIND_SERVER" }
            #expect(!server.isEmpty, "no server span from \(service): \(spans.map(\.summary))")
            for span in server {
                let client = byID[span.parentSpanID]
                #expect(client?.kind == "SPAN_KIND_CLIENT" && client?.service == "plantguide-gateway" && client?.name == span.name,
                        "\(span.summary) is not under the gateway's call of it")
                #expect(descends(span, from: front), "\(span.summary) is not under the HTTP request")
                #expect(span.attributes["rpc.system"] == "plantguide" && span.attributes["rpc.method"] != nil)
            }
            // The service's database transactions sit under the call that made them. (Care data answers a catalog
            // species with no provider configured without its cache: no transaction.)
            let transactions = spans.filter { $0.service == "plantguide-\(service)" && $0.attributes["db.system.name"] == database }
            #expect(service == "caredata" || !transactions.isEmpty, "no database span from \(service): \(spans.map(\.summary))")
            for transaction in transactions {
                let parent = byID[transaction.parentSpanID]
                #expect(parent?.service == "plantguide-\(service)" && parent?.kind == "SPAN_KIND_SERVER", "\(transaction.summary)")
            }
        }
    }

    /// The spans of an identification through Pl@ntNet: the gateway's server span continues the caller's, and the
    /// request to Pl@ntNet is a client span under identification's, naming the host but never the key.
    /// Concurrent identifications share batches of the model: each batch is one span, under the server span of
    /// one request it serves and linked to the others', with the batch size as an attribute.
    @Test("each inference batch is a span under one request it served, linked to the others")
    func inferenceBatches() async throws {
        let collector = try FakeHTTPServer { _ in .reply(status: 200, headers: ["Content-Type": "application/x-protobuf"]) }
        let service = try await ServiceProcess(
            "plantguide-identification", endpoint: "tcp://127.0.0.1:\(try FreePort.next())",
            environment: ["PLANTGUIDE_MODELS": ModelFixtures.modelRepository.path,
                          "OTEL_EXPORTER_OTLP_ENDPOINT": collector.baseURL.absoluteString, "OTEL_BSP_SCHEDULE_DELAY": "50"],
            arguments: ["--max-wait-ms", "1000"])
        let client = try RPCClient(target: service.endpoint, configuration: .forTests)
        defer { client.close() }
        // Four requests, each its own trace and photo (identical photos would be answered from the cache).
        let traces = (0..<4).map { String(format: "%032x", 0xA1B2_0000 + $0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, trace) in traces.enumerated() {
                let photo = try TestImages.jpeg(TestImages.gradient(width: 200 + 10 * index, height: 150))
                group.addTask {
                    let reply = try await client.reply(Plantguide_Identification_V1_IdentificationService.identify, .with {
                        $0.method = .onDevice
                        $0.images = [.with { $0.data = photo }]
                    }, options: .init(timeout: TestTime.scaled(.seconds(20)), metadata: ["traceparent": "00-\(trace)-b7ad6b7169203331-01"]))
                    #expect(reply.message.source == .onDevice && reply.traceID == trace)
                }
            }
            try await group.waitForAll()
        }
        var batches: [ExportedSpan] = []
        var spans: [ExportedSpan] = []
        for _ in 0..<100 {
            spans = try await exportedSpans(collector)
            batches = spans.filter { $0.name == "inference batch" }
            if batches.reduce(0, { $0 + (Int($1.attributes["plantguide.inference.batch_size"] ?? "") ?? 0) }) >= traces.count { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(await service.terminate() == 0)

        let servers = Dictionary(spans.filter { $0.kind == "SPAN_KIND_SERVER" }.map { ($0.spanID, $0) }) { first, _ in first }
        var served: [String] = []
        for batch in batches {
            let parent = servers[batch.parentSpanID]
            #expect(parent?.name == "plantguide.identification.v1.IdentificationService/Identify" && parent?.traceID == batch.traceID,
                    "\(batch.summary) is not under an Identify call")
            #expect(batch.attributes["plantguide.inference.requests"] == "\(batch.links.count + 1)"
                    && batch.attributes["plantguide.inference.batch_size"] == "\(batch.links.count + 1)", "\(batch.attributes)")
            for link in batch.links {
                #expect(servers[link.spanID]?.traceID == link.traceID, "a link of \(batch.summary) is not to a server span")
            }
            served += [batch.traceID] + batch.links.map(\.traceID)
        }
        #expect(served.sorted() == traces, "batches: \(batches.map(\.summary)); spans: \(spans.map(\.summary))")
        // A second of waiting for the batch to fill lets the four requests share one.
        #expect(batches.contains { !$0.links.isEmpty }, "\(batches.map(\.summary))")
    }

    private func checkIdentification(_ spans: [ExportedSpan], callerSpan: String, key: String) {
        let byID = Dictionary(spans.map { ($0.spanID, $0) }) { first, _ in first }
        let front = spans.first { $0.service == "plantguide-gateway" && $0.kind == "SPAN_KIND_SERVER" }
        #expect(front?.parentSpanID == callerSpan && front?.name == "plantguide.gateway.v1.GatewayService/IdentifyPlant",
                "\(spans.map(\.summary))")
        let plantnet = spans.first { $0.attributes["server.address"] == "127.0.0.1" }
        #expect(plantnet?.service == "plantguide-identification" && plantnet?.kind == "SPAN_KIND_CLIENT"
                && plantnet?.attributes["http.response.status_code"] == "200", "\(spans.map(\.summary))")
        #expect(plantnet.flatMap { byID[$0.parentSpanID] }?.kind == "SPAN_KIND_SERVER")
        #expect(!spans.contains { span in span.name.contains(key) || span.attributes.values.contains { $0.contains(key) } })
    }

    /// The spans the collector received, decoded with the opentelemetry-proto definitions (otlp_spans.py).
    private func exportedSpans(_ collector: FakeHTTPServer) async throws -> [ExportedSpan] {
        let bodies = collector.requests.filter { $0.path == "/v1/traces" }.map(\.body)
        guard !bodies.isEmpty else { return [] }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-otlp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [String] = []
        for (index, body) in bodies.enumerated() {
            let file = folder.appendingPathComponent("\(index).pb")
            try body.write(to: file)
            files.append(file.path)
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("otlp_spans.py").path
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script] + files)
        #expect(outcome.status == 0, "otlp_spans.py: \(outcome.output)")
        return outcome.output.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).map(ExportedSpan.init)
        }
    }
}

/// One exported span, as otlp_spans.py prints it.
private struct ExportedSpan {
    var service: String
    var name: String
    var kind: String
    var traceID: String
    var spanID: String
    var parentSpanID: String
    var attributes: [String: String]
    /// The spans this one links to: trace id and span id.
    var links: [(traceID: String, spanID: String)]

    init(_ json: [String: Any]) {
        service = json["service"] as? String ?? ""
        name = json["name"] as? String ?? ""
        kind = json["kind"] as? String ?? ""
        traceID = json["trace_id"] as? String ?? ""
        spanID = json["span_id"] as? String ?? ""
        parentSpanID = json["parent_span_id"] as? String ?? ""
        attributes = (json["attributes"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
        links = (json["links"] as? [[String: String]] ?? []).map { ($0["trace_id"] ?? "", $0["span_id"] ?? "") }
    }

    var summary: String { "\(service) \(kind) \(name) \(spanID)←\(parentSpanID)" }
}

// grpc-echo server HOST PORT
// grpc-echo client HOST PORT PAYLOAD INFLIGHT SECONDS WARMUP   (prints a JSON result line like plantguide-bench)
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix

/// Passes message bytes through untouched, so the benchmark measures transport and framework only.
struct BytesCodec: MessageSerializer, MessageDeserializer {
    func serialize<Bytes: GRPCContiguousBytes>(_ message: [UInt8]) throws -> Bytes { Bytes(message) }
    func deserialize<Bytes: GRPCContiguousBytes>(_ bytes: Bytes) throws -> [UInt8] {
        bytes.withUnsafeBytes { Array($0) }
    }
}

let echo = MethodDescriptor(fullyQualifiedService: "plantguide.bench.v1.Bench", method: "Echo")

struct EchoService: RegistrableRPCService {
    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        router.registerHandler(forMethod: echo, deserializer: BytesCodec(), serializer: BytesCodec()) { request, _ in
            var message: [UInt8] = []
            for try await part in request.messages { message = part }
            return StreamingServerResponse(single: ServerResponse(message: message))
        }
    }
}

func serve(host: String, port: Int) async throws {
    let transport = HTTP2ServerTransport.Posix(address: .ipv4(host: host, port: port), transportSecurity: .plaintext)
    try await withGRPCServer(transport: transport, services: [EchoService()]) { _ in
        print("listening")
        try await Task.sleep(for: .seconds(1_000_000))
    }
}

func load(_ client: GRPCClient<HTTP2ClientTransport.Posix>, payload: [UInt8], inflight: Int, seconds: Double) async throws -> [Int64] {
    let clock = ContinuousClock()
    let end = clock.now + .milliseconds(Int64(seconds * 1_000))
    return try await withThrowingTaskGroup(of: [Int64].self) { group in
        for _ in 0..<inflight {
            group.addTask {
                var latencies: [Int64] = []
                while clock.now < end {
                    let start = clock.now
                    let reply = try await client.unary(
                        request: ClientRequest(message: payload), descriptor: echo, serializer: BytesCodec(),
                        deserializer: BytesCodec(), options: .defaults) { try $0.message }
                    precondition(reply.count == payload.count)
                    let (s, a) = (clock.now - start).components
                    latencies.append(s * 1_000_000_000 + a / 1_000_000_000)
                }
                return latencies
            }
        }
        return try await group.reduce(into: []) { $0 += $1 }
    }
}

func runClient(host: String, port: Int, payloadSize: Int, inflight: Int, seconds: Double, warmup: Double) async throws {
    let transport = try HTTP2ClientTransport.Posix(target: .ipv4(host: host, port: port), transportSecurity: .plaintext)
    try await withGRPCClient(transport: transport) { client in
        let payload = [UInt8](repeating: 0xAB, count: payloadSize)
        _ = try await load(client, payload: payload, inflight: inflight, seconds: warmup)
        let started = ContinuousClock.now
        let samples = try await load(client, payload: payload, inflight: inflight, seconds: seconds).sorted()
        let (s, a) = (ContinuousClock.now - started).components
        let elapsed = Double(s) + Double(a) / 1e18
        func p(_ q: Double) -> Double { samples.isEmpty ? 0 : Double(samples[min(samples.count - 1, Int(Double(samples.count) * q))]) / 1_000 }
        print(String(format: #"{"impl":"grpc-swift-2","payload":%d,"inflight":%d,"calls":%d,"seconds":%.3f,"p50_us":%.1f,"p99_us":%.1f,"p999_us":%.1f}"#,
                     payloadSize, inflight, samples.count, elapsed, p(0.5), p(0.99), p(0.999)))
    }
}

let arguments = CommandLine.arguments
switch (arguments.count, arguments.count > 1 ? arguments[1] : "") {
case (4, "server"):
    try await serve(host: arguments[2], port: Int(arguments[3])!)
case (8, "client"):
    try await runClient(host: arguments[2], port: Int(arguments[3])!, payloadSize: Int(arguments[4])!,
                        inflight: Int(arguments[5])!, seconds: Double(arguments[6])!, warmup: Double(arguments[7])!)
default:
    FileHandle.standardError.write(Data("usage: grpc-echo server HOST PORT | client HOST PORT PAYLOAD INFLIGHT SECONDS WARMUP\n".utf8))
    exit(2)
}

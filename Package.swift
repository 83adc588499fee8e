// swift-tools-version: 6.1
// PlantGuide: Swift microservices speaking protobuf RPC over ZeroMQ. See README.md and DESIGN.md.
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

/// A service library, and the library of its command (which the one `plantguide` executable runs).
func service(
    _ library: String, command: String, extra: [Target.Dependency] = [], commandExtra: [Target.Dependency] = [],
    resources: [Resource]? = nil
) -> [Target] {
    [
        .target(
            name: library,
            dependencies: [
                "PlantGuideRPC", "PlantGuideRPCCore", "PlantGuideCore", "PlantGuideThreads", "PlantGuideProtos",
                .product(name: "Logging", package: "swift-log"),
            ] + extra,
            resources: resources,
            swiftSettings: strict
        ),
        .target(
            name: command,
            dependencies: [
                .target(name: library), "PlantGuideServiceKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ] + commandExtra,
            swiftSettings: strict
        ),
    ]
}

let package = Package(
    name: "PlantGuide",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PlantGuideRPCCore", targets: ["PlantGuideRPCCore"]),
        .library(name: "PlantGuideRPC", targets: ["PlantGuideRPC"]),
        .library(name: "PlantGuideProtos", targets: ["PlantGuideProtos"]),
        // One executable: the client, and every service (`plantguide serve collection`, or called as
        // plantguide-collection, a symbolic link that Scripts/link-services makes).
        .executable(name: "plantguide", targets: ["PlantGuide"]),
        .executable(name: "plantguide-bench", targets: ["PlantGuideBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-protobuf.git", exact: "1.39.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        // OTLP over HTTP only: the gRPC exporter would add grpc-swift-2 to every build.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // libzmq from Debian's libzmq3-dev (headers in /usr/include; no pkg-config, whose flags drag in krb5).
        .systemLibrary(name: "CZeroMQ", providers: [.apt(["libzmq3-dev"])]),
        .target(
            name: "PlantGuideProtos",
            dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")],
            exclude: ["README.md"]
        ),
        // Threads that carry their names to the OS (top -H, perf), for every module that starts threads.
        .target(name: "PlantGuideThreads", swiftSettings: strict),
        // The RPC contract with no transport (errors and their details, the router, call options, the transport and
        // interceptor protocols): what storage and every service's domain code may import without linking libzmq.
        .target(
            name: "PlantGuideRPCCore",
            dependencies: [
                "PlantGuideProtos",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strict
        ),
        // The ZeroMQ transport: client and server loops, PUB/SUB, CurveZMQ and ZAP, metrics; the in-process transport,
        // which rides the server's loop. It re-exports the core.
        .target(
            name: "PlantGuideRPC",
            dependencies: [
                "CZeroMQ", "PlantGuideThreads", "PlantGuideRPCCore",
                "PlantGuideProtos",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strict
        ),
        .target(name: "PlantGuideCore", dependencies: ["PlantGuideThreads"], swiftSettings: strict),
        // libjpeg-turbo (TurboJPEG), libpng and libwebp from Debian.
        .systemLibrary(name: "CImageCodecs", providers: [.apt(["libturbojpeg0-dev", "libpng-dev", "libwebp-dev"])]),
        // Baseline JPEGs at 1/8 scale from their DC coefficients, on two threads: most of a 12-megapixel identification.
        .target(name: "CJPEGEighth", cSettings: [.unsafeFlags(["-O3"])]),
        .target(name: "PlantGuideImaging", dependencies: ["CImageCodecs", "CJPEGEighth"], swiftSettings: strict),
        // The executor's SIMD loops (AVX2 chosen at run time) and OpenBLAS (Debian's libopenblas0), loaded at first use.
        .target(name: "CInferenceKernels", cSettings: [.unsafeFlags(["-O3"])]),
        // The ONNX executor: ONNX's schema (generated), the operators image classifiers need, plans per input shape.
        .target(
            name: "PlantGuideInference",
            dependencies: ["CInferenceKernels", .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        // One HTTP client for every external call (Trefle, Pl@ntNet, webhooks): libcurl (Debian's
        // libcurl4-openssl-dev), driven by CHTTPTransport's C on threads of its own.
        .target(name: "CHTTPTransport", linkerSettings: [.linkedLibrary("curl")]),
        .target(
            name: "PlantGuideHTTP",
            dependencies: ["CHTTPTransport", "PlantGuideThreads", .product(name: "Tracing", package: "swift-distributed-tracing")],
            swiftSettings: strict),
        .target(
            name: "PlantGuideStorage",
            dependencies: [
                "PlantGuideRPCCore", "PlantGuideThreads", "CSodium",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strict),
        // Web Push's message encryption (RFC 8291) and VAPID signatures (RFC 8292), on swift-crypto (BoringSSL), which
        // postgres-nio builds anyway.
        .target(name: "PlantGuideWebPush", dependencies: ["PlantGuideCore", .product(name: "Crypto", package: "swift-crypto")],
                swiftSettings: strict),
        // Passkeys: WebAuthn registration and sign-in verified (attestation "none", ES256 and EdDSA), with a CBOR and
        // COSE reader of its own, on swift-crypto.
        .target(name: "PlantGuideWebAuthn", dependencies: ["PlantGuideCore", .product(name: "Crypto", package: "swift-crypto")],
                swiftSettings: strict),
        // libsodium from Debian: SHA-256 of photos, HMAC-SHA256 of webhooks.
        .systemLibrary(name: "CSodium", providers: [.apt(["libsodium-dev"])]),
        // zlib from Debian: the web app's assets gzipped.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "PlantGuideServiceKit",
            dependencies: [
                "PlantGuideRPC", "PlantGuideHTTP",
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "PlantGuide",
            dependencies: [
                "PlantGuideCLI", "IdentificationService", "CareDataService", "CollectionService", "SchedulingService", "GatewayService",
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PlantGuideCLI",
            dependencies: [
                "PlantGuideRPC", "PlantGuideHTTP", "PlantGuideWebPush",
                "PlantGuideCore",
                "PlantGuideProtos",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        // The Swift side of Scripts/bench rpc (its peers, grpc-swift-2 and a C baseline, live in Benchmarks/).
        .executableTarget(
            name: "PlantGuideBench",
            dependencies: [
                "PlantGuideRPC",
                "PlantGuideProtos",
                "Collection",
                "Scheduling",
                "PlantGuideCore",
                "PlantGuideImaging",
                "PlantGuideInference",
                "PlantGuideStorage", "PlantGuideHTTP", "PlantGuideTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PlantGuideTestSupport",
            dependencies: [
                "PlantGuideRPC", "PlantGuideProtos", "PlantGuideCore", "PlantGuideThreads", "PlantGuideImaging", "PlantGuideStorage", "CImageCodecs",
                "CZeroMQ",
                "PlantGuideWebPush", "PlantGuideWebAuthn", .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/PlantGuideTestSupport",
            exclude: ["Fixtures/README.md"],
            resources: [.copy("Fixtures/trefle"), .copy("Fixtures/plantnet"), .copy("Fixtures/providers")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PlantGuideRPCTests",
            dependencies: ["PlantGuideRPC", "PlantGuideProtos", "PlantGuideTestSupport", "CZeroMQ"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PlantGuideImagingTests", dependencies: ["PlantGuideImaging", "PlantGuideTestSupport", "CImageCodecs", "CJPEGEighth"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(
            name: "PlantGuideCoreTests",
            dependencies: [
                "PlantGuideCore", "PlantGuideThreads", "PlantGuideTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "PlantGuideStorageTests",
            dependencies: ["PlantGuideStorage", "PlantGuideRPC", "PlantGuideTestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        .testTarget(name: "PlantGuideHTTPTests", dependencies: ["PlantGuideHTTP", "PlantGuideTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "CareDataTests",
            dependencies: [
                "CareData", "PlantGuideCore", "PlantGuideHTTP", "PlantGuideStorage", "PlantGuideTestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CollectionTests",
            dependencies: [
                "Collection", "PlantGuideProtos", "PlantGuideStorage", "PlantGuideTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "IdentificationTests",
            dependencies: ["Identification", "PlantGuideCore", "PlantGuideInference", "PlantGuideTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "InferenceTests", dependencies: ["PlantGuideInference", "CInferenceKernels", "PlantGuideCore", "PlantGuideTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "SchedulingTests",
            dependencies: [
                "Scheduling", "PlantGuideCore", "PlantGuideProtos", "PlantGuideRPC", "PlantGuideStorage", "PlantGuideTestSupport",
                "PlantGuideWebPush", "PlantGuideHTTP", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: ["Gateway", "PlantGuideStorage", "PlantGuideTestSupport", "PlantGuideWebAuthn",
                           // The services' own handlers, for the gateway in process (InProcessGateway).
                           "Collection", "Scheduling", "CareData", "Identification",
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "HummingbirdTesting", package: "hummingbird")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FuzzTests",
            dependencies: [
                "Collection", "Scheduling", "CareData", "Identification", "PlantGuideRPC", "PlantGuideProtos",
                "PlantGuideTestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: strict
        ),
        // Every SQL statement of the stores, recorded from a workload and checked with EXPLAIN QUERY PLAN.
        .testTarget(
            name: "QueryPlanTests",
            dependencies: [
                "Collection", "Scheduling", "CareData", "Gateway", "PlantGuideProtos", "PlantGuideStorage", "PlantGuideTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ServiceProcessTests",
            dependencies: ["PlantGuideRPC", "PlantGuideProtos", "PlantGuideCore", "PlantGuideHTTP", "PlantGuideServiceKit", "PlantGuideTestSupport",
                           "PlantGuideWebPush", .product(name: "Crypto", package: "swift-crypto")],
            // Run as processes of their own: to decode the spans the tracing test's collector received, and to drive
            // Chromium through passkey ceremonies and the web app's screens.
            exclude: ["otlp_spans.py", "passkey_browser.py", "web_pages_browser.py", "web_push_browser.py"],
            swiftSettings: strict
        ),
    ]
        + service(
            "Identification", command: "IdentificationService",
            extra: [
                "PlantGuideHTTP", "PlantGuideImaging", "PlantGuideInference", "CSodium",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            commandExtra: ["PlantGuideInference"])
        + service(
            "CareData", command: "CareDataService",
            extra: [
                "PlantGuideHTTP", "PlantGuideStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            commandExtra: ["PlantGuideStorage"],
            resources: [.copy("Resources/catalog.psv")])
        + service(
            "Collection", command: "CollectionService",
            extra: [
                "PlantGuideImaging", "CSodium",
                "PlantGuideStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            commandExtra: ["PlantGuideStorage"])
        + service(
            "Scheduling", command: "SchedulingService",
            extra: [
                "CSodium", "PlantGuideWebPush",
                "PlantGuideHTTP", "PlantGuideStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            commandExtra: ["PlantGuideStorage", "PlantGuideWebPush"])
        + service(
            "Gateway", command: "GatewayService",
            extra: [
                "CSodium", "CZlib", "PlantGuideStorage", "PlantGuideWebAuthn",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            commandExtra: ["PlantGuideStorage"],
            resources: [.copy("Resources/openapi.json"), .copy("PasswordLists/common-passwords.txt"), .copy("WebAssets")])
)

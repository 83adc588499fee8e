// swift-tools-version: 6.1
// The grpc-swift-2 peer of Scripts/bench rpc: a unary echo over HTTP/2 (NIO, plaintext) with a raw-bytes codec,
// measured the same way as plantguide-bench. Its own package so that the main build and CI never build NIO.
import PackageDescription

let package = Package(
    name: "GRPCEcho",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/grpc/grpc-swift-2.git", exact: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", exact: "2.9.2"),
    ],
    targets: [
        .executableTarget(
            name: "grpc-echo",
            dependencies: [
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
            ]
        )
    ]
)

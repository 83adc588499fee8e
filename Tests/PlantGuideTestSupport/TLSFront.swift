import Foundation
import PlantGuideCore

/// A certificate authority a test makes for itself (with the `openssl` command), and a server certificate it
/// signed for `localhost` only: an https fake is then trusted through `--ca-file` / ``CertificateAuthorities``
/// without touching the system's bundle, and reached as `https://127.0.0.1` it has the wrong host name.
public struct TestCertificateAuthority: Sendable {
    /// The folder holding ca.pem, server.pem and server.key.
    public let folder: URL
    public var caFile: String { folder.appendingPathComponent("ca.pem").path }
    public var serverCertificate: String { folder.appendingPathComponent("server.pem").path }
    public var serverKey: String { folder.appendingPathComponent("server.key").path }

    /// Makes a new CA (P-256, valid two days) and a server certificate for DNS:localhost signed by it.
    public static func make() async throws -> TestCertificateAuthority {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        TestResources.track(folder: folder)
        try "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(to: folder.appendingPathComponent("server.ext"), atomically: true, encoding: .utf8)
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("ca.key"),
             "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=PlantGuide test CA", "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("server.key"),
             "-out", path("server.csr"), "-subj", "/CN=localhost"],
            ["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
             "-out", path("server.pem"), "-days", "2", "-extfile", path("server.ext")],
        ]
        for step in steps {
            let outcome = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/openssl"), step, mergingStandardError: true)
            guard outcome.status == 0 else {
                throw TLSTestError("openssl \(step[0]) failed: \(outcome.output)")
            }
        }
        return TestCertificateAuthority(folder: folder)
    }
}

/// TLS in front of a plain HTTP fake (``FakeHTTPServer``, ``FakeCareProviders``, ``FakePushService``): a Python
/// process on 127.0.0.1 that completes the TLS handshake with the test CA's server certificate and passes the
/// bytes through to the fake, so that the fake is an https server as the real services are.
public final class TLSFront: Sendable {
    public let port: Int
    private let process: SpawnedProcess

    /// Where the fake is reached over https under `host` ("localhost": the name the certificate holds).
    public func url(host: String = "localhost") -> URL { URL(string: "https://\(host):\(port)")! }

    /// Starts the front for `backend` (an http://127.0.0.1:port URL) and waits until it accepts connections.
    public init(for backend: URL, authority: TestCertificateAuthority) async throws {
        let script = authority.folder.appendingPathComponent("tls_front.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        port = try FreePort.next()
        process = try SpawnedProcess("/usr/bin/env", ["python3", script.path, String(port), authority.serverCertificate, authority.serverKey,
                                                      String(backend.port ?? 80)], standardOutput: .null)
        let port = self.port
        let ready = await OwnThread.run { Self.waitForListener(port: port, seconds: 20) }
        guard ready else {
            process.send(SIGKILL)
            throw TLSTestError("the TLS front on port \(port) did not start")
        }
    }

    deinit { stop() }

    public func stop() {
        process.send(SIGKILL)
    }

    /// Polls for a listener on 127.0.0.1:`port` (blocking: run on a thread of its own).
    private static func waitForListener(port: Int, seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(socket)
            if connected { return true }
            usleep(20_000)
        }
        return false
    }

    private static let script = """
        import socket, ssl, sys, threading
        port, certificate, key, backend = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        listener = socket.create_server(("127.0.0.1", port))

        def close(connection):
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            connection.close()

        def pipe(source, target):
            try:
                while True:
                    data = source.recv(65536)
                    if not data:
                        break
                    target.sendall(data)
            except OSError:
                pass
            close(source)
            close(target)

        def serve(raw):
            try:
                secure = context.wrap_socket(raw, server_side=True)
            except (ssl.SSLError, OSError):
                raw.close()
                return
            upstream = socket.create_connection(("127.0.0.1", backend))
            threading.Thread(target=pipe, args=(secure, upstream), daemon=True).start()
            pipe(upstream, secure)

        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """
}

/// A test's TLS set-up that failed, in words.
public struct TLSTestError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

import CZeroMQ
import Foundation

/// A CurveZMQ key pair in Z85 (40 characters each), as libzmq makes and reads them.
public struct CurveKeyPair: Sendable, Equatable {
    public var publicKey: String
    public var secretKey: String

    /// A new random key pair.
    /// - Throws: ``RPCError`` FAILED_PRECONDITION when libzmq was built without CURVE (libsodium).
    public static func generate() throws -> CurveKeyPair {
        try CurveSecurity.requireCurve()
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicKey, &secretKey) == 0 else { throw RPCError(.internal, "zmq_curve_keypair failed") }
        return CurveKeyPair(publicKey: String(cString: publicKey), secretKey: String(cString: secretKey))
    }

    /// The pair of `secretKey` (its public key derived from it).
    /// - Throws: ``RPCError`` INVALID_ARGUMENT when it is not a Z85 CURVE key.
    public init(secretKey: String) throws {
        try CurveSecurity.requireCurve()
        let secret = secretKey.trimmingCharacters(in: .whitespacesAndNewlines)
        var publicKey = [CChar](repeating: 0, count: 41)
        guard CurveSecurity.isZ85Key(secret), zmq_curve_public(&publicKey, secret) == 0 else {
            throw RPCError.invalidArgument("secret_key", .invalidFormat, "a CURVE secret key is 40 Z85 characters")
        }
        self.init(publicKey: String(cString: publicKey), secretKey: secret)
    }

    public init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }
}

/// CurveZMQ for a server: its key pair, and the public keys of the clients it lets in (checked by a ZAP handler,
/// ``ZAPHandler``). A client with another key, or without CURVE, never completes the handshake.
public struct CurveServerSecurity: Sendable {
    public var keyPair: CurveKeyPair
    public var allowedClientKeys: Set<String>

    public init(keyPair: CurveKeyPair, allowedClientKeys: Set<String>) {
        self.keyPair = keyPair
        self.allowedClientKeys = allowedClientKeys
    }
}

/// CurveZMQ for a client: its own key pair, and the server's public key it expects.
public struct CurveClientSecurity: Sendable {
    public var keyPair: CurveKeyPair
    public var serverPublicKey: String

    public init(keyPair: CurveKeyPair, serverPublicKey: String) {
        self.keyPair = keyPair
        self.serverPublicKey = serverPublicKey
    }
}

/// Reading keys from files and the environment.
public enum CurveSecurity {
    /// Whether libzmq here can do CURVE.
    public static var isAvailable: Bool { zmq_has("curve") == 1 }

    static func requireCurve() throws {
        guard isAvailable else { throw RPCError(.failedPrecondition, "this libzmq was built without CURVE (libsodium)") }
    }

    static func isZ85Key(_ text: String) -> Bool {
        text.utf8.count == 40 && text.utf8.allSatisfy { $0 > 32 && $0 < 127 }
    }

    /// The keys in `text`: one Z85 key per line (40 characters); blank lines and other lines starting with "#" are
    /// skipped, and so is a "public-key = " or "secret-key = " prefix with quotes (zcert's format).
    /// - Throws: ``RPCError`` INVALID_ARGUMENT naming `source` and the line when one is not a key.
    public static func keys(in text: String, source: String) throws -> [String] {
        var keys: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = raw.trimmingCharacters(in: .whitespaces)
            // A key first: Z85 has '#' and '=' among its characters, so a 40-character line is a key.
            if isZ85Key(line) {
                keys.append(line)
                continue
            }
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("metadata") || line.hasPrefix("curve") { continue }
            for prefix in ["public-key", "secret-key"] where line.hasPrefix(prefix) {
                line = line.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
                line = line.hasPrefix("=") ? line.dropFirst().trimmingCharacters(in: .whitespaces) : line
                line = line.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
            guard isZ85Key(line) else {
                throw RPCError.invalidArgument("curve_key", .invalidFormat, "\(source), line \(number + 1): not a 40-character Z85 CURVE key")
            }
            keys.append(line)
        }
        return keys
    }

    /// The (first) key in the file at `path`.
    public static func key(fromFile path: String) throws -> String {
        try keys(fromFile: path)[0]
    }

    /// The keys in the file at `path`: at least one.
    public static func keys(fromFile path: String) throws -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw RPCError.invalidArgument("curve_key", .invalidFormat, "cannot read the key file \(path)")
        }
        let keys = try keys(in: text, source: path)
        guard !keys.isEmpty else { throw RPCError.invalidArgument("curve_key", .required, "no key in \(path)") }
        return keys
    }

    /// The keys a setting gives, the way every CurveZMQ setting is read: the file at `path` (a flag's value), else
    /// the file the environment's `fileVariable` names, else the keys themselves in `variable` (comma-separated);
    /// nil when none of them is set.
    /// - Throws: ``RPCError`` INVALID_ARGUMENT for an unreadable file, a malformed key, or a setting without one.
    public static func keys(file path: String?, fileVariable: String, variable: String, environment: [String: String]) throws -> [String]? {
        func nonEmpty(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let file = path ?? nonEmpty(fileVariable) { return try keys(fromFile: file) }
        guard let value = nonEmpty(variable) else { return nil }
        let keys = try keys(in: value.replacingOccurrences(of: ",", with: "\n"), source: variable)
        guard !keys.isEmpty else { throw RPCError.invalidArgument("curve_key", .required, "no key in \(variable)") }
        return keys
    }
}

extension CurveClientSecurity {
    /// The client's CurveZMQ settings from files (flags) or the environment: its secret key
    /// (PLANTGUIDE_CURVE_CLIENT_KEY_FILE, or the key in PLANTGUIDE_CURVE_CLIENT_KEY) and the server's public key
    /// (PLANTGUIDE_CURVE_SERVER_KEY_FILE or PLANTGUIDE_CURVE_SERVER_KEY); nil when neither is set.
    /// - Throws: ``RPCError`` INVALID_ARGUMENT when only one is set, or a key is malformed.
    public static func resolve(clientKeyFile: String?, serverKeyFile: String?, environment: [String: String]) throws -> CurveClientSecurity? {
        let client = try CurveSecurity.keys(file: clientKeyFile, fileVariable: "PLANTGUIDE_CURVE_CLIENT_KEY_FILE",
                                            variable: "PLANTGUIDE_CURVE_CLIENT_KEY", environment: environment)?.first
        let server = try CurveSecurity.keys(file: serverKeyFile, fileVariable: "PLANTGUIDE_CURVE_SERVER_KEY_FILE",
                                            variable: "PLANTGUIDE_CURVE_SERVER_KEY", environment: environment)?.first
        switch (client, server) {
        case (nil, nil): return nil
        case (let client?, let server?):
            return CurveClientSecurity(keyPair: try CurveKeyPair(secretKey: client), serverPublicKey: server)
        case (nil, _): throw RPCError.invalidArgument("client_key", .required, "CurveZMQ needs the client's secret key too")
        case (_, nil): throw RPCError.invalidArgument("server_key", .required, "CurveZMQ needs the server's public key too")
        }
    }
}

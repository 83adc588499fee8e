import Crypto
import Foundation
import PlantGuideCore

/// Voluntary Application Server Identification (RFC 8292): the key pair that identifies this PlantGuide to push
/// services. Browsers subscribe with its public key (`applicationServerKey`) and push services accept only
/// messages signed by its private key.
public struct VAPIDKey: Sendable {
    public let privateKey: P256.Signing.PrivateKey
    /// Who runs this server, for the push service to contact (`mailto:` or `https:`), in every token.
    public let subject: String

    public init(privateKey: P256.Signing.PrivateKey, subject: String) {
        self.privateKey = privateKey
        self.subject = subject
    }

    /// A new key pair (Deploy/make-keys, tests).
    public static func generate(subject: String) -> VAPIDKey { VAPIDKey(privateKey: .init(), subject: subject) }

    /// The public key as browsers take it: the uncompressed point, base64url (87 characters).
    public var publicKeyBase64URL: String { Base64URL.encode(privateKey.publicKey.x963Representation) }

    /// The private key's text form, as `Deploy/make-keys` writes it: PEM (PKCS#8).
    public var privateKeyPEM: String { privateKey.pemRepresentation }

    /// Reads a private key written as PEM (PKCS#8 or SEC1, as `openssl ecparam -genkey` makes) or as the raw
    /// 32-byte scalar in base64url (as web-push tools print it).
    public static func privateKey(fromText text: String) throws -> P256.Signing.PrivateKey {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("-----BEGIN") { return try P256.Signing.PrivateKey(pemRepresentation: trimmed) }
        guard let raw = Base64URL.decode(trimmed), raw.count == 32 else { throw VAPIDError.unreadableKey }
        return try P256.Signing.PrivateKey(rawRepresentation: raw)
    }

    /// The `Authorization` header for a request to `endpoint`: `vapid t=<JWT>, k=<public key>`, the JWT (ES256)
    /// naming the endpoint's origin as audience and expiring `lifetime` seconds after `now` (at most 24 hours).
    public func authorization(for endpoint: URL, now: Date = Date(), lifetime: TimeInterval = 12 * 3_600) throws -> String {
        guard let scheme = endpoint.scheme, let host = endpoint.host else { throw VAPIDError.badEndpoint }
        let audience = "\(scheme)://\(host)" + (endpoint.port.map { ":\($0)" } ?? "")
        let header = Base64URL.encode(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims: [String: Any] = ["aud": audience, "exp": Int(now.timeIntervalSince1970 + min(lifetime, 86_400)), "sub": subject]
        let body = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes]))
        let signingInput = "\(header).\(body)"
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return "vapid t=\(signingInput).\(Base64URL.encode(signature.rawRepresentation)), k=\(publicKeyBase64URL)"
    }

    /// The claims of a `vapid t=…, k=…` header if its JWT is signed by `publicKey` (base64url, uncompressed), as a
    /// push service checks it; nil otherwise. For tests and the fake push service.
    public static func verifiedClaims(authorization: String, publicKey: String) -> [String: Any]? {
        guard authorization.hasPrefix("vapid ") else { return nil }
        var parameters: [String: String] = [:]
        for part in authorization.dropFirst(6).split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { parameters[pair[0]] = pair[1] }
        }
        guard parameters["k"] == publicKey, let token = parameters["t"], let keyBytes = Base64URL.decode(publicKey),
              let key = try? P256.Signing.PublicKey(x963Representation: keyBytes) else { return nil }
        let pieces = token.split(separator: ".").map(String.init)
        guard pieces.count == 3, let signatureBytes = Base64URL.decode(pieces[2]),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
              key.isValidSignature(signature, for: Data("\(pieces[0]).\(pieces[1])".utf8)),
              let header = Base64URL.decode(pieces[0]).flatMap({ try? JSONSerialization.jsonObject(with: $0) }) as? [String: Any],
              header["alg"] as? String == "ES256",
              let claims = Base64URL.decode(pieces[1]).flatMap({ try? JSONSerialization.jsonObject(with: $0) }) as? [String: Any]
        else { return nil }
        return claims
    }
}

public enum VAPIDError: Error, CustomStringConvertible {
    case unreadableKey
    case badEndpoint

    public var description: String {
        switch self {
        case .unreadableKey: "the VAPID private key is neither PEM nor a 32-byte base64url scalar"
        case .badEndpoint: "a push endpoint needs a scheme and a host"
        }
    }
}

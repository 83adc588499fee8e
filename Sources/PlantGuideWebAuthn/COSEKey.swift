import Crypto
import Foundation

/// A credential's public key as the authenticator wrote it, a COSE_Key (RFC 9052/9053), in the two algorithms
/// passkeys use: ES256 (ECDSA on P-256 with SHA-256) and EdDSA (Ed25519).
public struct COSEPublicKey: Sendable {
    /// The COSE algorithms accepted, by their IANA numbers (what `pubKeyCredParams` offers).
    public enum Algorithm: Int, Sendable, CaseIterable {
        case es256 = -7
        case edDSA = -8
    }

    public let algorithm: Algorithm
    private let key: Key

    private enum Key: Sendable {
        case p256(P256.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
    }

    /// Reads the key from its CBOR map.
    /// - Throws: ``WebAuthnError`` for another algorithm, a key type or curve that does not match it, or
    ///   coordinates that are not a point of the curve.
    public init(_ cbor: CBOR) throws {
        // COSE labels: 1 kty, 3 alg, -1 crv, -2 x, -3 y.
        guard let number = cbor[label: 3]?.integer, let algorithm = Algorithm(rawValue: number) else {
            throw WebAuthnError("the passkey's algorithm is not ES256 or EdDSA")
        }
        self.algorithm = algorithm
        switch algorithm {
        case .es256:
            guard cbor[label: 1]?.integer == 2, cbor[label: -1]?.integer == 1,
                  case .bytes(let x)? = cbor[label: -2], case .bytes(let y)? = cbor[label: -3], x.count == 32, y.count == 32,
                  let point = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y) else {
                throw WebAuthnError("the passkey's ES256 key is not a P-256 point")
            }
            key = .p256(point)
        case .edDSA:
            guard cbor[label: 1]?.integer == 1, cbor[label: -1]?.integer == 6, case .bytes(let x)? = cbor[label: -2], x.count == 32,
                  let point = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else {
                throw WebAuthnError("the passkey's EdDSA key is not an Ed25519 key")
            }
            key = .ed25519(point)
        }
    }

    /// Reads the key from the bytes of its CBOR map (as stored).
    public init(bytes: Data) throws {
        do {
            try self.init(CBORReader.decode(bytes))
        } catch let error as CBORError {
            throw WebAuthnError("the passkey's key is not CBOR: \(error)")
        }
    }

    /// Whether `signature` (ES256: DER-encoded, as WebAuthn sends it; EdDSA: 64 bytes) signs `data`.
    public func isValidSignature(_ signature: Data, for data: Data) -> Bool {
        switch key {
        case .p256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: data)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: data)
        }
    }
}

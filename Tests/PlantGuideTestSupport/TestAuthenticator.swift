import Crypto
import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideWebAuthn

/// An Ed25519 authenticator made of swift-crypto: it answers the two ceremonies as a platform authenticator would,
/// with attestation "none".
public struct TestAuthenticator {
    public let relyingPartyID: String
    public let origin: String
    let key = Curve25519.Signing.PrivateKey()
    public let credentialID = Data((0..<16).map { _ in UInt8.random(in: 0...255) })

    public init(relyingPartyID: String, origin: String) {
        self.relyingPartyID = relyingPartyID
        self.origin = origin
    }

    public func register(challenge: Data, format: String = "none", statement: CBOR = .map([])) -> (clientDataJSON: Data, attestationObject: Data) {
        let clientData = clientDataJSON("webauthn.create", challenge)
        let publicKey = CBOREncoder.encode(.map([(.unsigned(1), .unsigned(1)), (.unsigned(3), .negative(7)), (.negative(0), .unsigned(6)),
                                                 (.negative(1), .bytes(key.publicKey.rawRepresentation))]))
        var data = authenticatorData(flags: 0x45, counter: 1)
        data += Data(count: 16) + Data([UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xFF)]) + credentialID + publicKey
        let object = CBOREncoder.encode(.map([(.text("fmt"), .text(format)), (.text("attStmt"), statement), (.text("authData"), .bytes(data))]))
        return (clientData, object)
    }

    public func signIn(challenge: Data, counter: UInt32, userVerified: Bool = true) -> (clientDataJSON: Data, authenticatorData: Data, signature: Data) {
        let clientData = clientDataJSON("webauthn.get", challenge)
        let data = authenticatorData(flags: userVerified ? 0x05 : 0x01, counter: counter)
        let signature = try! key.signature(for: data + Data(SHA256.hash(data: clientData)))
        return (clientData, data, signature)
    }

    private func clientDataJSON(_ type: String, _ challenge: Data) -> Data {
        Data(#"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin)","crossOrigin":false}"#.utf8)
    }

    private func authenticatorData(flags: UInt8, counter: UInt32) -> Data {
        Data(SHA256.hash(data: Data(relyingPartyID.utf8))) + Data([flags]) + withUnsafeBytes(of: counter.bigEndian) { Data($0) }
    }
}

/// Just enough CBOR writing for ``TestAuthenticator``.
public enum CBOREncoder {
    public static func encode(_ item: CBOR) -> Data {
        switch item {
        case .unsigned(let value): head(0, value)
        case .negative(let value): head(1, value)
        case .bytes(let bytes): head(2, UInt64(bytes.count)) + bytes
        case .text(let text): head(3, UInt64(text.utf8.count)) + Data(text.utf8)
        case .array(let items): items.reduce(head(4, UInt64(items.count))) { $0 + encode($1) }
        case .map(let entries): entries.reduce(head(5, UInt64(entries.count))) { $0 + encode($1.key) + encode($1.value) }
        case .tagged(let tag, let item): head(6, tag) + encode(item)
        case .bool(let value): Data([value ? 0xF5 : 0xF4])
        case .null: Data([0xF6])
        case .undefined: Data([0xF7])
        case .float(let value): Data([0xFB]) + withUnsafeBytes(of: value.bitPattern.bigEndian) { Data($0) }
        }
    }

    private static func head(_ major: UInt8, _ argument: UInt64) -> Data {
        switch argument {
        case 0..<24: Data([major << 5 | UInt8(argument)])
        case 24..<256: Data([major << 5 | 24, UInt8(argument)])
        case 256..<65_536: Data([major << 5 | 25]) + withUnsafeBytes(of: UInt16(argument).bigEndian) { Data($0) }
        case 65_536..<(1 << 32): Data([major << 5 | 26]) + withUnsafeBytes(of: UInt32(argument).bigEndian) { Data($0) }
        default: Data([major << 5 | 27]) + withUnsafeBytes(of: argument.bigEndian) { Data($0) }
        }
    }
}

extension TestAuthenticator {
    /// `navigator.credentials.create()`'s answer to `challenge`, as the gateway's CreatePasskey takes it.
    public func registrationCredential(challenge: Data) -> Plantguide_Gateway_V1_PasskeyCredential {
        let made = register(challenge: challenge)
        return credential {
            $0.clientDataJson = Base64URL.encode(made.clientDataJSON)
            $0.attestationObject = Base64URL.encode(made.attestationObject)
        }
    }

    /// `navigator.credentials.get()`'s answer to `challenge`, as the gateway's CreatePasskeySession takes it.
    public func signInCredential(challenge: Data, counter: UInt32, userHandle: String? = nil) -> Plantguide_Gateway_V1_PasskeyCredential {
        let assertion = signIn(challenge: challenge, counter: counter)
        return credential {
            $0.clientDataJson = Base64URL.encode(assertion.clientDataJSON)
            $0.authenticatorData = Base64URL.encode(assertion.authenticatorData)
            $0.signature = Base64URL.encode(assertion.signature)
            if let userHandle { $0.userHandle = Base64URL.encode(Data(userHandle.utf8)) }
        }
    }

    private func credential(_ fill: (inout Plantguide_Gateway_V1_PasskeyAuthenticatorResponse) -> Void) -> Plantguide_Gateway_V1_PasskeyCredential {
        .with {
            $0.id = Base64URL.encode(credentialID)
            $0.rawID = $0.id
            $0.type = "public-key"
            fill(&$0.response)
        }
    }
}

import Crypto
import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import PlantGuideWebAuthn
import Testing

/// Passkey ceremonies verified against the WebAuthn specification's own test vector, and against credentials these
/// tests make with swift-crypto for what the vector does not cover (EdDSA, user verification, counters).
@Suite("Passkeys: WebAuthn registration and sign-in checks")
struct WebAuthnTests {
    /// W3C Web Authentication Level 3, §16 test vectors, "ES256 Credential with No Attestation"
    /// (https://www.w3.org/TR/webauthn-3/#sctn-test-vectors-none-es256): relying party example.org, made without user
    /// verification (flags UP, BE, BS).
    enum SpecVector {
        static let registrationChallenge = hex("00c30fb78531c464d2b6771dab8d7b603c01162f2fa486bea70f283ae556e130")
        static let registrationClientData = hex("""
            7b2274797065223a22776562617574686e2e637265617465222c226368616c6c656e6765223a22414d4d507434557878475453746e6364\
            7134313759447742466938767049612d70773\
            86f4f7556573454\
            41222c226f726967696e223a2268747470733a2f2f6578616d706c652e6f7267222c2263726f73734f726967696e223a66616c73652c\
            22657874726144617461223a22636c69656e74446174614a534f4e206d617920626520657874656e6465642077697468206164646974\
            696f6e616c206669656c647320696e20746865206675747572652c207375636820617320746869733a20426b5165446a646354427258\
            426941774a544c453551227d
            """)
        static let attestationObject = hex("""
            a363666d74646e6f6e656761747453746d74a068617574684461746158a4bfabc37432958b063360d3ad6461c9c4735ae7f8edd46592\
            a5e0f01452b2e4b559000000008446ccb9ab1db374750b2367ff6f3a1f0020f91f391db4c9b2fde0ea70189cba3fb63f579ba6122b33\
            ad94ff3ec330084be4a5010203262001215820afefa16f97ca9b2d23eb86ccb64098d20db90856062eb249c33a9b672f26df61225820\
            930a56b87a2fca66334b03458abf879717c12cc68ed73290af2e2664796b9220
            """)
        static let credentialID = hex("f91f391db4c9b2fde0ea70189cba3fb63f579ba6122b33ad94ff3ec330084be4")
        static let authenticationChallenge = hex("39c0e7521417ba54d43e8dc95174f423dee9bf3cd804ff6d65c857c9abf4d408")
        static let authenticatorData = hex("bfabc37432958b063360d3ad6461c9c4735ae7f8edd46592a5e0f01452b2e4b51900000000")
        static let authenticationClientData = hex("""
            7b2274797065223a22776562617574686e2e676574222c226368616c6c656e6765223a224f63446e55685158756c5455506f334a5558\
            543049393770767a7a59425039745a63685879617630314167222c226f726967696e223a2268747470733a2f2f6578616d706c652e6f\
            7267222c2263726f73734f726967696e223a66616c73657d
            """)
        static let signature = hex("""
            3046022100f50a4e2e4409249c4a853ba361282f09841df4dd4547a13a87780218deffcd380221008480ac0f0b93538174f575bf11a1dd\
            5d78c6e486013f937295ea13653e331e87
            """)
    }

    static func hex(_ text: String) -> Data {
        let digits = Array(text.filter(\.isHexDigit))
        return Data(stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! })
    }

    private static let example = RelyingParty(id: "example.org", origins: ["https://example.org"])

    private static func withoutUserVerification(_ party: RelyingParty) -> RelyingParty {
        var party = party
        party.requiresUserVerification = false
        return party
    }

    private static func refusal(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("the specification's ES256 vector registers and signs in; with user verification required it is refused")
    func specVector() throws {
        let party = Self.withoutUserVerification(Self.example)
        let credential = try party.verifyRegistration(clientDataJSON: SpecVector.registrationClientData,
                                                      attestationObject: SpecVector.attestationObject,
                                                      challenge: SpecVector.registrationChallenge)
        #expect(credential.id == SpecVector.credentialID && credential.algorithm == .es256 && credential.signCount == 0)
        #expect(credential.backupEligible)
        let key = try COSEPublicKey(bytes: credential.publicKey)
        let counter = try party.verifyAssertion(clientDataJSON: SpecVector.authenticationClientData,
                                                authenticatorData: SpecVector.authenticatorData, signature: SpecVector.signature,
                                                challenge: SpecVector.authenticationChallenge, publicKey: key, storedSignCount: 0)
        #expect(counter == 0, "an authenticator without a counter sends 0 every time")

        let strict = Self.refusal {
            _ = try Self.example.verifyRegistration(clientDataJSON: SpecVector.registrationClientData,
                                                    attestationObject: SpecVector.attestationObject,
                                                    challenge: SpecVector.registrationChallenge)
        }
        #expect(strict?.contains("did not verify the person") == true, "\(strict ?? "accepted")")
    }

    @Test("a changed signature, challenge, origin or site is refused, saying which")
    func tampering() throws {
        let party = Self.withoutUserVerification(Self.example)
        let key = try COSEPublicKey(bytes: try party.verifyRegistration(
            clientDataJSON: SpecVector.registrationClientData, attestationObject: SpecVector.attestationObject,
            challenge: SpecVector.registrationChallenge).publicKey)
        func signIn(_ party: RelyingParty, signature: Data = SpecVector.signature, challenge: Data = SpecVector.authenticationChallenge,
                    stored: UInt32 = 0) -> String? {
            Self.refusal {
                _ = try party.verifyAssertion(clientDataJSON: SpecVector.authenticationClientData,
                                              authenticatorData: SpecVector.authenticatorData, signature: signature,
                                              challenge: challenge, publicKey: key, storedSignCount: stored)
            }
        }
        var forged = SpecVector.signature
        forged[forged.count - 1] ^= 1
        #expect(signIn(party, signature: forged)?.contains("signature does not verify") == true)
        #expect(signIn(party, signature: Data([1, 2, 3]))?.contains("signature does not verify") == true)
        #expect(signIn(party, challenge: SpecVector.registrationChallenge)?.contains("another challenge") == true)
        let elsewhere = Self.withoutUserVerification(RelyingParty(id: "example.org", origins: ["https://plants.example.org"]))
        #expect(signIn(elsewhere)?.contains("ran in https://example.org") == true)
        let otherSite = Self.withoutUserVerification(RelyingParty(id: "plants.example.org", origins: ["https://example.org"]))
        #expect(signIn(otherSite)?.contains("another site") == true)
        #expect(signIn(party, stored: 7)?.contains("may have been cloned") == true, "a counter that went back to 0")
        let wrongType = Self.refusal {
            _ = try party.verifyRegistration(clientDataJSON: SpecVector.authenticationClientData,
                                              attestationObject: SpecVector.attestationObject, challenge: SpecVector.authenticationChallenge)
        }
        #expect(wrongType?.contains("type is not webauthn.create") == true)
    }

    @Test("an Ed25519 passkey with user verification registers, signs in with a rising counter, and a repeated counter is refused")
    func edDSA() throws {
        let authenticator = TestAuthenticator(relyingPartyID: "localhost", origin: "http://localhost:7080")
        let party = RelyingParty(id: "localhost", origins: ["http://localhost:7080"])
        let challenge = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let made = authenticator.register(challenge: challenge)
        let credential = try party.verifyRegistration(clientDataJSON: made.clientDataJSON, attestationObject: made.attestationObject,
                                                      challenge: challenge)
        #expect(credential.algorithm == .edDSA && credential.id == authenticator.credentialID && credential.signCount == 1)
        let key = try COSEPublicKey(bytes: credential.publicKey)

        let second = Data(repeating: 7, count: 32)
        let assertion = authenticator.signIn(challenge: second, counter: 5)
        #expect(try party.verifyAssertion(clientDataJSON: assertion.clientDataJSON, authenticatorData: assertion.authenticatorData,
                                          signature: assertion.signature, challenge: second, publicKey: key, storedSignCount: 1) == 5)
        let replayed = Self.refusal {
            _ = try party.verifyAssertion(clientDataJSON: assertion.clientDataJSON, authenticatorData: assertion.authenticatorData,
                                          signature: assertion.signature, challenge: second, publicKey: key, storedSignCount: 5)
        }
        #expect(replayed?.contains("may have been cloned") == true)
        let unverified = authenticator.signIn(challenge: second, counter: 6, userVerified: false)
        let refused = Self.refusal {
            _ = try party.verifyAssertion(clientDataJSON: unverified.clientDataJSON, authenticatorData: unverified.authenticatorData,
                                          signature: unverified.signature, challenge: second, publicKey: key, storedSignCount: 5)
        }
        #expect(refused?.contains("did not verify the person") == true)
    }

    @Test("attestation other than none, or none with a statement, is refused")
    func attestationFormats() throws {
        let authenticator = TestAuthenticator(relyingPartyID: "localhost", origin: "http://localhost:7080")
        let party = RelyingParty(id: "localhost", origins: ["http://localhost:7080"])
        let challenge = Data(repeating: 1, count: 32)
        for (format, statement) in [("packed", CBOR.map([])), ("none", .map([(.text("sig"), .bytes(Data([1])))]))] {
            let made = authenticator.register(challenge: challenge, format: format, statement: statement)
            let refused = Self.refusal {
                _ = try party.verifyRegistration(clientDataJSON: made.clientDataJSON, attestationObject: made.attestationObject, challenge: challenge)
            }
            #expect(refused?.contains("only 'none'") == true, "\(format): \(refused ?? "accepted")")
        }
    }

    @Test("CBOR: truncated, indefinite, too deep or oversized input is refused and never traps", .cpuHeavy)
    func cborLimits() throws {
        #expect(try CBORReader.decode(Self.hex("a2 01 02 20 43 010203")) == .map([(.unsigned(1), .unsigned(2)), (.negative(0), .bytes(Data([1, 2, 3])))]))
        #expect(try CBORReader.decode(Self.hex("f94000")) == .float(2), "half-precision 2.0")
        for (bytes, reason) in [("5a ffffffff 00", "ends early"), ("9b ffffffffffffffff", "ends early"), ("5f 41 00 ff", "indefinite"),
                                ("a2 01 02 01 03", "repeats a key"), ("0102", "after the CBOR item"), ("62 c328", "not UTF-8"),
                                ("1c", "reserved"), (String(repeating: "81", count: 40) + "00", "nested deeper")] {
            #expect(Self.refusal { _ = try CBORReader.decode(Self.hex(bytes)) }?.contains(reason) == true, "\(bytes)")
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let junk = Data((0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            _ = try? CBORReader.decode(junk)
            _ = try? AuthenticatorData(junk + Data(count: 37))
        }
    }
}

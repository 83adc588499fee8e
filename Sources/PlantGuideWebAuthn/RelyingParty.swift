import Crypto
import Foundation
import PlantGuideCore

/// Why a passkey registration or sign-in was refused, in words a person (or the app's developer) can act on.
public struct WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}

/// The server's side of the two WebAuthn ceremonies (Web Authentication Level 3, §7.1 and §7.2), for passkeys:
/// attestation "none" (the app asks for none, so the authenticator's make is neither known nor needed), ES256 or
/// EdDSA keys, and user verification required, so that a passkey alone signs a person in.
public struct RelyingParty: Sendable {
    /// The relying party id: the site's host name ("plants.example.org", "localhost"), never an IP address.
    public let id: String
    /// The origins the ceremonies may run in ("https://plants.example.org").
    public let origins: Set<String>
    /// Whether the authenticator must have verified the person. Required for sign-in without a password; only the
    /// specification's test vectors, made without it, are checked with false.
    public var requiresUserVerification = true

    public init(id: String, origins: Set<String>) {
        self.id = id
        self.origins = origins
    }

    /// A registered passkey: what to keep of it.
    public struct NewCredential: Sendable {
        /// The credential id the authenticator chose (what sign-ins name).
        public let id: Data
        /// The COSE public key's CBOR bytes (``COSEPublicKey/init(bytes:)`` reads them back).
        public let publicKey: Data
        public let algorithm: COSEPublicKey.Algorithm
        public let signCount: UInt32
        /// Whether it is a synced passkey (backup eligible).
        public let backupEligible: Bool
    }

    /// Checks a registration (`navigator.credentials.create`) answered to `challenge`.
    /// - Throws: ``WebAuthnError`` saying which check failed.
    public func verifyRegistration(clientDataJSON: Data, attestationObject: Data, challenge: Data) throws -> NewCredential {
        try checkClientData(clientDataJSON, type: "webauthn.create", challenge: challenge)
        let attestation: CBOR
        do {
            attestation = try CBORReader.decode(attestationObject)
        } catch {
            throw WebAuthnError("the attestation object is not CBOR: \(error)")
        }
        guard case .text(let format)? = attestation[text: "fmt"], case .bytes(let authenticatorBytes)? = attestation[text: "authData"] else {
            throw WebAuthnError("the attestation object has no format or no authenticator data")
        }
        // Attestation "none" was asked for; a browser that was asked for none answers with none (§5.4.7).
        guard format == "none", attestation[text: "attStmt"] == .map([]) else {
            throw WebAuthnError("the attestation is '\(format)'; only 'none' with an empty statement is accepted")
        }
        let data = try AuthenticatorData(authenticatorBytes)
        try checkAuthenticatorData(data)
        guard let credential = data.attestedCredential else { throw WebAuthnError("the registration carries no credential") }
        guard !credential.id.isEmpty else { throw WebAuthnError("the credential id is empty") }
        let key = try COSEPublicKey(bytes: credential.publicKey)
        return NewCredential(id: credential.id, publicKey: credential.publicKey, algorithm: key.algorithm, signCount: data.signCount,
                             backupEligible: data.flags.contains(.backupEligible))
    }

    /// Checks a sign-in (`navigator.credentials.get`) answered to `challenge` by the passkey whose stored key is
    /// `publicKey` and whose last counter was `storedSignCount`; returns the counter to store.
    /// - Throws: ``WebAuthnError`` saying which check failed, among them a counter that did not go up (a cloned
    ///   authenticator). Authenticators that keep no counter send 0 every time, which is accepted.
    public func verifyAssertion(clientDataJSON: Data, authenticatorData: Data, signature: Data, challenge: Data,
                                publicKey: COSEPublicKey, storedSignCount: UInt32) throws -> UInt32 {
        try checkClientData(clientDataJSON, type: "webauthn.get", challenge: challenge)
        let data = try AuthenticatorData(authenticatorData)
        try checkAuthenticatorData(data)
        guard publicKey.isValidSignature(signature, for: authenticatorData + Data(SHA256.hash(data: clientDataJSON))) else {
            throw WebAuthnError("the passkey's signature does not verify")
        }
        if data.signCount != 0 || storedSignCount != 0, data.signCount <= storedSignCount {
            throw WebAuthnError("the passkey's counter went from \(storedSignCount) to \(data.signCount): it may have been cloned")
        }
        return data.signCount
    }

    private func checkClientData(_ json: Data, type: String, challenge: Data) throws {
        guard let clientData = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else {
            throw WebAuthnError("the client data is not a JSON object")
        }
        guard clientData["type"] as? String == type else { throw WebAuthnError("the client data's type is not \(type)") }
        guard let sent = (clientData["challenge"] as? String).flatMap(Base64URL.decode), sent == challenge else {
            throw WebAuthnError("the client data answers another challenge")
        }
        guard let origin = clientData["origin"] as? String, origins.contains(origin) else {
            throw WebAuthnError("the ceremony ran in \(clientData["origin"] as? String ?? "no origin"), not \(origins.sorted().joined(separator: " or "))")
        }
        if clientData["crossOrigin"] as? Bool == true { throw WebAuthnError("the ceremony ran in a frame of another site") }
    }

    private func checkAuthenticatorData(_ data: AuthenticatorData) throws {
        guard data.relyingPartyIDHash == Data(SHA256.hash(data: Data(id.utf8))) else {
            throw WebAuthnError("the passkey is for another site than \(id)")
        }
        guard data.flags.contains(.userPresent) else { throw WebAuthnError("the authenticator did not see the person present") }
        if requiresUserVerification && !data.flags.contains(.userVerified) {
            throw WebAuthnError("the authenticator did not verify the person (fingerprint, face or PIN)")
        }
    }
}

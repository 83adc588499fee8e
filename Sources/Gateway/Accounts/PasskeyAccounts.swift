import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPCCore
import PlantGuideWebAuthn

/// Passkeys: a signed-in person registers one, then signs in with it alone (``RelyingParty`` checks each ceremony).
///
/// Each ceremony's challenge is kept in the gateway's database, hashed, for five minutes, and taken away by the
/// ceremony that answers it, so that any replica can finish what another began and no answer is accepted twice.
/// The site a passkey belongs to is the gateway's public origin, else the host the request was sent to; an IP
/// address is no site (WebAuthn refuses them), so a gateway reached by IP says to use its name or `localhost`.
struct PasskeyAccounts: Sendable {
    let accounts: AccountStore
    let records: any GatewayRecords
    /// `--public-origin`: the site passkeys belong to, for every caller.
    let publicOrigin: String?
    var lifetime = SessionLifetime.standard
    var now: @Sendable () -> Date = Date.init

    /// How long a ceremony may take, in seconds.
    static let ceremonyLength: Double = 300
    private static let site = "PlantGuide"

    /// The options for `navigator.credentials.create()`: a new challenge, the caller's account and the passkeys
    /// they have (not to be registered twice).
    func beginRegistration(caller: Caller) async throws -> Plantguide_Gateway_V1_BeginPasskeyRegistrationResponse {
        let party = try relyingParty()
        guard let name = try await records.userName(id: caller.id) else { throw RPCError(.notFound, "the account is gone") }
        let challenge = try await newChallenge(purpose: "register", userID: caller.id)
        let existing = try await records.passkeys(userID: caller.id)
        return .with { options in
            options.rp = .with { $0.id = party.id; $0.name = Self.site }
            options.user = .with {
                $0.id = Base64URL.encode(Data(caller.id.utf8))
                $0.name = name
                $0.displayName = name
            }
            options.challenge = Base64URL.encode(challenge)
            options.pubKeyCredParams = COSEPublicKey.Algorithm.allCases.map { algorithm in
                .with { $0.type = "public-key"; $0.alg = Int32(algorithm.rawValue) }
            }
            options.timeout = UInt32(Self.ceremonyLength * 1_000)
            options.excludeCredentials = existing.map { passkey in .with { $0.type = "public-key"; $0.id = passkey.id } }
            options.authenticatorSelection = .with {
                $0.residentKey = "required"
                $0.requireResidentKey = true
                $0.userVerification = "required"
            }
            options.attestation = "none"
        }
    }

    /// Checks and keeps the passkey the browser made for the caller.
    /// - Throws: INVALID_ARGUMENT saying which check failed; ALREADY_EXISTS for a passkey registered already.
    func register(_ request: Plantguide_Gateway_V1_CreatePasskeyRequest, caller: Caller) async throws -> Plantguide_Gateway_V1_Passkey {
        let party = try relyingParty()
        let response = request.credential.response
        let clientData = try Self.bytes(response.clientDataJson, "credential.response.client_data_json")
        let attestation = try Self.bytes(response.attestationObject, "credential.response.attestation_object")
        guard try await takeChallenge(answeredIn: clientData, purpose: "register") == caller.id else {
            throw Self.staleChallenge(field: "credential")
        }
        let credential: RelyingParty.NewCredential
        do {
            credential = try party.verifyRegistration(clientDataJSON: clientData, attestationObject: attestation,
                                                      challenge: try Self.challenge(in: clientData))
        } catch let error as WebAuthnError {
            throw RPCError.invalidArgument("credential", .invalidFormat, "the passkey was not registered: \(error)")
        }
        let name = request.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard name.count <= 100 else { throw RPCError.invalidArgument("name", .tooLong, "a passkey's name is at most 100 characters") }
        let stored = StoredPasskey(id: Base64URL.encode(credential.id), userID: caller.id, userName: "", publicKey: credential.publicKey,
                                   signCount: credential.signCount, name: name.isEmpty ? "Passkey" : name,
                                   createdAt: now().timeIntervalSince1970)
        do {
            try await records.addPasskey(stored)
        } catch let error as AccountError {
            throw RPCError(.alreadyExists, error.description)
        }
        return Self.message(stored)
    }

    func passkeys(of caller: Caller) async throws -> [Plantguide_Gateway_V1_Passkey] {
        try await records.passkeys(userID: caller.id).map(Self.message)
    }

    func delete(_ id: String, of caller: Caller) async throws -> Bool {
        guard !id.isEmpty else { throw RPCError.invalidArgument("passkey_id", .required, "name the passkey to delete") }
        return try await records.deletePasskey(userID: caller.id, id: id)
    }

    /// The options for `navigator.credentials.get()`: a new challenge, no credentials named (the authenticator
    /// offers this site's passkeys itself, so no name is typed and none is revealed).
    func beginSignIn() async throws -> Plantguide_Gateway_V1_BeginPasskeySignInResponse {
        let party = try relyingParty()
        let challenge = try await newChallenge(purpose: "sign-in", userID: nil)
        return .with {
            $0.challenge = Base64URL.encode(challenge)
            $0.timeout = UInt32(Self.ceremonyLength * 1_000)
            $0.rpID = party.id
            $0.userVerification = "required"
        }
    }

    /// Checks a passkey's sign-in and returns a new session token for its account.
    /// - Throws: UNAUTHENTICATED, saying why, for an unknown passkey, an answer that does not verify or a stale
    ///   challenge.
    func signIn(_ credential: Plantguide_Gateway_V1_PasskeyCredential) async throws -> AccountStore.IssuedToken {
        let party = try relyingParty()
        let response = credential.response
        let clientData = try Self.bytes(response.clientDataJson, "credential.response.client_data_json")
        let authenticatorData = try Self.bytes(response.authenticatorData, "credential.response.authenticator_data")
        let signature = try Self.bytes(response.signature, "credential.response.signature")
        guard try await takeChallenge(answeredIn: clientData, purpose: "sign-in") != nil else {
            throw RPCError(.unauthenticated, "the sign-in took too long or was answered already: start again")
        }
        guard let stored = try await records.passkey(id: credential.id) else {
            throw RPCError(.unauthenticated, "this passkey is not registered here (it may have been deleted): sign in with your password")
        }
        if !response.userHandle.isEmpty, Base64URL.decode(response.userHandle) != Data(stored.userID.utf8) {
            throw RPCError(.unauthenticated, "the passkey belongs to another account than it says")
        }
        let counter: UInt32
        do {
            counter = try party.verifyAssertion(clientDataJSON: clientData, authenticatorData: authenticatorData, signature: signature,
                                                challenge: try Self.challenge(in: clientData),
                                                publicKey: try COSEPublicKey(bytes: stored.publicKey), storedSignCount: stored.signCount)
        } catch let error as WebAuthnError {
            throw RPCError(.unauthenticated, "the passkey's sign-in does not verify: \(error)")
        }
        let time = now().timeIntervalSince1970
        guard try await records.advancePasskey(id: stored.id, from: stored.signCount, to: counter, at: time) else {
            throw RPCError(.unauthenticated, "this passkey signed in elsewhere at the same moment: start again")
        }
        let (token, secret) = accounts.newToken(lifetime: lifetime)
        _ = try await records.addToken(userName: stored.userName, token: token)
        return AccountStore.IssuedToken(userID: stored.userID, tokenID: token.id, secret: secret)
    }

    /// The site ceremonies run on now: the public origin, else the host of the HTTP request being served.
    /// - Throws: FAILED_PRECONDITION when there is neither, or the host is an IP address.
    func relyingParty() throws -> RelyingParty {
        let origins: Set<String>
        let host: String
        if let publicOrigin, let url = URL(string: publicOrigin), let name = url.host {
            origins = [publicOrigin.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "/"))]
            host = name.lowercased()
        } else if let authority = HTTPRequestFacts.current?.authority, !authority.isEmpty {
            origins = ["http://\(authority)", "https://\(authority)"]
            host = Self.host(ofAuthority: authority)
        } else {
            throw RPCError(.failedPrecondition, "passkeys need the site they belong to: start the gateway with --public-origin")
        }
        guard IPAddress(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))) == nil else {
            throw RPCError(.failedPrecondition, "passkeys belong to a site's name, not an IP address: open PlantGuide at its host name "
                + "(on this machine, http://localhost with the port)")
        }
        return RelyingParty(id: host, origins: origins)
    }

    /// "localhost:7080" → "localhost"; "[::1]:7080" → "[::1]".
    static func host(ofAuthority authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") { return String(authority[...end]) }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "")
    }

    private func newChallenge(purpose: String, userID: String?) async throws -> Data {
        let challenge = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let time = now().timeIntervalSince1970
        try await records.addPasskeyChallenge(hash: AccountStore.sha256(Base64URL.encode(challenge)), purpose: purpose, userID: userID,
                                              expiresAt: time + Self.ceremonyLength, at: time)
        return challenge
    }

    /// Takes away the challenge the client data answers; whom it was made for, nil when it is not (or no longer) there.
    private func takeChallenge(answeredIn clientData: Data, purpose: String) async throws -> String? {
        let challenge = try Self.challenge(in: clientData)
        return try await records.takePasskeyChallenge(hash: AccountStore.sha256(Base64URL.encode(challenge)), purpose: purpose,
                                                      at: now().timeIntervalSince1970)
    }

    private static func challenge(in clientData: Data) throws -> Data {
        guard let object = (try? JSONSerialization.jsonObject(with: clientData)) as? [String: Any],
              let text = object["challenge"] as? String, let challenge = Base64URL.decode(text) else {
            throw RPCError.invalidArgument("credential.response.client_data_json", .invalidFormat, "the client data names no challenge")
        }
        return challenge
    }

    private static func bytes(_ text: String, _ field: String) throws -> Data {
        guard !text.isEmpty else { throw RPCError.invalidArgument(field, .required, "the browser's answer lacks \(field)") }
        guard let bytes = Base64URL.decode(text) else { throw RPCError.invalidArgument(field, .invalidFormat, "\(field) is not base64url") }
        return bytes
    }

    private static func staleChallenge(field: String) -> RPCError {
        RPCError.invalidArgument(field, .invalidFormat, "the registration took too long, was answered already or began in another account: start again")
    }

    private static func message(_ passkey: StoredPasskey) -> Plantguide_Gateway_V1_Passkey {
        .with {
            $0.id = passkey.id
            $0.name = passkey.name
            $0.createdAt = WireTimestamp.clamped(passkey.createdAt)
            if let used = passkey.lastUsedAt { $0.lastUsedAt = WireTimestamp.clamped(used) }
        }
    }
}

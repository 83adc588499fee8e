import Foundation
import PlantGuideProtos
import PlantGuideRPCCore

/// People who open an account themselves: sign-up and sign-in with a name and a password, each answered with a
/// bearer token (the same kind `users add` makes, for the app, the CLI and RPC callers).
///
/// What it guards against:
/// - guessing: a wrong password counts against the name (and the client's address, when the front knows it) in
///   the gateway's database, so the back-off holds on every replica (``SignInBackoff``);
/// - enumeration: an unknown name and a wrong password get the same answer, after the same Argon2id work (the
///   hasher's decoy), and names without an account back off like names with one;
/// - weak passwords: ``PasswordPolicy``;
/// - floods: ``PasswordHasher`` runs at most one hash per core and refuses beyond its queue.
struct PasswordAccounts: Sendable {
    let accounts: AccountStore
    let records: any GatewayRecords
    let hasher: PasswordHasher
    let policy: SignUpPolicy
    /// How long the sessions it opens last.
    var lifetime = SessionLifetime.standard
    var now: @Sendable () -> Date = Date.init

    /// Opens an account named `name` with `password` and returns its first token. Under `--signup invite`, an
    /// unused, unexpired `invitation` code is needed and used up.
    /// - Throws: PERMISSION_DENIED when sign-up is closed, or by invitation and the code cannot be used;
    ///   INVALID_ARGUMENT for a malformed name or a refused password (the message says why), or no invitation code
    ///   where one is needed; ALREADY_EXISTS when the name is taken; RESOURCE_EXHAUSTED when too many passwords are
    ///   being hashed.
    func signUp(name: String, password: String, invitation: String = "") async throws -> AccountStore.IssuedToken {
        switch policy {
        case .closed:
            throw RPCError(.permissionDenied, "sign-up is closed here: ask the operator for an account")
        case .invite where invitation.isEmpty:
            throw RPCError.invalidArgument("invitation", .required, "sign-up here is by invitation: enter the code you were given")
        case .invite, .open:
            break
        }
        if let problem = AccountStore.problem(withName: name) { throw RPCError.invalidArgument("name", .invalidFormat, problem) }
        if let problem = PasswordPolicy.problem(with: password, name: name) {
            throw RPCError.invalidArgument("password", problem.reason, problem.description)
        }
        let hash = try await hasher.hash(password)
        let (token, secret) = accounts.newToken(lifetime: lifetime)
        let userID = "u_" + AccountStore.randomHex(bytes: 8)
        do {
            try await records.addUser(id: userID, name: name, passwordHash: hash, token: token,
                                      invitation: policy == .invite ? AccountStore.sha256(invitation) : nil)
        } catch let error as AccountError {
            throw RPCError(.alreadyExists, error.description)
        } catch let error as InvitationError {
            throw RPCError(.permissionDenied, error.description)
        }
        return AccountStore.IssuedToken(userID: userID, tokenID: token.id, secret: secret)
    }

    /// Checks `name` and `password` and returns a new token for the account.
    /// - Parameter clientAddress: the caller's network address, when the front knows it: failures count against it
    ///   too, so one client cannot guess across many names.
    /// - Throws: UNAUTHENTICATED "the name or the password is wrong" for an unknown name and a wrong password alike;
    ///   RESOURCE_EXHAUSTED while the name or address backs off (with the time to wait) or when too many passwords
    ///   are being hashed.
    func signIn(name: String, password: String, clientAddress: String?) async throws -> AccountStore.IssuedToken {
        let keys = SignInBackoff.keys(name: name, clientAddress: clientAddress)
        let time = now().timeIntervalSince1970
        try await refuseWhileBackingOff(keys, at: time)
        let stored = try await records.password(ofName: name)
        guard try await hasher.verify(password, against: stored?.hash), let stored else {
            try await countFailure(keys, at: time)
            throw RPCError(.unauthenticated, "the name or the password is wrong")
        }
        try await records.forgetSignInFailures(key: SignInBackoff.nameKey(name))
        let (token, secret) = accounts.newToken(lifetime: lifetime)
        _ = try await records.addToken(userName: name, token: token)
        return AccountStore.IssuedToken(userID: stored.userID, tokenID: token.id, secret: secret)
    }

    /// Changes the password of `caller` after checking the current one (a wrong one counts as a failed sign-in),
    /// and signs out every session but the caller's. Returns how many were signed out.
    /// - Throws: as ``signIn(name:password:clientAddress:)`` for the current password; INVALID_ARGUMENT for a refused
    ///   new one; FAILED_PRECONDITION when the account has no password.
    func changePassword(current: String, new: String, caller: Caller) async throws -> Int {
        guard let stored = try await records.password(ofUserID: caller.id) else {
            throw RPCError(.failedPrecondition, "this account has no password: an operator made it with a token")
        }
        let keys = SignInBackoff.keys(name: stored.name, clientAddress: nil)
        let time = now().timeIntervalSince1970
        try await refuseWhileBackingOff(keys, at: time)
        guard try await hasher.verify(current, against: stored.hash) else {
            try await countFailure(keys, at: time)
            throw RPCError(.unauthenticated, "the current password is wrong")
        }
        if let problem = PasswordPolicy.problem(with: new, name: stored.name) {
            throw RPCError.invalidArgument("new_password", problem.reason, problem.description)
        }
        _ = try await records.replacePassword(userID: caller.id, hash: try await hasher.hash(new), at: time)
        return try await records.revokeTokens(userID: caller.id, only: nil, except: caller.tokenID ?? "", at: time)
    }

    /// - Throws: RESOURCE_EXHAUSTED, with the time to wait, while any of `keys` backs off.
    private func refuseWhileBackingOff(_ keys: [String], at time: Double) async throws {
        let blockedUntil = try await records.signInBlockedUntil(keys: keys)
        guard blockedUntil > time else { return }
        throw RPCError(.resourceExhausted, "too many failed sign-ins: wait \(Int((blockedUntil - time).rounded(.up))) s")
            .retry(after: .milliseconds(Int64(((blockedUntil - time) * 1_000).rounded(.up))))
    }

    private func countFailure(_ keys: [String], at time: Double) async throws {
        try await records.noteSignInFailure(keys: keys, at: time, forgetAfter: SignInBackoff.forgetAfter, delay: SignInBackoff.delay)
    }

    /// The caller's sessions (tokens neither revoked nor expired), the current one marked.
    func sessions(of caller: Caller) async throws -> [Plantguide_Gateway_V1_Session] {
        let time = now().timeIntervalSince1970
        return try await records.activeTokens(userID: caller.id).filter { $0.isValid(at: time) }.map { token in
            .with {
                $0.id = token.tokenID
                $0.createdAt = WireTimestamp.clamped(token.createdAt)
                $0.current = token.tokenID == caller.tokenID
                if token.idleTimeout != nil { $0.lastUsedAt = WireTimestamp.clamped(token.lastUsedAt) }
                if let end = token.validUntil { $0.expiresAt = WireTimestamp.clamped(end) }
            }
        }
    }

    /// Signs out the caller's session `id` ("current": the caller's own); false when they had no such session.
    func deleteSession(_ id: String, of caller: Caller) async throws -> Bool {
        guard !id.isEmpty else { throw RPCError.invalidArgument("session_id", .required, "name the session to sign out") }
        let id = id == "current" ? (caller.tokenID ?? "") : id
        return try await records.revokeTokens(userID: caller.id, only: id, except: nil, at: now().timeIntervalSince1970) > 0
    }

    /// Signs out every session of the caller but the current one; returns how many.
    func signOutOthers(of caller: Caller) async throws -> Int {
        try await records.revokeTokens(userID: caller.id, only: nil, except: caller.tokenID ?? "", at: now().timeIntervalSince1970)
    }
}

/// How failed sign-ins slow further tries: per name, the first four failures are free, then each blocks the name
/// for twice as long as the one before (1 s, 2 s, 4 s … at most 15 minutes); per client address, the first 20 are
/// free (many people may share one address), then the same. Failures older than an hour are forgotten.
enum SignInBackoff {
    static let forgetAfter: Double = 3_600
    static let longest: Double = 900

    static func nameKey(_ name: String) -> String { "name:" + name }
    static func addressKey(_ address: String) -> String { "address:" + address }

    static func keys(name: String, clientAddress: String?) -> [String] {
        [nameKey(name)] + (clientAddress.map { [addressKey($0)] } ?? [])
    }

    /// Seconds a key is blocked for after its `failures`th failure in a row.
    @Sendable static func delay(key: String, failures: Int) -> Double {
        let free = key.hasPrefix("address:") ? 20 : 4
        guard failures > free else { return 0 }
        return min(longest, pow(2, Double(failures - free - 1)))
    }
}

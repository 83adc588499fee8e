import Foundation
import PlantGuideProtos

/// Where the gateway keeps its own state: SQLite (``SQLiteGateway``, the default) or PostgreSQL
/// (``PostgresGateway``, for replicas). Users and tokens are a directory of everyone (a token is found by its hash);
/// everything else is keyed by user. The stores above (``AccountStore``, ``HouseholdStore``,
/// ``IdentificationSettingsStore``, ``PendingWork``) validate and shape; a backend reads and writes rows.
public protocol GatewayRecords: Sendable {
    // MARK: Users and tokens

    /// Adds a user with a first token (only its hash).
    /// - Throws: ``AccountError`` when the name is taken.
    func addUser(id: String, name: String, token: StoredToken) async throws
    /// Adds a token to the user named `userName`; returns the user's id.
    /// - Throws: ``AccountError`` when there is no such user.
    func addToken(userName: String, token: StoredToken) async throws -> String
    /// Every user by name, with their tokens not revoked.
    func users() async throws -> [AccountStore.User]
    /// Revokes an active token; returns whether there was one.
    func revoke(tokenID: String, at time: Double) async throws -> Bool
    /// How many revocations there ever were (only grows).
    func revocationCount() async throws -> Int
    /// The owner and lifetime of a token's hash that is not revoked (expired or not: ``TokenOwner/isValid(at:)``).
    func owner(ofTokenHash hash: Data) async throws -> TokenOwner?
    /// Notes that the token `id` was used at `time` (for its idle expiry).
    func touchToken(id: String, at time: Double) async throws
    /// Sets the user's calendar link (its hash), replacing an earlier one.
    func setCalendarLink(userID: String, hash: Data, at time: Double) async throws
    func deleteCalendarLink(userID: String) async throws -> Bool
    func owner(ofCalendarHash hash: Data) async throws -> String?

    // MARK: Passwords and sign-in back-off

    /// Adds a user who signed up with a password: the user, the password's Argon2id string and a first token, at once;
    /// with `invitation` (a code's hash), only if that invitation is unused and unexpired at the token's time, and it
    /// is used up in the same transaction.
    /// - Throws: ``AccountError`` when the name is taken; ``InvitationError`` when the invitation cannot be used.
    func addUser(id: String, name: String, passwordHash: String, token: StoredToken, invitation: Data?) async throws
    /// The user id and password hash of the user named `name`; nil when there is no such user or they have no
    /// password (made by an operator with `users add`).
    func password(ofName name: String) async throws -> (userID: String, hash: String)?
    /// The name and password hash of the user `userID`; nil when they have no password.
    func password(ofUserID userID: String) async throws -> (name: String, hash: String)?
    /// The latest time until which any of `keys` (``SignInBackoff``'s) is blocked; 0 when none is.
    func signInBlockedUntil(keys: [String]) async throws -> Double
    /// Counts a failed sign-in against each of `keys` and blocks each for `delay(failures)` seconds from `now`.
    /// A key whose last failure is older than `forgetAfter` seconds starts again from zero.
    func noteSignInFailure(keys: [String], at now: Double, forgetAfter: Double,
                           delay: @escaping @Sendable (_ key: String, _ failures: Int) -> Double) async throws
    /// Forgets the failures of `key` (after a successful sign-in).
    func forgetSignInFailures(key: String) async throws
    /// Replaces the password of a user who has one; false when they have none.
    func replacePassword(userID: String, hash: String, at time: Double) async throws -> Bool
    /// The user's tokens not revoked (their signed-in devices and programs, expired or not), oldest first.
    func activeTokens(userID: String) async throws -> [TokenOwner]
    /// Revokes the user's active tokens: only `only` when given, else every one but `except`. Returns how many.
    func revokeTokens(userID: String, only: String?, except: String?, at time: Double) async throws -> Int

    // MARK: Invitations

    /// Stores invitations (their ids and code hashes), usable until `expiresAt`.
    func addInvitations(_ invitations: [(id: String, hash: Data)], createdAt: Double, expiresAt: Double) async throws
    /// Every invitation, newest first, with the name of whoever used it.
    func invitations() async throws -> [AccountStore.Invitation]
    /// Keeps the challenge of a passkey ceremony (its SHA-256) until `expiresAt`: `purpose` "register" (for
    /// `userID`) or "sign-in". Forgets expired challenges on the way.
    func addPasskeyChallenge(hash: Data, purpose: String, userID: String?, expiresAt: Double, at now: Double) async throws
    /// Takes the challenge away (a challenge answers one ceremony, on any replica) and returns whom it was made for
    /// ("" for a sign-in); nil when it is unknown, used, expired or made for another purpose.
    func takePasskeyChallenge(hash: Data, purpose: String, at now: Double) async throws -> String?
    /// The account name of user `id`; nil when there is no such account.
    func userName(id: String) async throws -> String?
    /// Stores a registered passkey. - Throws: ``AccountError`` when its credential id is registered already.
    func addPasskey(_ passkey: StoredPasskey) async throws
    /// The passkey with credential id `id` (base64url), with its owner's name.
    func passkey(id: String) async throws -> StoredPasskey?
    /// `userID`'s passkeys, oldest first.
    func passkeys(userID: String) async throws -> [StoredPasskey]
    /// Moves a passkey's counter from `old` to `new` and notes its use, only if it still is `old` (two sign-ins
    /// with one counter value, on two replicas, let one through); whether it did.
    func advancePasskey(id: String, from old: UInt32, to new: UInt32, at time: Double) async throws -> Bool
    /// Deletes `userID`'s passkey `id`; false when they have none of that id.
    func deletePasskey(userID: String, id: String) async throws -> Bool

    /// Withdraws an unused invitation; false when there is none of that id.
    func deleteInvitation(id: String) async throws -> Bool

    // MARK: Households

    /// Shares `ownerID`'s collection with the user named `memberName`, or changes its access; nil when there is no
    /// such user.
    /// - Throws: INVALID_ARGUMENT when the member is the owner.
    func share(ownerID: String, memberName: String, readWrite: Bool, at time: Double) async throws -> Plantguide_Gateway_V1_Share?
    func revokeShare(ownerID: String, memberName: String) async throws -> Bool
    func shares(of userID: String) async throws -> (given: [Plantguide_Gateway_V1_Share], received: [Plantguide_Gateway_V1_Share])
    func access(ownerName: String, memberID: String) async throws -> (ownerID: String, readWrite: Bool)?

    // MARK: Identification settings

    /// The stored IdentificationSettings message, if any.
    func identificationSettings(userID: String) async throws -> Data?
    func replaceIdentificationSettings(_ message: Data, userID: String) async throws
    func forgetIdentificationSettings(userID: String) async throws

    // MARK: Pending work

    /// Records a deletion (unless recorded) and drops a pending care lookup of the plant.
    func beginDeletion(_ deletion: PendingWork.Deletion, at time: Double) async throws
    func finishDeletion(_ deletion: PendingWork.Deletion) async throws
    /// Oldest first.
    func deletions(limit: Int) async throws -> [PendingWork.Deletion]
    /// Records a lookup, replacing one of the same plant.
    func addCareLookup(_ lookup: PendingWork.CareLookup) async throws
    /// Removes a lookup; false when it was gone already.
    func finishCareLookup(userID: String, plantID: String) async throws -> Bool
    /// One user's, oldest first.
    func careLookups(of userID: String, limit: Int) async throws -> [PendingWork.CareLookup]
    /// Everyone's, oldest first (by time, user and plant), after `cursor` (a lookup's; nil for the first).
    func careLookups(after cursor: PendingWork.CareLookup?, limit: Int) async throws -> [PendingWork.CareLookup]
    /// Drops every pending entry of the user.
    func forgetPendingWork(userID: String) async throws

    // MARK: Claims on pending work

    /// Claims `claim` for `claimer` until `until`: true unless another claimer holds it (until a time after `now`),
    /// or, for a plant's entry, another claimer is erasing the user's data. A backend that one gateway process
    /// uses alone (SQLite) claims everything: the process's own claims in memory keep its tasks apart.
    func claimPending(_ claim: PendingClaim, by claimer: String, until: Double, at now: Double) async throws -> Bool
    /// Drops `claimer`'s claim made until `until` (not a later claim of the same entry).
    func releasePending(_ claim: PendingClaim, by claimer: String, until: Double) async throws
    /// Whether a claimer other than `claimer` holds a claim on one of the user's plants' entries at `now`.
    func othersClaimPending(userID: String, besides claimer: String, at now: Double) async throws -> Bool

    // MARK: Rate limits across replicas

    /// Takes `spent` calls (by token id) from the tokens' shared buckets, each holding up to `capacity` calls and
    /// refilled with `perSecond`, and returns the tokens left in each (negative: owed), and in the buckets of
    /// `watching` too. Nil when one gateway process uses this backend alone (SQLite): there is no other replica to
    /// share a limit with.
    func spendShared(_ spent: [String: Int], watching: [String], capacity: Int, perSecond: Int, at now: Double) async throws -> [String: Double]?
    /// Drops the shared buckets untouched since `before` (full again long since).
    func forgetSharedBuckets(before: Double) async throws
}

/// What a gateway claims: a plant's care lookup or deletion, or the erasing of a user's data.
public struct PendingClaim: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case care, deletion, erase
    }

    public var userID: String
    public var kind: Kind
    public var plantID: String

    public static func care(_ userID: String, _ plantID: String) -> Self { Self(userID: userID, kind: .care, plantID: plantID) }
    public static func deletion(_ userID: String, _ plantID: String) -> Self { Self(userID: userID, kind: .deletion, plantID: plantID) }
    public static func erase(_ userID: String) -> Self { Self(userID: userID, kind: .erase, plantID: "") }
}

/// A token as stored: its id, its user, the SHA-256 of its secret, when it was made, and how long it lives (sign-in
/// sessions expire, an operator's tokens for programs do not).
public struct StoredToken: Sendable {
    public var id: String
    public var hash: Data
    public var createdAt: Double
    /// When it stops working whatever its use (seconds since 1970); nil: never.
    public var expiresAt: Double? = nil
    /// How long it may go unused before it stops working; nil: forever.
    public var idleTimeout: Double? = nil
}

/// A registered passkey as the gateway keeps it.
public struct StoredPasskey: Sendable, Equatable {
    /// The credential id, base64url.
    public var id: String
    public var userID: String
    /// The owner's account name (filled in when read).
    public var userName: String
    /// The COSE public key's CBOR bytes.
    public var publicKey: Data
    public var signCount: UInt32
    /// What the person called it ("Phone"), to tell their passkeys apart.
    public var name: String
    public var createdAt: Double
    public var lastUsedAt: Double?
}

/// Why an invitation code could not open an account.
public struct InvitationError: Error, CustomStringConvertible {
    public var description: String { "the invitation code is unknown, used already or expired: ask for a new one" }
}

/// A token not revoked, as the gateway checks it on a call: whose it is, and whether its time is up.
public struct TokenOwner: Sendable, Equatable {
    public var userID: String
    public var tokenID: String
    public var createdAt: Double
    public var expiresAt: Double?
    public var idleTimeout: Double?
    /// The last use noted (``GatewayRecords/touchToken(id:at:)``, at most every ``touchInterval``), or its making.
    public var lastUsedAt: Double

    /// When the token stops working unless used again before: its absolute expiry or the end of its idle time,
    /// whichever comes first; nil when it never expires.
    public var validUntil: Double? {
        let idleEnd = idleTimeout.map { lastUsedAt + $0 }
        guard let absolute = expiresAt else { return idleEnd }
        return min(absolute, idleEnd ?? absolute)
    }

    public func isValid(at time: Double) -> Bool { validUntil.map { time < $0 } ?? true }

    /// How often a use is written down: often enough that the idle expiry is off by at most this, rarely enough
    /// that calls do not each write (an hour, or a tenth of the idle time when that is shorter).
    public var touchInterval: Double? { idleTimeout.map { min(3_600, $0 / 10) } }
}

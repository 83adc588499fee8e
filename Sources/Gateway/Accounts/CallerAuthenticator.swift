import Foundation
import PlantGuideRPCCore

/// What a method does with a collection, which decides whether a household member may call it on a collection
/// shared with them.
enum CollectionScope: Sendable {
    /// Reads the collection (plants, photos, care, tasks): any share will do.
    case read
    /// Changes the collection: a read-write share is needed.
    case write
    /// The person's own affairs (settings, identification, export, import, deletion, calendar links, shares):
    /// never done for another.
    case ownOnly
}

/// Turns a call's bearer token, and the collection owner it names, into the ``Caller`` the use cases run as.
struct CallerAuthenticator: Sendable {
    /// The metadata key (HTTP header) naming the owner of a shared collection to act on.
    static let collectionOwnerKey = "plantguide-collection-owner"

    let tokens: TokenCache
    let households: HouseholdStore
    let limiter: CallerRateLimiter

    /// The caller, as the owner of the collection to act on: the token's user, or the user named by
    /// `collectionOwner` when they shared their collection with the token's user as `scope` needs. A
    /// "plantguide-user-id" the caller sent is never looked at.
    /// A token revoked by `tokens revoke` is refused within a quarter second (see ``TokenCache``).
    /// - Throws: UNAUTHENTICATED for a missing, malformed, unknown or revoked token; RESOURCE_EXHAUSTED beyond the
    ///   token's rate; PERMISSION_DENIED for a collection not shared with the caller, a write with a read-only
    ///   share, or an own-only method sent for another's collection.
    func caller(authorization: String?, collectionOwner: String?, scope: CollectionScope,
                deadline: ContinuousClock.Instant, traceID: String?) async throws -> Caller {
        guard let authorization else {
            throw RPCError(.unauthenticated, "send \"authorization: Bearer <token>\"; plantguide-gateway users add NAME makes a token")
        }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw RPCError(.unauthenticated, "the bearer token is unknown or revoked") }
        return try await caller(token: String(parts[1]).trimmingCharacters(in: .whitespaces), collectionOwner: collectionOwner, scope: scope,
                                deadline: deadline, traceID: traceID)
    }

    /// ``caller(authorization:collectionOwner:scope:deadline:traceID:)`` for a token as it is, not in an
    /// Authorization value: the web app's session cookie.
    func caller(token secret: String, collectionOwner: String?, scope: CollectionScope,
                deadline: ContinuousClock.Instant, traceID: String?) async throws -> Caller {
        guard let token = try await tokens.owner(ofToken: secret) else {
            throw RPCError(.unauthenticated, "the bearer token is unknown or revoked")
        }
        try limiter.admit(tokenID: token.tokenID)
        let owner = collectionOwner?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !owner.isEmpty else { return Caller(id: token.userID, deadline: deadline, traceID: traceID, tokenID: token.tokenID) }
        guard scope != .ownOnly else {
            throw RPCError(.permissionDenied, "settings, identification, export, import, deletion, calendar links and shares are "
                           + "each person's own: call without \(Self.collectionOwnerKey)")
        }
        guard let share = try await households.access(ownerName: owner, memberID: token.userID) else {
            throw RPCError(.permissionDenied, "no collection of a user '\(owner)' is shared with you")
        }
        guard scope == .read || share.readWrite else {
            throw RPCError(.permissionDenied, "'\(owner)' shared their collection with you read-only")
        }
        return Caller(id: share.ownerID, deadline: deadline, traceID: traceID)
    }
}

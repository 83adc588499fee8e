import Foundation
import PlantGuideProtos
import PlantGuideRPCCore
import SwiftProtobuf

/// Shared households: which collections each person shared with whom, and how. A share is between users of this
/// gateway, named by their user names; the services never learn of it (the gateway calls them as the owner).
struct HouseholdStore: Sendable {
    typealias Share = Plantguide_Gateway_V1_Share

    let records: any GatewayRecords
    var now: @Sendable () -> Date = Date.init

    /// Shares `ownerID`'s collection with the user named `memberName`, or changes the access of that share.
    /// - Throws: INVALID_ARGUMENT for an empty name or the owner's own; NOT_FOUND for an unknown user.
    func share(ownerID: String, memberName: String, access: Plantguide_Gateway_V1_ShareAccess) async throws -> Share {
        guard !memberName.isEmpty else { throw RPCError.invalidArgument("member_name", .required, "member_name is empty") }
        if case .UNRECOGNIZED = access { throw RPCError.invalidArgument("access", .unknownValue, "access is not a known access") }
        let readWrite = access == .readWrite
        guard let share = try await records.share(ownerID: ownerID, memberName: memberName, readWrite: readWrite,
                                                  at: now().timeIntervalSince1970) else {
            throw RPCError(.notFound, "no user named '\(memberName)'")
        }
        return share
    }

    /// Refuses a share of a collection with its own owner.
    static func refuseSelfShare(ownerID: String, memberID: String) throws {
        guard memberID != ownerID else {
            throw RPCError.invalidArgument("member_name", .invalidFormat, "a collection is its owner's already; name someone else")
        }
    }

    /// - Returns: whether the collection was shared with that user.
    func revoke(ownerID: String, memberName: String) async throws -> Bool {
        guard !memberName.isEmpty else { throw RPCError.invalidArgument("member_name", .required, "member_name is empty") }
        return try await records.revokeShare(ownerID: ownerID, memberName: memberName)
    }

    /// The shares `userID` gave and received.
    func shares(of userID: String) async throws -> (given: [Share], received: [Share]) {
        try await records.shares(of: userID)
    }

    /// The owner id and whether `memberID` may write, when the user named `ownerName` shared their collection with
    /// `memberID`; nil otherwise (no such user, or no share).
    func access(ownerName: String, memberID: String) async throws -> (ownerID: String, readWrite: Bool)? {
        try await records.access(ownerName: ownerName, memberID: memberID)
    }

    /// A share as the wire carries it.
    static func share(owner: String, member: String, readWrite: Bool, createdAt: Double) -> Share {
        Share.with {
            $0.ownerName = owner
            $0.memberName = member
            $0.access = readWrite ? .readWrite : .readOnly
            $0.createdAt = Google_Protobuf_Timestamp(date: Date(timeIntervalSince1970: createdAt))
        }
    }
}

import Foundation
import GRDB
import PlantGuideProtos
import PlantGuideRPC
import SwiftProtobuf

/// Shared households: which collections each person shared with whom, and how. A share is between users of this
/// gateway, named by their user names; the services never learn of it (the gateway calls them as the owner).
struct HouseholdStore: Sendable {
    typealias Share = Plantguide_Gateway_V1_Share

    let writer: any DatabaseWriter
    var now: @Sendable () -> Date = Date.init

    /// Shares `ownerID`'s collection with the user named `memberName`, or changes the access of that share.
    /// - Throws: INVALID_ARGUMENT for an empty name or the owner's own; NOT_FOUND for an unknown user.
    func share(ownerID: String, memberName: String, access: Plantguide_Gateway_V1_ShareAccess) async throws -> Share {
        guard !memberName.isEmpty else { throw RPCError.invalidArgument("member_name", .required, "member_name is empty") }
        if case .UNRECOGNIZED = access { throw RPCError.invalidArgument("access", .unknownValue, "access is not a known access") }
        let readWrite = access == .readWrite
        let time = now().timeIntervalSince1970
        return try await writer.write { db in
            guard let memberID = try String.fetchOne(db, sql: "SELECT id FROM user WHERE name = ?", arguments: [memberName]) else {
                throw RPCError(.notFound, "no user named '\(memberName)'")
            }
            guard memberID != ownerID else {
                throw RPCError.invalidArgument("member_name", .invalidFormat, "a collection is its owner's already; name someone else")
            }
            try db.execute(sql: """
                INSERT INTO share (ownerID, memberID, readWrite, createdAt) VALUES (?, ?, ?, ?)
                ON CONFLICT (ownerID, memberID) DO UPDATE SET readWrite = excluded.readWrite
                """, arguments: [ownerID, memberID, readWrite, time])
            return try Self.shares(db, where: "share.ownerID = ? AND share.memberID = ?", [ownerID, memberID])[0]
        }
    }

    /// - Returns: whether the collection was shared with that user.
    func revoke(ownerID: String, memberName: String) async throws -> Bool {
        guard !memberName.isEmpty else { throw RPCError.invalidArgument("member_name", .required, "member_name is empty") }
        return try await writer.write { db in
            try db.execute(sql: "DELETE FROM share WHERE ownerID = ? AND memberID = (SELECT id FROM user WHERE name = ?)",
                           arguments: [ownerID, memberName])
            return db.changesCount > 0
        }
    }

    /// The shares `userID` gave and received.
    func shares(of userID: String) async throws -> (given: [Share], received: [Share]) {
        try await writer.read { db in
            (try Self.shares(db, where: "share.ownerID = ?", [userID]), try Self.shares(db, where: "share.memberID = ?", [userID]))
        }
    }

    /// The owner id and whether `memberID` may write, when the user named `ownerName` shared their collection with
    /// `memberID`; nil otherwise (no such user, or no share).
    func access(ownerName: String, memberID: String) async throws -> (ownerID: String, readWrite: Bool)? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: """
                SELECT share.ownerID, share.readWrite FROM share JOIN user ON user.id = share.ownerID
                WHERE user.name = ? AND share.memberID = ?
                """, arguments: [ownerName, memberID]).map { ($0["ownerID"], $0["readWrite"]) }
        }
    }

    private static func shares(_ db: Database, where condition: String, _ arguments: StatementArguments) throws -> [Share] {
        try Row.fetchAll(db, sql: """
            SELECT owner.name AS ownerName, member.name AS memberName, share.readWrite, share.createdAt
            FROM share JOIN user AS owner ON owner.id = share.ownerID JOIN user AS member ON member.id = share.memberID
            WHERE \(condition) ORDER BY owner.name, member.name
            """, arguments: arguments).map { row in
            Share.with {
                $0.ownerName = row["ownerName"]
                $0.memberName = row["memberName"]
                $0.access = (row["readWrite"] as Bool) ? .readWrite : .readOnly
                $0.createdAt = Google_Protobuf_Timestamp(date: Date(timeIntervalSince1970: row["createdAt"]))
            }
        }
    }
}

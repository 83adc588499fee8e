import Foundation
import PlantGuideProtos
import PlantGuideRPCCore
import PlantGuideStorage
import PostgresNIO

/// The gateway's state in PostgreSQL (``PostgresGatewaySchema``): several gateway replicas share it.
public struct PostgresGateway: GatewayRecords {
    let database: PostgresStorage

    public init(_ database: PostgresStorage) {
        self.database = database
    }

    /// Every migration of the gateway's schema, in order.
    public static var migrations: [PostgresMigration] { PostgresGatewaySchema.migrations }

    // MARK: Users and tokens

    public func addUser(id: String, name: String, token: StoredToken) async throws {
        try await database.write { session in try await Self.insertUser(session, id: id, name: name, token: token) }
    }

    /// Inserts a user with a first token (both sign-up paths).
    /// - Throws: ``AccountError`` when the name is taken.
    static func insertUser(_ session: PostgresSession, id: String, name: String, token: StoredToken) async throws {
        let added = try await session.count("""
            INSERT INTO app_user (id, name, created_at) VALUES (\(id), \(name), \(token.createdAt)) ON CONFLICT (name) DO NOTHING RETURNING 1
            """)
        guard added > 0 else { throw AccountError("a user named '\(name)' exists already") }
        try await insert(session, token, userID: id)
    }

    public func addToken(userName: String, token: StoredToken) async throws -> String {
        try await database.write { session in
            guard let userID = try await Self.userID(session, name: userName) else { throw AccountError("no user named '\(userName)'") }
            try await Self.insert(session, token, userID: userID)
            return userID
        }
    }

    private static func insert(_ session: PostgresSession, _ token: StoredToken, userID: String) async throws {
        try await session.query("""
            INSERT INTO token (id, user_id, hash, created_at, expires_at, idle_timeout)
            VALUES (\(token.id), \(userID), \(token.hash), \(token.createdAt), \(token.expiresAt), \(token.idleTimeout))
            """)
    }

    private static func userID(_ session: PostgresSession, name: String) async throws -> String? {
        let ids: [String] = try await session.all("SELECT id FROM app_user WHERE name = \(name)", as: String.self)
        return ids.first
    }

    public func users() async throws -> [AccountStore.User] {
        try await database.read { session in
            try await session.all("""
                SELECT app_user.id, app_user.name, app_user.created_at,
                       (SELECT count(*) FROM token WHERE token.user_id = app_user.id AND revoked_at IS NULL)
                FROM app_user ORDER BY app_user.name
                """, as: (String, String, Double, Int).self).map {
                AccountStore.User(id: $0.0, name: $0.1, createdAt: Date(timeIntervalSince1970: $0.2), activeTokens: $0.3)
            }
        }
    }

    public func revoke(tokenID: String, at time: Double) async throws -> Bool {
        try await database.write { session in
            guard try await session.count("UPDATE token SET revoked_at = \(time) WHERE id = \(tokenID) AND revoked_at IS NULL RETURNING 1") > 0 else {
                return false
            }
            try await session.query("UPDATE token_revocations SET count = count + 1 WHERE id = 1")
            return true
        }
    }

    public func revocationCount() async throws -> Int {
        try await database.read { session in
            let counts: [Int] = try await session.all("SELECT count FROM token_revocations WHERE id = 1", as: Int.self)
            return counts.first ?? 0
        }
    }

    public func owner(ofTokenHash hash: Data) async throws -> TokenOwner? {
        try await database.read { session in
            try await session.all("""
                SELECT user_id, id, created_at, expires_at, idle_timeout, last_used_at FROM token WHERE hash = \(hash) AND revoked_at IS NULL
                """, as: TokenRow.self).first.map(Self.tokenOwner)
        }
    }

    public func touchToken(id: String, at time: Double) async throws {
        _ = try await database.write { session in
            try await session.query("UPDATE token SET last_used_at = greatest(coalesce(last_used_at, 0), \(time)) WHERE id = \(id)")
        }
    }

    typealias TokenRow = (String, String, Double, Double?, Double?, Double?)

    static func tokenOwner(_ row: TokenRow) -> TokenOwner {
        TokenOwner(userID: row.0, tokenID: row.1, createdAt: row.2, expiresAt: row.3, idleTimeout: row.4, lastUsedAt: row.5 ?? row.2)
    }

    public func setCalendarLink(userID: String, hash: Data, at time: Double) async throws {
        _ = try await database.write { session in
            try await session.query("""
                INSERT INTO calendar_link (user_id, hash, created_at) VALUES (\(userID), \(hash), \(time))
                ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at
                """)
        }
    }

    public func deleteCalendarLink(userID: String) async throws -> Bool {
        try await database.write { session in try await session.count("DELETE FROM calendar_link WHERE user_id = \(userID) RETURNING 1") > 0 }
    }

    public func owner(ofCalendarHash hash: Data) async throws -> String? {
        try await database.read { session in
            let owners: [String] = try await session.all("SELECT user_id FROM calendar_link WHERE hash = \(hash)", as: String.self)
            return owners.first
        }
    }

    // MARK: Households

    public func share(ownerID: String, memberName: String, readWrite: Bool, at time: Double) async throws -> Plantguide_Gateway_V1_Share? {
        try await database.write { session in
            guard let memberID = try await Self.userID(session, name: memberName) else { return nil }
            try HouseholdStore.refuseSelfShare(ownerID: ownerID, memberID: memberID)
            try await session.query("""
                INSERT INTO share (owner_id, member_id, read_write, created_at) VALUES (\(ownerID), \(memberID), \(readWrite), \(time))
                ON CONFLICT (owner_id, member_id) DO UPDATE SET read_write = excluded.read_write
                """)
            return try await Self.shares(session, owner: ownerID, member: memberID).first
        }
    }

    public func revokeShare(ownerID: String, memberName: String) async throws -> Bool {
        try await database.write { session in
            try await session.count("""
                DELETE FROM share WHERE owner_id = \(ownerID) AND member_id = (SELECT id FROM app_user WHERE name = \(memberName)) RETURNING 1
                """) > 0
        }
    }

    public func shares(of userID: String) async throws -> (given: [Plantguide_Gateway_V1_Share], received: [Plantguide_Gateway_V1_Share]) {
        try await database.read { session in
            (try await Self.shares(session, owner: userID, member: nil), try await Self.shares(session, owner: nil, member: userID))
        }
    }

    public func access(ownerName: String, memberID: String) async throws -> (ownerID: String, readWrite: Bool)? {
        try await database.read { session in
            try await session.all("""
                SELECT share.owner_id, share.read_write FROM share JOIN app_user ON app_user.id = share.owner_id
                WHERE app_user.name = \(ownerName) AND share.member_id = \(memberID)
                """, as: (String, Bool).self).first.map { (ownerID: $0.0, readWrite: $0.1) }
        }
    }

    /// Shares by owner, by member, or both, by owner and member name.
    private static func shares(_ session: PostgresSession, owner: String?, member: String?) async throws -> [Plantguide_Gateway_V1_Share] {
        try await session.all("""
            SELECT owner.name, member.name, share.read_write, share.created_at
            FROM share JOIN app_user AS owner ON owner.id = share.owner_id JOIN app_user AS member ON member.id = share.member_id
            WHERE (\(owner)::text IS NULL OR share.owner_id = \(owner)) AND (\(member)::text IS NULL OR share.member_id = \(member))
            ORDER BY owner.name, member.name
            """, as: (String, String, Bool, Double).self).map {
            HouseholdStore.share(owner: $0.0, member: $0.1, readWrite: $0.2, createdAt: $0.3)
        }
    }

    // MARK: Identification settings

    public func identificationSettings(userID: String) async throws -> Data? {
        try await database.read { session in
            let messages: [Data] = try await session.all("SELECT message FROM identification_settings WHERE user_id = \(userID)", as: Data.self)
            return messages.first
        }
    }

    public func replaceIdentificationSettings(_ message: Data, userID: String) async throws {
        _ = try await database.write { session in
            try await session.query("""
                INSERT INTO identification_settings (user_id, message) VALUES (\(userID), \(message))
                ON CONFLICT (user_id) DO UPDATE SET message = excluded.message
                """)
        }
    }

    public func forgetIdentificationSettings(userID: String) async throws {
        _ = try await database.write { session in try await session.query("DELETE FROM identification_settings WHERE user_id = \(userID)") }
    }

    // MARK: Pending work

    public func beginDeletion(_ deletion: PendingWork.Deletion, at time: Double) async throws {
        _ = try await database.write { session in
            try await session.query("DELETE FROM pending_care WHERE user_id = \(deletion.userID) AND plant_id = \(deletion.plantID)")
            try await session.query("""
                INSERT INTO pending_deletion (user_id, plant_id, since) VALUES (\(deletion.userID), \(deletion.plantID), \(time))
                ON CONFLICT (user_id, plant_id) DO NOTHING
                """)
        }
    }

    public func finishDeletion(_ deletion: PendingWork.Deletion) async throws {
        _ = try await database.write { session in
            try await session.query("DELETE FROM pending_deletion WHERE user_id = \(deletion.userID) AND plant_id = \(deletion.plantID)")
        }
    }

    public func deletions(limit: Int) async throws -> [PendingWork.Deletion] {
        try await database.read { session in
            try await session.all("SELECT user_id, plant_id FROM pending_deletion ORDER BY since LIMIT \(limit)", as: (String, String).self)
                .map { PendingWork.Deletion(userID: $0.0, plantID: $0.1) }
        }
    }

    public func addCareLookup(_ lookup: PendingWork.CareLookup) async throws {
        _ = try await database.write { session in
            try await session.query("""
                INSERT INTO pending_care (user_id, plant_id, scientific_name, plant_name, include_repotting, include_pruning, since)
                VALUES (\(lookup.userID), \(lookup.plantID), \(lookup.scientificName), \(lookup.plantName), \(lookup.includeRepotting),
                        \(lookup.includePruning), \(lookup.since.timeIntervalSince1970))
                ON CONFLICT (user_id, plant_id) DO UPDATE SET scientific_name = excluded.scientific_name, plant_name = excluded.plant_name,
                    include_repotting = excluded.include_repotting, include_pruning = excluded.include_pruning, since = excluded.since
                """)
        }
    }

    public func finishCareLookup(userID: String, plantID: String) async throws -> Bool {
        try await database.write { session in
            try await session.count("DELETE FROM pending_care WHERE user_id = \(userID) AND plant_id = \(plantID) RETURNING 1") > 0
        }
    }

    public func careLookups(of userID: String, limit: Int) async throws -> [PendingWork.CareLookup] {
        try await database.read { session in
            try await Self.lookups(session.query("""
                SELECT \(unescaped: Self.lookupColumns) FROM pending_care WHERE user_id = \(userID) ORDER BY since LIMIT \(limit)
                """))
        }
    }

    public func careLookups(after cursor: PendingWork.CareLookup?, limit: Int) async throws -> [PendingWork.CareLookup] {
        try await database.read { session in
            guard let cursor else {
                return try await Self.lookups(session.query("""
                    SELECT \(unescaped: Self.lookupColumns) FROM pending_care ORDER BY since, user_id, plant_id LIMIT \(limit)
                    """))
            }
            return try await Self.lookups(session.query("""
                SELECT \(unescaped: Self.lookupColumns) FROM pending_care
                WHERE (since, user_id, plant_id) > (\(cursor.since.timeIntervalSince1970), \(cursor.userID), \(cursor.plantID))
                ORDER BY since, user_id, plant_id LIMIT \(limit)
                """))
        }
    }

    private static let lookupColumns = "user_id, plant_id, scientific_name, plant_name, include_repotting, include_pruning, since"

    private static func lookups(_ rows: PostgresRowSequence) async throws -> [PendingWork.CareLookup] {
        var lookups: [PendingWork.CareLookup] = []
        for try await (user, plant, scientific, name, repotting, pruning, since) in rows.decode((String, String, String, String, Bool, Bool, Double).self) {
            lookups.append(PendingWork.CareLookup(userID: user, plantID: plant, scientificName: scientific, plantName: name, includeRepotting: repotting,
                                                  includePruning: pruning, since: Date(timeIntervalSince1970: since)))
        }
        return lookups
    }

    public func forgetPendingWork(userID: String) async throws {
        _ = try await database.write { session in
            try await session.query("DELETE FROM pending_care WHERE user_id = \(userID)")
            try await session.query("DELETE FROM pending_deletion WHERE user_id = \(userID)")
        }
    }

    // MARK: Claims on pending work

    public func claimPending(_ claim: PendingClaim, by claimer: String, until: Double, at now: Double) async throws -> Bool {
        try await database.read { session in
            try await session.all("""
                SELECT claim_pending(\(claim.userID), \(claim.kind.rawValue), \(claim.plantID), \(claimer), \(until), \(now))
                """, as: Bool.self).first ?? false
        }
    }

    public func releasePending(_ claim: PendingClaim, by claimer: String, until: Double) async throws {
        _ = try await database.read { session in
            try await session.query("""
                DELETE FROM pending_claim WHERE user_id = \(claim.userID) AND kind = \(claim.kind.rawValue) AND plant_id = \(claim.plantID)
                    AND claimer = \(claimer) AND until = \(until)
                """)
        }
    }

    public func othersClaimPending(userID: String, besides claimer: String, at now: Double) async throws -> Bool {
        try await database.read { session in
            try await session.count("""
                SELECT 1 FROM pending_claim WHERE user_id = \(userID) AND kind <> 'erase' AND claimer <> \(claimer) AND until > \(now) LIMIT 1
                """) > 0
        }
    }

    // MARK: Rate limits across replicas

    public func spendShared(_ spent: [String: Int], watching: [String], capacity: Int, perSecond: Int,
                            at now: Double) async throws -> [String: Double]? {
        let entries = spent.sorted { $0.key < $1.key }  // rows locked in one order by every replica
        let (ids, counts) = (entries.map(\.key), entries.map(\.value))
        return try await database.read { session in
            let rows = try await session.all("""
                WITH spending AS (
                    INSERT INTO rate_bucket AS bucket (token_id, tokens, updated_at)
                    SELECT token_id, greatest(-\(capacity), \(capacity) - spent), \(now)
                    FROM unnest(\(ids)::text[], \(counts)::bigint[]) AS spending (token_id, spent)
                    ON CONFLICT (token_id) DO UPDATE SET
                        tokens = greatest(-\(capacity), least(\(capacity)::double precision,
                                          bucket.tokens + greatest(0, excluded.updated_at - bucket.updated_at) * \(perSecond))
                                          - (\(capacity) - excluded.tokens)),
                        updated_at = greatest(bucket.updated_at, excluded.updated_at)
                    RETURNING token_id, tokens
                )
                SELECT token_id, tokens FROM spending
                UNION ALL
                SELECT token_id, least(\(capacity)::double precision, tokens + greatest(0, \(now) - updated_at) * \(perSecond))
                FROM rate_bucket WHERE token_id = ANY(\(watching)::text[])
                """, as: (String, Double).self)
            return Dictionary(rows, uniquingKeysWith: { $1 })
        }
    }

    public func forgetSharedBuckets(before: Double) async throws {
        _ = try await database.read { session in
            try await session.query("DELETE FROM rate_bucket WHERE updated_at < \(before)")
        }
    }
}

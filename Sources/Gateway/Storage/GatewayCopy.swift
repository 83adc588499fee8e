import Foundation
import PlantGuideStorage

/// Moves the gateway's state from a SQLite deployment into PostgreSQL, and proves the copy.
public enum GatewayCopy {
    /// Copies every user's account, password, tokens (sessions with their expiry), passkeys, calendar link, shares,
    /// settings and pending work of `source` into `target` in one transaction (replacing rows of the same key, so
    /// running it again is harmless), then compares the two table by table. Invitations, which belong to no user,
    /// stay behind: make new ones.
    public static func copy(from source: SQLiteGateway, to target: PostgresGateway) async throws -> [CopyCheck] {
        var everyone: [GatewayOwnerRecords] = []
        for user in try await source.owners() { everyone.append(try await source.everything(of: user)) }
        try await target.replace(everyone, revocations: try await source.revocationCount())
        return try await compare(source, target)
    }

    /// Compares the users' rows of two backends, and their revocation counters.
    public static func compare(_ source: any GatewayCopySource & GatewayRecords, _ target: any GatewayCopySource & GatewayRecords) async throws
        -> [CopyCheck] {
        var checks = try await OwnerTables.compare(Table.allCases.map(\.rawValue), source: rows(source), target: rows(target))
        let (from, to) = (try await source.revocationCount(), try await target.revocationCount())
        checks.append(try await CopyCheck.compare(
            "token revocations", source: { $0.isEmpty ? [from] : [] }, target: { $0.isEmpty ? [to] : [] }, key: { _ in "count" },
            encode: { Array(String($0).utf8) }))
        return checks
    }

    enum Table: String, CaseIterable {
        case users, passwords, tokens, passkeys, calendarLinks = "calendar links", shares, settings = "identification settings"
        case deletions = "pending deletions", care = "pending care lookups"

        /// This table's rows of `records`.
        func rows(_ records: GatewayOwnerRecords) -> [KeyedRow] {
            func row(_ id: String, _ fill: (inout RowBytes) -> Void) -> KeyedRow {
                var bytes = RowBytes()
                fill(&bytes)
                return KeyedRow(owner: records.userID, id: id, content: bytes.bytes)
            }
            switch self {
            case .users: return records.account.map { account in [row("") { $0.add(account.name); $0.add(account.createdAt) }] } ?? []
            case .passwords: return records.password.map { password in [row("") { $0.add(password.hash); $0.add(password.updatedAt) }] } ?? []
            case .tokens: return records.tokens.map { token in
                row(token.id) {
                    $0.add(token.hash)
                    $0.add(token.createdAt)
                    $0.add(token.revokedAt)
                    $0.add(token.expiresAt)
                    $0.add(token.idleTimeout)
                    $0.add(token.lastUsedAt)
                }
            }
            case .passkeys: return records.passkeys.map { passkey in
                row(passkey.id) {
                    $0.add(passkey.publicKey)
                    $0.add(Int(passkey.signCount))
                    $0.add(passkey.name)
                    $0.add(passkey.createdAt)
                    $0.add(passkey.lastUsedAt)
                }
            }
            case .calendarLinks: return records.calendarLink.map { link in [row("") { $0.add(link.hash); $0.add(link.createdAt) }] } ?? []
            case .shares: return records.shares.map { share in
                row(share.memberID) { $0.add(share.readWrite ? 1 : 0); $0.add(share.createdAt) }
            }
            case .settings: return records.identificationSettings.map { message in [row("") { $0.add(message) }] } ?? []
            case .deletions: return records.pendingDeletions.map { deletion in row(deletion.plantID) { $0.add(deletion.since) } }
            case .care: return records.pendingCare.map { lookup in
                row(lookup.plantID) {
                    $0.add(lookup.scientificName)
                    $0.add(lookup.plantName)
                    $0.add(lookup.includeRepotting ? 1 : 0)
                    $0.add(lookup.includePruning ? 1 : 0)
                    $0.add(lookup.since.timeIntervalSince1970)
                }
            }
            }
        }
    }

    /// A backend's tables for ``OwnerTables``: everything of an owner, read for each table.
    static func rows(_ store: any GatewayCopySource) -> OwnerRows {
        OwnerRows(owners: { try await store.owners() }, rows: { owner, table in Table(rawValue: table)!.rows(try await store.everything(of: owner)) })
    }
}

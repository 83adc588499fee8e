@testable import CareData
import Foundation
@testable import Gateway
import GRDB
import Logging
import PlantGuideCore
import PlantGuideStorage
import PlantGuideTestSupport
import Testing

@Suite("Query plans: gateway and care data")
struct GatewayAndCareDataPlanTests {
    /// Statements that read a whole table by design (their SQL, or its start and "…"), and why.
    static let gatewayScansByDesign = [
        """
        SELECT user.id, user.name, user.createdAt,
               (SELECT COUNT(*) FROM token WHERE token.userID = user.id AND revokedAt IS NULL) AS active
        FROM user ORDER BY user.name
        """: "the operator's `users list` lists every user",
        "SELECT userID, plantID FROM pendingDeletion ORDER BY since LIMIT ?":
            "the sweeper's queue, oldest first: it walks the since index and stops after LIMIT rows",
        "SELECT * FROM pendingCare ORDER BY since, userID, plantID LIMIT ?":
            "the sweeper's queue, oldest first: it walks the age index and stops after LIMIT rows",
    ]

    /// The gateway's stores over `records`.
    struct GatewayStores {
        let accounts: AccountStore
        let households: HouseholdStore
        let settings: IdentificationSettingsStore
        let pending: PendingWork

        init(_ records: any GatewayRecords) {
            accounts = AccountStore(records: records)
            households = HouseholdStore(records: records)
            settings = IdentificationSettingsStore(records: records)
            pending = PendingWork(records: records)
        }
    }

    /// 100 users with tokens (a third revoked), calendar links, pending work and shares.
    static func seedGateway(_ stores: GatewayStores) async throws {
        let (accounts, households, pending) = (stores.accounts, stores.households, stores.pending)
    for user in 0..<100 {
        let issued = try await accounts.addUser(name: "user\(user)")
        if user % 3 == 0 { _ = try await accounts.revoke(tokenID: issued.tokenID) }
        _ = try await accounts.newCalendarLink(userID: issued.userID)
        try await pending.addCareLookup(.init(userID: issued.userID, plantID: "p1", scientificName: "Monstera deliciosa",
                                              plantName: "Monty", includeRepotting: false, includePruning: false))
        try await pending.beginDeletion(.init(userID: issued.userID, plantID: "p2"))
        if user > 0 { _ = try await households.share(ownerID: issued.userID, memberName: "user\(user - 1)", access: .readOnly) }
    }
    }

    /// Every method of the gateway's stores.
    static func gatewayWorkload(_ stores: GatewayStores) async throws {
        let (accounts, households, settings, pending) = (stores.accounts, stores.households, stores.settings, stores.pending)
        let anna = try await accounts.addUser(name: "anna")
        let ben = try await accounts.addUser(name: "ben")
        let second = try await accounts.addToken(userName: "anna")
        _ = try await accounts.owner(ofTokenHash: AccountStore.sha256(second.secret))
        _ = try await accounts.revoke(tokenID: second.tokenID)
        _ = try await accounts.revocationCount()
        _ = try await accounts.users()
        let link = try await accounts.newCalendarLink(userID: anna.userID)
        _ = try await accounts.owner(ofCalendarSecret: String(link.dropFirst("/v1/calendar/".count).dropLast(".ics".count)))
        _ = try await accounts.revokeCalendarLink(userID: anna.userID)

        _ = try await households.share(ownerID: anna.userID, memberName: "ben", access: .readWrite)
        _ = try await households.shares(of: anna.userID)
        _ = try await households.access(ownerName: "anna", memberID: ben.userID)
        _ = try await households.revoke(ownerID: anna.userID, memberName: "ben")

        try await settings.replace(.with { $0.minConfidence = 0.3 }, userID: anna.userID)
        _ = try await settings.settings(userID: anna.userID)
        try await settings.forget(userID: anna.userID)

        let lookup = PendingWork.CareLookup(userID: anna.userID, plantID: "p1", scientificName: "Ficus lyrata", plantName: "Fig",
                                            includeRepotting: true, includePruning: false)
        try await pending.addCareLookup(lookup)
        let first = try await pending.careLookups(limit: 1)
        _ = try await pending.careLookups(after: first.first, limit: 10)
        _ = try await pending.careLookups(of: anna.userID)
        _ = try await pending.finishCareLookup(userID: anna.userID, plantID: "p1")
        try await pending.beginDeletion(.init(userID: anna.userID, plantID: "p1"))
        _ = try await pending.deletions()
        try await pending.finishDeletion(.init(userID: anna.userID, plantID: "p1"))
        try await pending.forget(userID: anna.userID)
    }

    @Test("SQLite: every statement of accounts, tokens, calendar links, shares, settings and pending work searches by its key")
    func gateway() async throws {
        let audit = QueryPlanAudit()
        let database = try audit.openDatabase(GatewayDatabase.migrator)
        let stores = GatewayStores(SQLiteGateway(writer: database))
        try await Self.seedGateway(stores)

        try await audit.recording { try await Self.gatewayWorkload(stores) }

        #expect(audit.statements.count > 20, "the workload ran \(audit.statements.count) distinct statements")
        let findings = try audit.findings(in: database, allowed: Self.gatewayScansByDesign)
        #expect(findings.isEmpty, "\(findings.map(\.description).joined(separator: "\n"))")
    }

    /// Statements that read a whole table by design (their SQL, or its start and "…"), and why.
    static let careDataScansByDesign = [
        "SELECT COUNT(*), SUM(fetchedAt > ?), SUM(careJSON IS NULL) FROM careEntry":
            "the status counts of the whole cache, asked by operators (it grows with species, not users)",
    ]

    @Test("every statement of the care-data cache searches by name or Trefle id")
    func careData() async throws {
        let audit = QueryPlanAudit()
        let database = try audit.openDatabase(SQLiteCareEntries.migrator)
        let cache = CareCache(entries: SQLiteCareEntries(writer: database), memoryCapacity: 1)  // every read goes to the database
        let care = CareInfo(scientificName: "Monstera deliciosa", source: .trefle, fetchedAt: Date())
        for index in 0..<200 {
            try await cache.store(.init(key: "species \(index)", trefleID: index, care: care, fetchedAt: Date()))
        }

        try await audit.recording {
            try await cache.store(.init(key: "monstera deliciosa", trefleID: 1_000, care: care, raw: Data("{}".utf8), fetchedAt: Date()))
            try await cache.store(.init(key: "ficus lyrata", care: nil, fetchedAt: Date()))
            _ = try await cache.entry(key: "species 3")
            _ = try await cache.entry(trefleID: 4)
            _ = try await cache.counts(freshAfter: Date(timeIntervalSince1970: 0))
            _ = try await cache.remove(key: "ficus lyrata")
            _ = try await cache.remove(trefleID: 1_000)
        }

        #expect(audit.statements.count >= 6, "the workload ran \(audit.statements.count) distinct statements")
        let findings = try audit.findings(in: database, allowed: Self.careDataScansByDesign)
        #expect(findings.isEmpty, "\(findings.map(\.description).joined(separator: "\n"))")
    }
}

@Suite("Query plans: the PostgreSQL stores")
struct PostgresPlanTests {
    @Test("every statement of the care-data cache on PostgreSQL uses an index")
    func careData() async throws {
        let audit = PostgresPlanAudit()
        let storage = try await TestPostgres.open(try await TestPostgres.settings(), migrations: PostgresCareEntries.migrations, observer: audit.observer)
        let cache = CareCache(entries: PostgresCareEntries(storage), memoryCapacity: 1)
        let care = CareInfo(scientificName: "Monstera deliciosa", source: .trefle, fetchedAt: Date())
        for index in 0..<500 {
            try await cache.store(.init(key: "species \(index)", trefleID: index, care: care, fetchedAt: Date()))
        }

        try await audit.recording {
            try await cache.store(.init(key: "monstera deliciosa", trefleID: 1_000, care: care, raw: Data("{}".utf8), fetchedAt: Date()))
            _ = try await cache.entry(key: "species 3")
            _ = try await cache.entry(trefleID: 4)
            _ = try await cache.counts(freshAfter: Date(timeIntervalSince1970: 0))
            _ = try await cache.remove(key: "monstera deliciosa")
            _ = try await PostgresCareEntries(storage).rows(after: "species 1", limit: 10)
        }

        #expect(audit.statements.count >= 6, "the workload ran \(audit.statements.count) distinct statements")
        // The status counts read the whole cache by design; without this entry the audit reports them.
        let findings = try await audit.findings(in: storage, allowed: ["SELECT count(*), count(*) FILTER…": "the status counts of the whole cache"])
        await storage.close()
        #expect(findings.isEmpty, "\(findings.map(\.description).joined(separator: "\n"))")
    }
}

@Suite("Query plans: gateway on PostgreSQL")
struct GatewayPostgresPlanTests {
    /// Statements that read a whole table by design, and why.
    static let scansByDesign = [
        "SELECT app_user.id, app_user.name, app_user.created_at…": "the operator's `users list` lists every user",
    ]

    @Test("PostgreSQL: no statement of accounts, tokens, calendar links, shares, settings and pending work reads a table sequentially")
    func gateway() async throws {
        let audit = PostgresPlanAudit()
        let storage = try await TestPostgres.open(try await TestPostgres.settings(), migrations: PostgresGateway.migrations, observer: audit.observer)
        let stores = GatewayAndCareDataPlanTests.GatewayStores(PostgresGateway(storage))
        try await GatewayAndCareDataPlanTests.seedGateway(stores)

        try await audit.recording { try await GatewayAndCareDataPlanTests.gatewayWorkload(stores) }

        #expect(audit.statements.count > 20, "the workload ran \(audit.statements.count) distinct statements")
        let findings = try await audit.findings(in: storage, allowed: Self.scansByDesign)
        await storage.close()
        #expect(findings.isEmpty, "\(findings.map(\.description).joined(separator: "\n"))")
    }
}

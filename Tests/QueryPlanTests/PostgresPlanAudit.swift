import Foundation
import PlantGuideStorage
import PostgresNIO
import Synchronization

/// The PostgreSQL half of ``QueryPlanAudit``: records every statement a store runs through ``PostgresStorage`` and
/// checks PostgreSQL's generic plan of each (the plan for any parameter values: `plan_cache_mode =
/// force_generic_plan`) with sequential scans priced out (`enable_seqscan = off`), after `ANALYZE` of the schema's tables. A statement
/// whose plan still reads a table sequentially has no index to use. Statements that have no plan (`SET`) are left out.
final class PostgresPlanAudit: Sendable {
    private let recorded = Mutex<(on: Bool, statements: [(sql: String, parameters: Int)])>((false, []))

    /// The observer to open the audited ``PostgresStorage`` with.
    var observer: @Sendable (PostgresQuery) -> Void {
        { [self] query in
            recorded.withLock { state in
                if state.on, !state.statements.contains(where: { $0.sql == query.sql }) {
                    state.statements.append((query.sql, query.binds.count))
                }
            }
        }
    }

    /// Runs `workload` with recording on: its statements are the ones audited.
    func recording<T>(_ workload: () async throws -> T) async rethrows -> T {
        recorded.withLock { $0.on = true }
        defer { recorded.withLock { $0.on = false } }
        return try await workload()
    }

    var statements: [String] { recorded.withLock { $0.statements.map(\.sql) } }

    /// The plans of every recorded statement; `allowed` as in ``QueryPlanAudit/findings(in:allowed:)``.
    func findings(in storage: PostgresStorage, allowed: [String: String] = [:]) async throws -> [QueryPlanAudit.Finding] {
        let plannable = ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"]
        let statements = recorded.withLock { $0.statements }.filter { statement in
            let verb = statement.sql.drop { $0.isWhitespace }.prefix { $0.isLetter }.uppercased()
            return plannable.contains(verb) && !allowed.keys.contains { QueryPlanAudit.matches(statement.sql, $0) }
        }
        return try await storage.write { session in
            // This schema's tables only: a database-wide ANALYZE would read every other test's tables too.
            let tables: [String] = try await session.all("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()", as: String.self)
            for table in tables { try await session.query(PostgresQuery(unsafeSQL: "ANALYZE \"\(table)\"")) }
            try await session.query("SET LOCAL plan_cache_mode = force_generic_plan")
            try await session.query("SET LOCAL enable_seqscan = off")
            var findings: [QueryPlanAudit.Finding] = []
            for (index, statement) in statements.enumerated() {
                try await session.query(PostgresQuery(unsafeSQL: "PREPARE plan_check_\(index) AS \(statement.sql)"))
                let parameters = Array(repeating: "NULL", count: statement.parameters).joined(separator: ", ")
                let execute = statement.parameters == 0 ? "plan_check_\(index)" : "plan_check_\(index)(\(parameters))"
                let plan = try await session.all(PostgresQuery(unsafeSQL: "EXPLAIN EXECUTE \(execute)"), as: String.self)
                try await session.query(PostgresQuery(unsafeSQL: "DEALLOCATE plan_check_\(index)"))
                for line in plan {
                    guard let range = line.range(of: "Seq Scan on ") else { continue }
                    let table = line[range.upperBound...].prefix { $0 != " " }
                    findings.append(.init(sql: statement.sql, plan: plan, problem: "scans table \(table)", statistics: "PostgreSQL, after ANALYZE"))
                }
            }
            return findings
        }
    }
}

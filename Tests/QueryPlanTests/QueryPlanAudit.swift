import Foundation
import GRDB
import Synchronization

/// Records every SQL statement a store runs on a database and checks SQLite's plan for each: the proof that no
/// call pays for other users' rows or picks an index that reads more of its own user's rows than it must.
///
/// A statement fails the audit when its plan
/// - scans a table (`SCAN task`, or a scan of one of its indexes): the table's rows of every user are read;
/// - searches a table with fewer equality constraints than the best index for the statement's own equality
///   terms offers (the planner chose `taskByDay (ownerID=? AND dueDay<?)` where `taskByPlant (ownerID=? AND
///   plantID=?)` was there to use).
///
/// Plans are taken twice: on the database as the workload left it (no statistics: a new deployment) and after
/// `ANALYZE` (what `PRAGMA optimize` gives a deployment that has grown), so a plan that is right only by luck of
/// the statistics fails too.
final class QueryPlanAudit: Sendable {
    /// One statement whose plan breaks a rule.
    struct Finding: CustomStringConvertible {
        var sql: String
        var plan: [String]
        var problem: String
        var statistics: String

        var description: String { "\(problem) [\(statistics)]\n    \(sql)\n    plan: \(plan.joined(separator: " | "))" }
    }

    private let recorded = Mutex<(on: Bool, statements: [String])>((false, []))

    /// A database configuration that hands every statement run on it to this audit while recording is on.
    func configuration(prepare: (@Sendable (Database) -> Void)? = nil) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { [self] db in
            prepare?(db)
            db.trace(options: .statement) { event in
                guard case .statement(let statement) = event else { return }
                self.record(statement.sql)
            }
        }
        return configuration
    }

    /// Opens a fresh database in a temporary folder with `migrator` applied, tracing into this audit.
    func openDatabase(_ migrator: DatabaseMigrator, prepare: (@Sendable (Database) -> Void)? = nil) throws -> DatabasePool {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plans-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: folder.appendingPathComponent("audit.sqlite").path, configuration: configuration(prepare: prepare))
        try migrator.migrate(pool)
        return pool
    }

    /// Runs `workload` with recording on: its statements are the ones audited.
    func recording<T>(_ workload: () async throws -> T) async rethrows -> T {
        recorded.withLock { $0.on = true }
        defer { recorded.withLock { $0.on = false } }
        return try await workload()
    }

    private func record(_ sql: String) {
        // Trigger bodies are traced as "-- TRIGGER name"; transaction control and pragmas have no plan; full-text
        // search runs statements of its own on its shadow tables ('main'.'plantSearch_data'...), keyed by rowid.
        let keyword = sql.prefix { $0.isLetter }.uppercased()
        guard ["SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "WITH"].contains(keyword), !sql.contains("'main'.'") else { return }
        recorded.withLock { state in
            if state.on, !state.statements.contains(sql) { state.statements.append(sql) }
        }
    }

    /// The distinct statements recorded so far, in the order first run.
    var statements: [String] { recorded.withLock { $0.statements } }

    /// The plans of every recorded statement, checked without statistics and again after `ANALYZE`.
    /// - Parameter allowed: statements allowed to scan, each with the reason why that is by design: their SQL, or
    ///   its start followed by "…" (for SQL with values written into it).
    func findings(in pool: DatabasePool, allowed: [String: String] = [:]) throws -> [Finding] {
        let statements = self.statements
        var findings: [Finding] = []
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "DROP TABLE IF EXISTS sqlite_stat1")
        }
        for statistics in ["no statistics", "after ANALYZE"] {
            if statistics == "after ANALYZE" { try pool.writeWithoutTransaction { try $0.execute(sql: "ANALYZE") } }
            try pool.read { db in
                for sql in statements where !allowed.keys.contains(where: { Self.matches(sql, $0) }) {
                    findings += try Self.check(sql, in: db).map { plan, problem in
                        Finding(sql: sql, plan: plan, problem: problem, statistics: statistics)
                    }
                }
            }
        }
        return findings
    }

    static func matches(_ sql: String, _ allowed: String) -> Bool {
        allowed.hasSuffix("…") ? sql.hasPrefix(allowed.dropLast()) : sql == allowed
    }

    /// SQLite's plan of `sql` (parameters left unbound) and what is wrong with it, if anything.
    static func check(_ sql: String, in db: Database) throws -> [([String], String)] {
        let statement = try db.makeStatement(sql: "EXPLAIN QUERY PLAN " + sql)
        statement.setUncheckedArguments([])
        let plan = try Row.fetchAll(statement).map { $0["detail"] as String }
        let equalities = equalityColumns(sql)
        var problems: [([String], String)] = []
        for line in plan {
            if let table = scannedTable(line), try isTable(table, db) {
                problems.append((plan, "scans table \(table)"))
            } else if let search = SearchStep(line) {
                let best = try bestEqualityPrefix(table: search.table, columns: equalities, db)
                if search.equalities < best {
                    problems.append((plan, "\(search.table): \(search.equalities) equality term(s) used where an index takes \(best)"))
                }
            }
        }
        return problems
    }

    /// The table a plan step reads whole: "SCAN task" or "SCAN task USING [COVERING] INDEX ...". Virtual tables
    /// (full-text search answers from its own index), subqueries, CTEs and constant rows are not table scans.
    static func scannedTable(_ line: String) -> String? {
        guard line.hasPrefix("SCAN ") else { return nil }
        let words = line.split(separator: " ")
        guard words.count >= 2 else { return nil }
        let name = String(words[1])
        // SQLite's own catalogue (GRDB reads it once per connection) does not grow with users.
        if name.hasPrefix("(") || name == "CONSTANT" || name.hasPrefix("sqlite_") || line.contains("VIRTUAL TABLE") { return nil }
        return name
    }

    /// Whether `name` is a table (not a subquery's or a CTE's name).
    static func isTable(_ name: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?)", arguments: [name]) ?? false
    }

    /// "SEARCH task USING INDEX taskByPlant (ownerID=? AND plantID=?)": the table and its equality terms.
    struct SearchStep {
        var table: String
        var equalities: Int

        init?(_ line: String) {
            guard line.hasPrefix("SEARCH ") else { return nil }
            let words = line.split(separator: " ")
            guard words.count >= 2, !line.contains("VIRTUAL TABLE") else { return nil }
            table = String(words[1])
            // The constraints follow the index's name: "USING [COVERING] INDEX name (...)" or "USING ... KEY (...)".
            guard let using = line.range(of: " USING "), let open = line.range(of: " (", range: using.upperBound..<line.endIndex),
                  line.hasSuffix(")") else {
                equalities = 0
                return
            }
            let terms = line[open.upperBound..<line.index(before: line.endIndex)].components(separatedBy: " AND ")
            equalities = terms.filter { $0.hasSuffix("=?") && !$0.hasSuffix(">=?") && !$0.hasSuffix("<=?") }.count
        }
    }

    /// Columns the statement's WHERE or ON clauses test for equality (`col = ?`, `col = 1`, `t.col = ?`,
    /// `col IN (...)`). Over-counting is harmless: a column the table does not have adds nothing.
    static func equalityColumns(_ sql: String) -> Set<String> {
        guard let clause = sql.range(of: #"\b(WHERE|ON)\b"#, options: .regularExpression) else { return [] }
        let text = String(sql[clause.lowerBound...])
        let pattern = #"(?:\w+\.)?(\w+)\s*(?:=\s*(?:\?|-?\d|'|\w+\.\w+)|IN\s*\()"#
        let regex = try! NSRegularExpression(pattern: pattern, options: [.caseInsensitive])
        let range = NSRange(text.startIndex..., in: text)
        return Set(regex.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        })
    }

    /// The most leading columns of any full (not partial) index of `table`, the primary key's included, that
    /// are all among `columns`.
    static func bestEqualityPrefix(table: String, columns: Set<String>, _ db: Database) throws -> Int {
        var best = 0
        for index in try Row.fetchAll(db, sql: "SELECT name, partial FROM pragma_index_list(?)", arguments: [table])
        where (index["partial"] as Int) == 0 {
            let keyColumns = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno",
                                                 arguments: [index["name"] as String])
            best = max(best, keyColumns.prefix { columns.contains($0) }.count)
        }
        return best
    }
}

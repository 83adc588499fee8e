import GRDB

extension Database {
    /// `sql`'s statement: when `cached`, kept with the connection and prepared once (preparing costs more than a
    /// point read); otherwise prepared now, for SQL that carries values, whose every variant would stay cached.
    public func statement(sql: String, cached: Bool) throws -> Statement {
        cached ? try cachedStatement(sql: sql) : try makeStatement(sql: sql)
    }
}

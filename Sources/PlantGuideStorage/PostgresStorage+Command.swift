import Logging

extension PostgresStorage {
    /// Opens the store for a one-shot command run by an operator (`copy-data`, `users add`, `tokens revoke`),
    /// which wants patience where a service wants speed.
    ///
    /// A service fails a call within seconds of hearing nothing from the server (the defaults of `open`), because
    /// the app it answers retries and a replica on a healthy host may take the call. A command has no one to retry
    /// for it, and a busy machine (a server slow to answer, a process starved of CPU for a moment) must not stop a
    /// copy halfway. So a command waits up to a minute for each call and takes the server for gone only after 30 s
    /// without any answer. A server that refuses connections (nothing listens, or it is shutting down) still fails
    /// the command within seconds: at once while it works, after 5 s of retries while it starts.
    public static func openForCommand(_ settings: PostgresSettings, migrations: [PostgresMigration], logger: Logger) async throws -> PostgresStorage {
        try await open(settings, migrations: migrations, logger: logger, startupWait: .seconds(5), operationTimeout: .seconds(60),
                       outageAfter: .seconds(30))
    }
}

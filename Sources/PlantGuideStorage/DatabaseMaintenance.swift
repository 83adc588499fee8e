import ServiceLifecycle

/// Keeps the statistics of a service's databases current while it runs: `PRAGMA optimize` every `interval`
/// (an hour by default) and once more at shutdown, so that query plans stay right as tables grow. Run it as
/// background work beside a stateful service.
public struct DatabaseMaintenance: Service {
    let interval: Duration

    public init(interval: Duration = .seconds(3_600)) {
        self.interval = interval
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                await ServiceDatabase.optimizeAll()
            }
        }
        await ServiceDatabase.optimizeAll()
    }
}

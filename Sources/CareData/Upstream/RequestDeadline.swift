/// When the caller of a lookup stops waiting, carried as a task-local value to every provider request the lookup
/// sends (and to the shared fetches it starts, which inherit it): each request's time-out is cut to what is left.
enum RequestDeadline {
    @TaskLocal static var current: ContinuousClock.Instant?

    /// A request given less time than this is not sent: it could not finish.
    static let shortestRequest: Duration = .milliseconds(50)

    /// What is left of the current deadline; nil when there is none.
    static var timeLeft: Duration? {
        current.map { ContinuousClock.now.duration(to: $0) }
    }
}

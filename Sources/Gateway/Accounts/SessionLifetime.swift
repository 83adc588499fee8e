/// How long a signed-in session (a token made by signing up or in) lasts: it ends `idle` seconds after its last use,
/// and `absolute` seconds after it began whatever its use, so that a stolen or forgotten session does not live on.
/// Tokens an operator makes for programs (`users add`, `tokens add`) have no lifetime.
public struct SessionLifetime: Sendable, Equatable {
    public var idle: Double
    public var absolute: Double

    public init(idle: Double, absolute: Double) {
        self.idle = idle
        self.absolute = absolute
    }

    /// Two weeks unused, three months at most: a phone's app stays signed in through a holiday, and signs in again
    /// four times a year (OWASP's session guidance leaves the figures to the risk; a plant collection is low).
    public static let standard = SessionLifetime(idle: 14 * 86_400, absolute: 90 * 86_400)
}

import Foundation
import PlantGuideHTTP

/// Checks a URL that reminders will be sent to (a webhook, a browser's push endpoint) when a user registers it, so
/// that one the server would refuse to send to is refused at once with INVALID_ARGUMENT, not accepted and then
/// failed at every reminder.
///
/// Accepted: an `https` URL whose host resolves only to public addresses. Refused: any address that is loopback,
/// private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (169.254/16, fe80::/10, cloud metadata),
/// carrier-grade NAT, multicast, unspecified, documentation or reserved, in every spelling the resolver takes
/// (names, IPv4-mapped IPv6, decimal "2130706433", short "127.1", octal and hex), and a host that does not
/// resolve. With `allowLoopback` (tests, `--allow-loopback-receivers`) loopback addresses are accepted too, and
/// there also over plain `http`. The outbound guard checks every address again when a reminder is sent.
public struct ReceiverCheck: Sendable {
    public let allowLoopback: Bool
    private let resolve: @Sendable (String) async throws -> [String]

    /// - Parameter resolve: the host's addresses (the system's resolver; tests give names of their own).
    public init(allowLoopback: Bool, resolve: @escaping @Sendable (String) async throws -> [String] = HostResolver.addresses(of:)) {
        self.allowLoopback = allowLoopback
        self.resolve = resolve
    }

    /// The URL `text` names, checked.
    /// - Throws: INVALID_ARGUMENT naming `field`; UNAVAILABLE when the resolver could not be asked.
    @discardableResult
    public func check(_ text: String, field: String) async throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw SchedulingError.invalidArgument(field, .invalidFormat, "'\(text)' is not a URL")
        }
        guard scheme == "https" || (scheme == "http" && allowLoopback) else {
            throw SchedulingError.invalidArgument(field, .invalidFormat, "reminders are sent over https only: '\(scheme)' is refused")
        }
        let addresses: [String]
        do {
            addresses = try await resolve(host)
        } catch let failure as HostResolver.Failure where failure.isTemporary {
            throw SchedulingError(.unavailable, "\(failure.description); try again")
        } catch {
            throw SchedulingError.invalidArgument(field, .invalidFormat, "the host '\(host)' does not resolve to an address")
        }
        guard !addresses.isEmpty else {
            throw SchedulingError.invalidArgument(field, .invalidFormat, "the host '\(host)' does not resolve to an address")
        }
        let allowed = OutboundAddresses.receivers(allowLoopback: allowLoopback)
        if let refused = addresses.first(where: { !allowed.allows($0) }) {
            throw SchedulingError.invalidArgument(field, .outOfRange, "'\(host)' is \(refused), not a public address: reminders are "
                                                  + "never sent to loopback, private, link-local or reserved addresses")
        }
        if scheme == "http", let open = addresses.first(where: { OutboundAddresses.publicOnly.allows($0) }) {
            throw SchedulingError.invalidArgument(field, .invalidFormat, "'\(host)' is \(open): plain http is accepted on loopback only")
        }
        return url
    }
}

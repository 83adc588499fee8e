import ArgumentParser
import PlantGuideHTTP

/// `--ca-file`: the services that call out over https (scheduling's push services and webhooks, care data's
/// providers, identification's Pl@ntNet) trust an operator's CA beside the system's.
public struct OutboundTLSOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "PEM file of certificate authorities trusted for outbound https beside the system's (a TLS-inspecting proxy, a private "
            + "push gateway) (env PLANTGUIDE_CA_FILE). Default: the system's bundle alone.",
        valueName: "path"))
    public var caFile: String?

    public init() {}

    /// The authorities outbound https is checked against: the system's, with the file added when one is named.
    /// - Throws: `ValidationError` when the file cannot be read or holds no certificate.
    public func resolve(environment: [String: String]) throws -> CertificateAuthorities {
        do {
            return try CertificateAuthorities.configured(flag: caFile, environment: environment)
        } catch let error as CertificateAuthoritiesError {
            throw ValidationError(error.description)
        }
    }
}

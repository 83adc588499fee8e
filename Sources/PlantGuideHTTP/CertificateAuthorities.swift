import CHTTPTransport
import Foundation

/// The certificate authorities outbound https is checked against: the system's bundle, and an operator's own CA
/// added to it (`--ca-file` / `PLANTGUIDE_CA_FILE`) for a TLS-inspecting proxy, a private push gateway or a test's
/// fake server. Adding never replaces: public services stay trusted beside the operator's CA. Host names are
/// verified either way.
///
/// ```swift
/// let client = CurlHTTPClient(authorities: try CertificateAuthorities(addingFile: "/etc/plantguide/proxy-ca.pem"))
/// ```
public struct CertificateAuthorities: Sendable, Equatable {
    /// The PEM handed to libcurl for every request; nil: libcurl's default bundle as it is.
    let bundle: Data?
    /// The operator's file, when one was added.
    public let addedFile: String?

    /// The system's bundle alone (libcurl's default: `/etc/ssl/certs/ca-certificates.crt` on Debian).
    public static let system = CertificateAuthorities(bundle: nil, addedFile: nil)

    private init(bundle: Data?, addedFile: String?) {
        self.bundle = bundle
        self.addedFile = addedFile
    }

    /// The system's bundle with the certificates of the PEM file at `path` added. Read once, here.
    /// - Throws: ``CertificateAuthoritiesError`` when the file cannot be read or holds no PEM certificate.
    public init(addingFile path: String) throws {
        guard let added = FileManager.default.contents(atPath: path) else {
            throw CertificateAuthoritiesError("cannot read the CA file '\(path)'")
        }
        guard String(decoding: added, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw CertificateAuthoritiesError("the CA file '\(path)' holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        var bundle = Data()
        if let system = Self.systemBundlePath, let contents = FileManager.default.contents(atPath: system) {
            bundle.append(contents)
            if contents.last != UInt8(ascii: "\n") { bundle.append(UInt8(ascii: "\n")) }
        }
        bundle.append(added)
        self.init(bundle: bundle, addedFile: path)
    }

    /// The operator's file from a flag or, without one, `PLANTGUIDE_CA_FILE`; the system's bundle alone when
    /// neither names one.
    public static func configured(flag: String?, environment: [String: String]) throws -> CertificateAuthorities {
        guard let path = [flag, environment["PLANTGUIDE_CA_FILE"]].compactMap({ $0 }).first(where: { !$0.isEmpty }) else { return .system }
        return try CertificateAuthorities(addingFile: path)
    }

    /// Where libcurl finds the system's bundle, nil when it was built without one.
    public static var systemBundlePath: String? {
        pg_http_default_ca_file().map { String(cString: $0) }
    }
}

/// A CA file that cannot be used, in words for the operator.
public struct CertificateAuthoritiesError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

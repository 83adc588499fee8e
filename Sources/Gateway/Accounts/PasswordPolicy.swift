import Foundation
import PlantGuideRPCCore

/// What sign-up and a password change accept: 10 to 128 characters, not the account's name, and not one of the
/// 19,640 most common passwords in breaches (NIST SP 800-63B's advice: length and a blocklist, no composition
/// rules).
///
/// The list, `PasswordLists/common-passwords.txt`, is Django 5.2's `django/contrib/auth/common-passwords.txt.gz`
/// (BSD-3-Clause) unpacked: Royce Williams' list of breached passwords, lower-cased
/// (https://gist.github.com/roycewilliams/226886fd01572964e1431ac8afc999ce).
struct PasswordPolicy: Sendable {
    static let minimumLength = 10
    static let maximumLength = 128

    /// The common passwords, lower-cased; read once.
    static let common: Set<Substring> = {
        guard let url = Bundle.module.url(forResource: "common-passwords", withExtension: "txt"),
              let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return Set(text.split(whereSeparator: \.isNewline))
    }()

    /// Why `password` is refused for the account `name` (the field violation's reason and words), or nil when it
    /// is accepted.
    static func problem(with password: String, name: String) -> (reason: RPCErrorDetails.FieldViolation.Reason, description: String)? {
        if password.count < minimumLength { return (.outOfRange, "a password has at least \(minimumLength) characters") }
        if password.count > maximumLength { return (.tooLong, "a password has at most \(maximumLength) characters") }
        let lowered = password.lowercased()
        if lowered == name.lowercased() { return (.invalidFormat, "a password must not be the account's name") }
        if common.contains(Substring(lowered)) { return (.invalidFormat, "that password is among the most common ones: choose another") }
        return nil
    }
}

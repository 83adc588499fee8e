import CSodium

/// The PUB topic of a user's reminders: "reminders." and the lower-case hex SHA-256 of the user id's UTF-8
/// bytes. ZeroMQ subscriptions match by prefix; with every topic the same length, the subscriber of one user
/// never receives another's (a plain "reminders.u1" would also match "reminders.u10").
public enum ReminderTopic {
    public static let prefix = "reminders."

    public static func topic(for user: String) -> String {
        let bytes = Array(user.utf8)
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        return prefix + digest.map { String(format: "%02x", $0) }.joined()
    }
}

import CSodium
import Foundation

/// SHA-256 of content, as lower-case hex: the id of a stored photo and its ETag.
enum ContentHash {
    static func sha256(_ data: some DataProtocol) -> String {
        let bytes = Array(data)
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    /// True for 64 lower-case hex digits.
    static func isValid(_ text: String) -> Bool {
        text.count == 64 && text.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }
}

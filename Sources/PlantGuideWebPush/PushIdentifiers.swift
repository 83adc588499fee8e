import Crypto
import Foundation
import PlantGuideCore

/// Short stable names derived by hashing: a subscription's id from its endpoint, a message's `Topic`.
public enum PushIdentifiers {
    /// 16 hex characters of SHA-256 of the endpoint: the same browser subscribing again gets the same id.
    public static func subscriptionID(endpoint: String) -> String {
        String(hex(SHA256.hash(data: Data(endpoint.utf8))).prefix(16))
    }

    /// A `Topic` (RFC 8030 §5.4: at most 32 base64url characters) for `key`: messages under one topic replace
    /// each other while the push service still holds them.
    public static func topic(_ key: String) -> String {
        String(Base64URL.encode(Data(SHA256.hash(data: Data(key.utf8)))).prefix(32))
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}

import CSodium
import Foundation

/// HMAC-SHA256 of a webhook body with the receiver's secret, as the `X-PlantGuide-Signature: sha256=<hex>` header.
public enum WebhookSignature {
    public static let header = "X-PlantGuide-Signature"

    /// "sha256=" and the lower-case hex HMAC of `body` under `secret`.
    public static func sign(_ body: Data, secret: String) -> String {
        let key = Array(secret.utf8)
        var state = crypto_auth_hmacsha256_state()
        var mac = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        crypto_auth_hmacsha256_init(&state, key, key.count)
        let bytes = Array(body)
        crypto_auth_hmacsha256_update(&state, bytes, UInt64(bytes.count))
        crypto_auth_hmacsha256_final(&state, &mac)
        return "sha256=" + mac.map { String(format: "%02x", $0) }.joined()
    }
}

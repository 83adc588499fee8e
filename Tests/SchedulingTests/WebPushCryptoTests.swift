import Crypto
import Foundation
import PlantGuideCore
import PlantGuideWebPush
import Testing

/// Web Push's message encryption against RFC 8291's published example, and VAPID tokens a push service accepts.
@Suite("Web Push: RFC 8291 encryption and RFC 8292 VAPID")
struct WebPushCryptoTests {
    /// RFC 8291, Appendix A.
    enum Example {
        static let plaintext = Data("When I grow up, I want to be a watermelon".utf8)
        static let senderPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
        static let receiverPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
        static let receiverPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
        static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
        static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A"
            + "_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
    }

    private static func bytes(_ text: String) throws -> Data { try #require(Base64URL.decode(text)) }

    @Test("encrypting RFC 8291's example with its keys and salt gives its body byte for byte, and decrypting it gives the text")
    func rfcExample() throws {
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(Example.senderPrivate))
        let body = try WebPushEncryption.encrypt(Example.plaintext, p256dh: Self.bytes(Example.receiverPublic), auth: Self.bytes(Example.auth),
                                                 senderKey: sender, salt: Self.bytes(Example.salt))
        #expect(Base64URL.encode(body) == Example.body)
        let receiver = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(Example.receiverPrivate))
        #expect(try WebPushEncryption.decrypt(Self.bytes(Example.body), receiverKey: receiver, auth: Self.bytes(Example.auth)) == Example.plaintext)
    }

    @Test("fresh keys and salt each message; a flipped byte, a wrong auth secret, bad keys and oversized payloads are refused")
    func refusals() throws {
        let browser = P256.KeyAgreement.PrivateKey()
        let auth = Data((0..<16).map { UInt8($0) })
        let p256dh = browser.publicKey.x963Representation
        let first = try WebPushEncryption.encrypt(Data("water the basil".utf8), p256dh: p256dh, auth: auth)
        let second = try WebPushEncryption.encrypt(Data("water the basil".utf8), p256dh: p256dh, auth: auth)
        #expect(first != second && first.prefix(16) != second.prefix(16))
        #expect(try WebPushEncryption.decrypt(first, receiverKey: browser, auth: auth) == Data("water the basil".utf8))
        var flipped = first
        flipped[flipped.count - 20] ^= 1
        #expect(throws: (any Error).self) { try WebPushEncryption.decrypt(flipped, receiverKey: browser, auth: auth) }
        #expect(throws: (any Error).self) { try WebPushEncryption.decrypt(first, receiverKey: browser, auth: Data(repeating: 7, count: 16)) }
        #expect(throws: WebPushEncryption.Failure.badSubscriptionKey) {
            try WebPushEncryption.encrypt(Data("x".utf8), p256dh: Data(repeating: 4, count: 65), auth: auth)
        }
        #expect(throws: WebPushEncryption.Failure.badAuthSecret) { try WebPushEncryption.encrypt(Data("x".utf8), p256dh: p256dh, auth: Data()) }
        let largest = Data(repeating: 0x41, count: WebPushEncryption.maxPayloadBytes)
        #expect(try WebPushEncryption.encrypt(largest, p256dh: p256dh, auth: auth).count == WebPushEncryption.maxBodyBytes)
        #expect(throws: WebPushEncryption.Failure.payloadTooLarge(largest.count + 1)) {
            try WebPushEncryption.encrypt(largest + [0x41], p256dh: p256dh, auth: auth)
        }
    }

    @Test("a VAPID token names the endpoint's origin, expires within a day, carries the subject, and verifies only with its own key")
    func vapid() throws {
        let key = VAPIDKey.generate(subject: "mailto:ops@plantguide.example")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let header = try key.authorization(for: URL(string: "https://push.example.net:8443/send/abc?x=1")!, now: now)
        let claims = try #require(VAPIDKey.verifiedClaims(authorization: header, publicKey: key.publicKeyBase64URL))
        #expect(claims["aud"] as? String == "https://push.example.net:8443")
        #expect(claims["sub"] as? String == "mailto:ops@plantguide.example")
        #expect(claims["exp"] as? Int == 1_800_000_000 + 12 * 3_600)
        #expect(key.publicKeyBase64URL.count == 87)
        let other = VAPIDKey.generate(subject: "mailto:x@y")
        #expect(VAPIDKey.verifiedClaims(authorization: header, publicKey: other.publicKeyBase64URL) == nil)
        let forged = header.replacingOccurrences(of: "k=\(key.publicKeyBase64URL)", with: "k=\(other.publicKeyBase64URL)")
        #expect(VAPIDKey.verifiedClaims(authorization: forged, publicKey: other.publicKeyBase64URL) == nil)
        // The key's text forms read back: PEM as make-keys writes it, and the raw scalar web-push tools print.
        #expect(try VAPIDKey.privateKey(fromText: key.privateKeyPEM).publicKey.x963Representation == key.privateKey.publicKey.x963Representation)
        let raw = Base64URL.encode(key.privateKey.rawRepresentation)
        #expect(try VAPIDKey.privateKey(fromText: raw).rawRepresentation == key.privateKey.rawRepresentation)
        #expect(throws: (any Error).self) { try VAPIDKey.privateKey(fromText: "not a key") }
    }
}

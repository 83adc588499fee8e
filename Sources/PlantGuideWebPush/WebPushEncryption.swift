import Crypto
import Foundation

/// Message encryption for Web Push (RFC 8291), in the `aes128gcm` content coding (RFC 8188): what only the
/// subscribed browser can read, whatever push service carries it.
///
/// The sender makes a fresh P-256 key pair and salt per message; ECDH with the browser's key (`p256dh`) and its
/// `auth` secret give the content key and nonce; the body is one record: salt, record size, the sender's public
/// key, then the AES-128-GCM ciphertext of the payload followed by the last-record delimiter 0x02.
public enum WebPushEncryption {
    /// The body header's size: salt (16), record size (4), key length (1), the sender's public key (65).
    public static let headerBytes = 86
    /// Ciphertext overhead: the delimiter byte and GCM's tag.
    public static let recordOverhead = 17
    /// The largest body push services must accept (RFC 8030 §7.2).
    public static let maxBodyBytes = 4_096
    /// The largest payload that fits one record in ``maxBodyBytes``.
    public static let maxPayloadBytes = maxBodyBytes - headerBytes - recordOverhead

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case badSubscriptionKey
        case badAuthSecret
        case payloadTooLarge(Int)
        case malformedBody(String)

        public var description: String {
            switch self {
            case .badSubscriptionKey: "the subscription's p256dh is not an uncompressed P-256 public key (65 bytes, base64url)"
            case .badAuthSecret: "the subscription's auth secret is not 16 bytes (base64url)"
            case .payloadTooLarge(let bytes): "a Web Push payload is at most \(maxPayloadBytes) bytes, not \(bytes)"
            case .malformedBody(let why): "not an aes128gcm body: \(why)"
            }
        }
    }

    /// The encrypted body of `payload` for the browser whose subscription keys are `p256dh` (65 bytes, X9.63
    /// uncompressed) and `auth` (16 bytes). `senderKey` and `salt` are fresh per message; tests pass RFC 8291's.
    public static func encrypt(_ payload: Data, p256dh: Data, auth: Data,
                               senderKey: P256.KeyAgreement.PrivateKey = .init(), salt: Data? = nil) throws -> Data {
        guard payload.count <= maxPayloadBytes else { throw Failure.payloadTooLarge(payload.count) }
        guard auth.count == 16 else { throw Failure.badAuthSecret }
        guard p256dh.count == 65, let receiver = try? P256.KeyAgreement.PublicKey(x963Representation: p256dh) else {
            throw Failure.badSubscriptionKey
        }
        let salt = salt ?? Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        let senderPublic = senderKey.publicKey.x963Representation
        let shared = try senderKey.sharedSecretFromKeyAgreement(with: receiver)
        let (key, nonce) = contentKeyAndNonce(shared: shared, auth: auth, salt: salt, receiverPublic: p256dh, senderPublic: senderPublic)
        let sealed = try AES.GCM.seal(payload + [0x02], using: key, nonce: nonce)
        var body = salt
        body.append(contentsOf: withUnsafeBytes(of: UInt32(maxBodyBytes).bigEndian, Array.init))
        body.append(UInt8(senderPublic.count))
        body.append(senderPublic)
        body.append(sealed.ciphertext)
        body.append(sealed.tag)
        return body
    }

    /// The payload of `body` for the browser that holds `receiverKey` and `auth`: what a browser does, and what
    /// tests use to read what was sent.
    public static func decrypt(_ body: Data, receiverKey: P256.KeyAgreement.PrivateKey, auth: Data) throws -> Data {
        let bytes = [UInt8](body)
        guard bytes.count > headerBytes + recordOverhead - 1 else { throw Failure.malformedBody("\(bytes.count) bytes is too short") }
        let salt = Data(bytes[0..<16])
        let keyLength = Int(bytes[20])
        guard keyLength == 65, bytes.count >= 21 + keyLength + 16 else { throw Failure.malformedBody("a key of \(keyLength) bytes") }
        let senderPublic = Data(bytes[21..<(21 + keyLength)])
        guard let sender = try? P256.KeyAgreement.PublicKey(x963Representation: senderPublic) else {
            throw Failure.malformedBody("the sender's key is not a P-256 point")
        }
        let shared = try receiverKey.sharedSecretFromKeyAgreement(with: sender)
        let (key, nonce) = contentKeyAndNonce(shared: shared, auth: auth, salt: salt,
                                              receiverPublic: receiverKey.publicKey.x963Representation, senderPublic: senderPublic)
        let record = bytes[(21 + keyLength)...]
        let sealed = try AES.GCM.SealedBox(nonce: nonce, ciphertext: Data(record.dropLast(16)), tag: Data(record.suffix(16)))
        var plain = try AES.GCM.open(sealed, using: key)
        // Padding: zeros after the delimiter; the last record's delimiter is 0x02.
        while plain.last == 0 { plain.removeLast() }
        guard plain.last == 0x02 else { throw Failure.malformedBody("no last-record delimiter") }
        plain.removeLast()
        return plain
    }

    /// RFC 8291 §3.4 and RFC 8188 §2.2: IKM from the ECDH secret and the auth secret, then the content key and nonce.
    private static func contentKeyAndNonce(shared: SharedSecret, auth: Data, salt: Data, receiverPublic: Data, senderPublic: Data)
        -> (SymmetricKey, AES.GCM.Nonce)
    {
        let keyInfo = Data("WebPush: info\u{0}".utf8) + receiverPublic + senderPublic
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: auth, sharedInfo: keyInfo, outputByteCount: 32)
        let cek = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Data("Content-Encoding: aes128gcm\u{0}".utf8),
                                         outputByteCount: 16)
        let nonceKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Data("Content-Encoding: nonce\u{0}".utf8),
                                              outputByteCount: 12)
        let nonce = nonceKey.withUnsafeBytes { try! AES.GCM.Nonce(data: Data($0)) }  // 12 bytes: always a valid nonce
        return (cek, nonce)
    }
}

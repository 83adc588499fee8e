import Foundation

/// What an authenticator signs (WebAuthn §6.1): the relying party's id hash, its flags, its signature counter,
/// and at registration the new credential's id and public key.
public struct AuthenticatorData: Sendable {
    /// SHA-256 of the relying party id the authenticator used.
    public let relyingPartyIDHash: Data
    public let flags: Flags
    public let signCount: UInt32
    /// At registration (flag AT): the credential's id and its public key's CBOR bytes.
    public let attestedCredential: (id: Data, publicKey: Data)?
    /// The bytes as received: a sign-in's signature covers them.
    public let bytes: Data

    public struct Flags: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// The person was present (touched, clicked).
        public static let userPresent = Flags(rawValue: 0x01)
        /// The person was verified (biometrics, PIN): a passkey is then a factor of its own.
        public static let userVerified = Flags(rawValue: 0x04)
        /// The credential may be backed up (a synced passkey).
        public static let backupEligible = Flags(rawValue: 0x08)
        public static let backedUp = Flags(rawValue: 0x10)
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// - Throws: ``WebAuthnError`` when the bytes are shorter than their parts say, or hold more than them.
    public init(_ data: Data) throws {
        let bytes = Array(data)
        guard bytes.count >= 37 else { throw WebAuthnError("the authenticator data is \(bytes.count) bytes, fewer than 37") }
        self.bytes = data
        relyingPartyIDHash = Data(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredentialData) {
            // 16 bytes of AAGUID, a 2-byte length, the credential id, then the key as one CBOR item.
            guard bytes.count >= offset + 18 else { throw WebAuthnError("the authenticator data ends inside its credential") }
            let idLength = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard idLength <= 1_023, bytes.count >= offset + idLength else {
                throw WebAuthnError("the authenticator data's credential id is longer than the data or than 1023 bytes")
            }
            let id = Data(bytes[offset..<(offset + idLength)])
            offset += idLength
            var reader = CBORReader(bytes, offset: offset)
            do {
                _ = try reader.read()
            } catch {
                throw WebAuthnError("the authenticator data's public key is not CBOR: \(error)")
            }
            attestedCredential = (id, Data(bytes[offset..<reader.offset]))
            offset = reader.offset
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            var reader = CBORReader(bytes, offset: offset)
            guard (try? reader.read()) != nil else { throw WebAuthnError("the authenticator data's extensions are not CBOR") }
            offset = reader.offset
        }
        guard offset == bytes.count else { throw WebAuthnError("the authenticator data has \(bytes.count - offset) bytes too many") }
    }
}

import Foundation
@testable import Gateway
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

/// Passkey ceremonies through the gateway's use case on each backend, begun on one replica and finished on another
/// (on PostgreSQL they share the records, as two gateway processes do), with an authenticator made of swift-crypto.
@Suite("Gateway: passkeys")
struct PasskeyAccountTests {
    private static let origin = "http://localhost:7080"

    private static func message(of body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as RPCError {
            return "\(error.code) \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    @Test("registered while signed in, the passkey alone signs in on another replica; replays, copies, another's registration and deleted passkeys are refused",
          arguments: TestBackend.allCases)
    func ceremonies(backend: TestBackend) async throws {
        let records = try await GatewayTestRecords.open(backend)
        let store = AccountStore(records: records)
        let (first, second) = (PasskeyAccounts(accounts: store, records: records, publicOrigin: Self.origin),
                               PasskeyAccounts(accounts: store, records: records, publicOrigin: Self.origin))
        let passwords = PasswordAccounts(accounts: store, records: records, hasher: PasswordHasher(), policy: .open)
        let ana = try await passwords.signUp(name: "ana", password: "basil needs water")
        let caller = Caller(id: ana.userID, deadline: .now + .seconds(10), traceID: nil, tokenID: ana.tokenID)
        let authenticator = TestAuthenticator(relyingPartyID: "localhost", origin: Self.origin)

        let options = try await first.beginRegistration(caller: caller)
        #expect(options.rp.id == "localhost" && options.attestation == "none" && options.authenticatorSelection.userVerification == "required")
        #expect(options.pubKeyCredParams.map(\.alg) == [-7, -8] && Base64URL.decode(options.user.id) == Data(ana.userID.utf8))
        let registration = Plantguide_Gateway_V1_CreatePasskeyRequest.with {
            $0.credential = authenticator.registrationCredential(challenge: Base64URL.decode(options.challenge) ?? Data())
            $0.name = "Phone"
        }
        let passkey = try await second.register(registration, caller: caller)
        #expect(passkey.id == Base64URL.encode(authenticator.credentialID) && passkey.name == "Phone")
        #expect(await Self.message { _ = try await first.register(registration, caller: caller) }?.contains("start again") == true,
                "a registration answers its challenge once")
        #expect(try await first.beginRegistration(caller: caller).excludeCredentials.map(\.id) == [passkey.id])

        // Sign in with the passkey alone: begun on one replica, finished on the other.
        let signInOptions = try await first.beginSignIn()
        #expect(signInOptions.rpID == "localhost" && signInOptions.allowCredentials.isEmpty && signInOptions.userVerification == "required")
        let challenge = try #require(Base64URL.decode(signInOptions.challenge))
        let answer = authenticator.signInCredential(challenge: challenge, counter: 2, userHandle: ana.userID)
        let session = try await second.signIn(answer)
        #expect(session.userID == ana.userID)
        #expect(try await store.owner(ofTokenHash: AccountStore.sha256(session.secret))?.userID == ana.userID, "the token works")
        #expect(await Self.message { _ = try await first.signIn(answer) }?.contains("answered already") == true, "replayed")
        let listed = try await first.passkeys(of: caller)
        #expect(listed.count == 1 && listed.first?.hasLastUsedAt == true)

        // The same counter again (a copied authenticator) is refused, on a fresh challenge.
        let again = try #require(Base64URL.decode(try await first.beginSignIn().challenge))
        let copiedAnswer = authenticator.signInCredential(challenge: again, counter: 2)
        #expect(await Self.message { _ = try await second.signIn(copiedAnswer) }?.contains("may have been cloned") == true)

        // A registration begun for Ana cannot be finished by Bob.
        let bob = try await passwords.signUp(name: "bob", password: "tomatoes in july")
        let bobCaller = Caller(id: bob.userID, deadline: .now + .seconds(10), traceID: nil, tokenID: bob.tokenID)
        let anaOptions = try await first.beginRegistration(caller: caller)
        let other = TestAuthenticator(relyingPartyID: "localhost", origin: Self.origin)
        let hijack = Plantguide_Gateway_V1_CreatePasskeyRequest.with {
            $0.credential = other.registrationCredential(challenge: Base64URL.decode(anaOptions.challenge) ?? Data())
        }
        #expect(await Self.message { _ = try await second.register(hijack, caller: bobCaller) }?.contains("another account") == true)

        #expect(try await second.delete(passkey.id, of: bobCaller) == false, "not Bob's to delete")
        #expect(try await second.delete(passkey.id, of: caller))
        let late = try #require(Base64URL.decode(try await first.beginSignIn().challenge))
        let deletedAnswer = authenticator.signInCredential(challenge: late, counter: 3)
        #expect(await Self.message { _ = try await first.signIn(deletedAnswer) }?.contains("not registered here") == true)
    }

    @Test("the site is the public origin, else the request's host; an IP address or no site at all is refused, saying what to do")
    func site() async throws {
        let records = try await GatewayTestRecords.open(.sqlite)
        let noOrigin = PasskeyAccounts(accounts: AccountStore(records: records), records: records, publicOrigin: nil)
        #expect(throws: RPCError.self) { try noOrigin.relyingParty() }
        let party = try HTTPRequestFacts.$current.withValue(HTTPRequestFacts(authority: "localhost:7080")) { try noOrigin.relyingParty() }
        #expect(party.id == "localhost" && party.origins == ["http://localhost:7080", "https://localhost:7080"])
        for address in ["127.0.0.1:7080", "[::1]:7080"] {
            let refusal = HTTPRequestFacts.$current.withValue(HTTPRequestFacts(authority: address)) {
                #expect(throws: RPCError.self) { try noOrigin.relyingParty() }
            }
            #expect(refusal?.message.contains("not an IP address") == true, "\(address)")
        }
        let behindProxy = PasskeyAccounts(accounts: AccountStore(records: records), records: records, publicOrigin: "https://plants.example.org/")
        let proxied = try HTTPRequestFacts.$current.withValue(HTTPRequestFacts(authority: "10.0.0.5:7080")) { try behindProxy.relyingParty() }
        #expect(proxied.id == "plants.example.org" && proxied.origins == ["https://plants.example.org"])
    }
}

import Foundation
@testable import Gateway
import PlantGuideRPC
import PlantGuideStorage
import PlantGuideTestSupport
import Synchronization
import Testing

/// Sign-up and sign-in with a password (PasswordAccounts) on each backend: tokens that work, refused passwords, no
/// account enumeration, back-off shared by replicas.
@Suite("Gateway: accounts people open with a password")
struct PasswordAccountTests {
    /// A clock the test moves.
    final class TestClock: Sendable {
        private let seconds = Mutex<Double>(1_800_000_000)
        var now: Date { Date(timeIntervalSince1970: seconds.withLock { $0 }) }
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
    }

    private static func accounts(_ records: any GatewayRecords, clock: TestClock = TestClock(), policy: SignUpPolicy = .open,
                                 hasher: PasswordHasher = PasswordHasher()) -> PasswordAccounts {
        var accounts = PasswordAccounts(accounts: AccountStore(records: records, now: { clock.now }), records: records,
                                        hasher: hasher, policy: policy)
        accounts.now = { clock.now }
        return accounts
    }


    @Test("sign up, then sign in on another device: each gets a token the gateway knows as the same user", arguments: TestBackend.allCases)
    func signUpAndIn(backend: TestBackend) async throws {
        let records = try await GatewayTestRecords.open(backend)
        let passwords = Self.accounts(records)
        let store = AccountStore(records: records)

        let opened = try await passwords.signUp(name: "ana", password: "basil needs water")
        let signedIn = try await passwords.signIn(name: "ana", password: "basil needs water", clientAddress: nil)
        #expect(opened.userID == signedIn.userID && opened.secret != signedIn.secret)
        for secret in [opened.secret, signedIn.secret] {
            #expect(try await store.owner(ofTokenHash: AccountStore.sha256(secret))?.userID == opened.userID)
        }
        #expect(try await store.users().map(\.name) == ["ana"])
        let stored = try #require(try await records.password(ofName: "ana"))
        #expect(stored.hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"), "OWASP's parameters: \(stored.hash.prefix(32))")
        #expect(!stored.hash.contains("basil"))

        #expect(await rpcErrorCode { _ = try await passwords.signUp(name: "ana", password: "another long secret") } == .alreadyExists)
    }

    @Test("passwords too short, too long, equal to the name or common are refused, saying why")
    func policy() async throws {
        let passwords = Self.accounts(try await GatewayTestRecords.open(.sqlite))
        let refused: [(String, String, String)] = [
            ("short", "ana", "at least 10"), (String(repeating: "x", count: 129), "ana", "at most 128"),
            ("ana.garcia", "ana.garcia", "name"), ("password123", "ana", "most common"), ("Qwertyuiop", "ana", "most common"),
        ]
        for (password, name, reason) in refused {
            do {
                _ = try await passwords.signUp(name: name, password: password)
                Issue.record("'\(password)' was accepted")
            } catch let error as RPCError {
                #expect(error.code == .invalidArgument && error.message.contains(reason), "\(error.message)")
            }
        }
        #expect(await rpcErrorCode { _ = try await passwords.signUp(name: "ana garcía!", password: "a long fine secret") } == .invalidArgument)
        #expect(PasswordPolicy.common.count > 19_000)
    }

    @Test("with sign-up closed no one opens an account; users added by an operator have no password to sign in with")
    func closed() async throws {
        let records = try await GatewayTestRecords.open(.sqlite)
        let passwords = Self.accounts(records, policy: .closed)
        #expect(await rpcErrorCode { _ = try await passwords.signUp(name: "ana", password: "basil needs water") } == .permissionDenied)
        _ = try await AccountStore(records: records).addUser(name: "bob")
        #expect(await rpcErrorCode { _ = try await passwords.signIn(name: "bob", password: "basil needs water", clientAddress: nil) }
            == .unauthenticated)
    }

    @Test("an unknown name and a wrong password get the same answer after the same Argon2id work", arguments: TestBackend.allCases)
    func noEnumeration(backend: TestBackend) async throws {
        let hasher = PasswordHasher()
        let passwords = Self.accounts(try await GatewayTestRecords.open(backend), hasher: hasher)
        _ = try await passwords.signUp(name: "ana", password: "basil needs water")

        var answers: [String] = []
        for name in ["ana", "nobody"] {
            let before = hasher.checkCount
            do {
                _ = try await passwords.signIn(name: name, password: "wrong but long enough", clientAddress: nil)
            } catch let error as RPCError {
                answers.append("\(error.code) \(error.message)")
            }
            #expect(hasher.checkCount - before == 1, "\(name): one Argon2id check")
        }
        #expect(answers.count == 2 && answers[0] == answers[1], "\(answers)")
        #expect(answers.first == "\(RPCError.Code.unauthenticated) the name or the password is wrong")
    }

    @Test("four failed sign-ins are free, then the name backs off, doubling, on every replica; the right password later clears it",
          arguments: TestBackend.allCases)
    func backoff(backend: TestBackend) async throws {
        let records = try await GatewayTestRecords.open(backend)
        let clock = TestClock()
        // Two replicas: on PostgreSQL they share the records, as two gateway processes do.
        let first = Self.accounts(records, clock: clock)
        let second = Self.accounts(records, clock: clock)
        _ = try await first.signUp(name: "ana", password: "basil needs water")

        for attempt in 1...4 {
            let replica = attempt.isMultiple(of: 2) ? second : first
            #expect(await rpcErrorCode { _ = try await replica.signIn(name: "ana", password: "guess number \(attempt)", clientAddress: nil) }
                == .unauthenticated)
        }
        #expect(await rpcErrorCode { _ = try await second.signIn(name: "ana", password: "guess number 5", clientAddress: nil) } == .unauthenticated)
        // The fifth failure blocked the name for 1 s: even the right password waits, and the answer says how long.
        do {
            _ = try await first.signIn(name: "ana", password: "basil needs water", clientAddress: nil)
            Issue.record("signed in while backing off")
        } catch let error as RPCError {
            #expect(error.code == .resourceExhausted && error.message.contains("wait 1 s"), "\(error.message)")
        }
        clock.advance(1.5)
        #expect(await rpcErrorCode { _ = try await second.signIn(name: "ana", password: "guess number 6", clientAddress: nil) } == .unauthenticated)
        clock.advance(1.5)
        #expect(await rpcErrorCode { _ = try await first.signIn(name: "ana", password: "basil needs water", clientAddress: nil) }
            == .resourceExhausted, "the sixth failure blocked for 2 s")
        clock.advance(1)
        _ = try await second.signIn(name: "ana", password: "basil needs water", clientAddress: nil)
        #expect(try await records.signInBlockedUntil(keys: [SignInBackoff.nameKey("ana")]) == 0, "a success forgets the failures")

        // Names without an account back off the same way (no enumeration by back-off).
        for attempt in 1...5 {
            _ = await rpcErrorCode { _ = try await first.signIn(name: "nobody", password: "guess number \(attempt)", clientAddress: nil) }
        }
        #expect(await rpcErrorCode { _ = try await second.signIn(name: "nobody", password: "guess", clientAddress: nil) } == .resourceExhausted)
    }

    @Test("one client address guessing across many names backs off after 20 failures, on every replica; other addresses do not",
          arguments: TestBackend.allCases)
    func addressBackoff(backend: TestBackend) async throws {
        let records = try await GatewayTestRecords.open(backend)
        let clock = TestClock()
        let (first, second) = (Self.accounts(records, clock: clock), Self.accounts(records, clock: clock))
        _ = try await first.signUp(name: "ana", password: "basil needs water")
        let guesser = "203.0.113.7"

        // One failure per name: no name backs off, but the address counts them all.
        for attempt in 1...21 {
            let replica = attempt.isMultiple(of: 2) ? second : first
            #expect(await rpcErrorCode { _ = try await replica.signIn(name: "name\(attempt)", password: "guess", clientAddress: guesser) }
                == .unauthenticated, "failure \(attempt) is free")
        }
        #expect(await rpcErrorCode { _ = try await second.signIn(name: "ana", password: "basil needs water", clientAddress: guesser) }
            == .resourceExhausted, "the 21st failure blocked the address, even for a right password")
        #expect(await rpcErrorCode { _ = try await first.signIn(name: "name22", password: "guess", clientAddress: "203.0.113.8") }
            == .unauthenticated, "another address is not blocked")
        _ = try await second.signIn(name: "ana", password: "basil needs water", clientAddress: "203.0.113.8")
        clock.advance(1.5)
        _ = try await first.signIn(name: "ana", password: "basil needs water", clientAddress: guesser)
    }

    @Test("sessions: listed with the current one marked, one signed out, all others signed out; a new password ends the others",
          arguments: TestBackend.allCases)
    func sessions(backend: TestBackend) async throws {
        let records = try await GatewayTestRecords.open(backend)
        let clock = TestClock()
        let passwords = Self.accounts(records, clock: clock)
        let store = AccountStore(records: records)
        func alive(_ token: AccountStore.IssuedToken) async throws -> Bool {
            try await store.owner(ofTokenHash: AccountStore.sha256(token.secret)) != nil
        }
        let phone = try await passwords.signUp(name: "ana", password: "basil needs water")
        var devices = [phone]
        for _ in 0..<3 {
            clock.advance(60)
            devices.append(try await passwords.signIn(name: "ana", password: "basil needs water", clientAddress: nil))
        }
        let laptop = Caller(id: phone.userID, deadline: .now + .seconds(10), traceID: nil, tokenID: devices[1].tokenID)

        let listed = try await passwords.sessions(of: laptop)
        #expect(listed.map(\.id) == devices.map(\.tokenID), "oldest first")
        #expect(listed.filter(\.current).map(\.id) == [devices[1].tokenID])

        #expect(try await passwords.deleteSession(devices[2].tokenID, of: laptop))
        #expect(try await passwords.deleteSession(devices[2].tokenID, of: laptop) == false, "gone already")
        let (second, third) = (try await alive(devices[2]), try await alive(devices[3]))
        #expect(!second && third)
        let bob = try await passwords.signUp(name: "bob", password: "tomatoes in july")
        #expect(try await passwords.deleteSession(bob.tokenID, of: laptop) == false, "another's session is not the caller's")
        #expect(try await alive(bob))

        #expect(try await passwords.signOutOthers(of: laptop) == 2)
        let afterSignOut = [try await alive(devices[0]), try await alive(devices[1]), try await alive(devices[3])]
        #expect(afterSignOut == [false, true, false])

        // A new password: the wrong current one is refused; the right one changes it and ends the other sessions.
        let tablet = try await passwords.signIn(name: "ana", password: "basil needs water", clientAddress: nil)
        #expect(await rpcErrorCode { _ = try await passwords.changePassword(current: "not the password", new: "fern fronds unfurl",
                                                                        caller: laptop) } == .unauthenticated)
        #expect(await rpcErrorCode { _ = try await passwords.changePassword(current: "basil needs water", new: "qwertyuiop",
                                                                        caller: laptop) } == .invalidArgument)
        #expect(try await passwords.changePassword(current: "basil needs water", new: "fern fronds unfurl", caller: laptop) == 1)
        let (laptopAlive, tabletAlive) = (try await alive(devices[1]), try await alive(tablet))
        #expect(laptopAlive && !tabletAlive)
        #expect(await rpcErrorCode { _ = try await passwords.signIn(name: "ana", password: "basil needs water", clientAddress: nil) }
            == .unauthenticated)
        _ = try await passwords.signIn(name: "ana", password: "fern fronds unfurl", clientAddress: nil)
    }

    @Test("a signed-in session ends two weeks after its last use and three months after sign-in, on every replica; an operator's token never does",
          arguments: TestBackend.allCases)
    func expiry(backend: TestBackend) async throws {
        let records = try await GatewayTestRecords.open(backend)
        let clock = TestClock()
        let passwords = Self.accounts(records, clock: clock)
        let store = AccountStore(records: records, now: { clock.now })
        // Two replicas: each its own cache on the one store.
        let (replicaA, replicaB) = (TokenCache(accounts: store), TokenCache(accounts: store))
        let day = 86_400.0
        let program = try await store.addUser(name: "ops")
        let idle = try await passwords.signUp(name: "ana", password: "basil needs water")
        let busy = try await passwords.signIn(name: "ana", password: "basil needs water", clientAddress: nil)

        clock.advance(13 * day)
        #expect(try await replicaA.owner(ofToken: busy.secret)?.tokenID == busy.tokenID, "used on day 13 (noted)")
        clock.advance(13 * day)
        #expect(try await replicaB.owner(ofToken: busy.secret) != nil, "day 26: 13 days after its use, seen by the other replica")
        #expect(try await replicaB.owner(ofToken: idle.secret) == nil, "26 days unused: idle expiry")
        #expect(try await replicaA.owner(ofToken: idle.secret) == nil)
        let caller = Caller(id: busy.userID, deadline: .now + .seconds(10), traceID: nil, tokenID: busy.tokenID)
        let listed = try await passwords.sessions(of: caller)
        #expect(listed.map(\.id) == [busy.tokenID], "an expired session is not listed")
        #expect(listed.first?.expiresAt.seconds == Int64(clock.now.timeIntervalSince1970 + 14 * day), "two weeks after this use")

        for _ in 0..<6 {
            clock.advance(10 * day)
            #expect(try await replicaA.owner(ofToken: busy.secret) != nil)
        }
        clock.advance(5 * day)
        #expect(try await replicaA.owner(ofToken: busy.secret) == nil, "day 91: past the absolute expiry however busy")
        #expect(try await replicaB.owner(ofToken: busy.secret) == nil)
        #expect(try await replicaB.owner(ofToken: program.secret) != nil, "an operator's token for a program never expires")
        #expect(try await passwords.deleteSession("current", of: Caller(id: program.userID, deadline: .now + .seconds(10),
                                                                          traceID: nil, tokenID: program.tokenID)))
    }

    @Test("sign-up by invitation: a code opens one account until it expires, on every replica; no code, a wrong, used, withdrawn or expired one is refused",
          arguments: TestBackend.allCases)
    func invitations(backend: TestBackend) async throws {
        let records = try await GatewayTestRecords.open(backend)
        let clock = TestClock()
        let (first, second) = (Self.accounts(records, clock: clock, policy: .invite), Self.accounts(records, clock: clock, policy: .invite))
        let store = AccountStore(records: records, now: { clock.now })
        let codes = try await store.addInvitations(count: 4, days: 14)
        #expect(codes.count == 4 && Set(codes).count == 4 && codes.allSatisfy { $0.hasPrefix("inv_") })

        #expect(await rpcErrorCode { _ = try await first.signUp(name: "ana", password: "basil needs water") } == .invalidArgument)
        #expect(await rpcErrorCode { _ = try await first.signUp(name: "ana", password: "basil needs water", invitation: "inv_x_y") } == .permissionDenied)
        // Two sign-ups race with one code on two replicas: exactly one account is opened.
        async let ana = rpcErrorCode { _ = try await first.signUp(name: "ana", password: "basil needs water", invitation: codes[0]) }
        async let bob = rpcErrorCode { _ = try await second.signUp(name: "bob", password: "tomatoes in july", invitation: codes[0]) }
        let raced = [await ana, await bob]
        #expect(raced.filter { $0 == nil }.count == 1 && raced.contains(.permissionDenied), "\(raced)")
        #expect(try await store.users().count == 1, "the refused sign-up left no user behind")

        _ = try await second.signUp(name: "cleo", password: "fern fronds unfurl", invitation: codes[1])
        #expect(try await store.deleteInvitation(codes[2]))
        #expect(await rpcErrorCode { _ = try await first.signUp(name: "dan", password: "cactus in the sun", invitation: codes[2]) } == .permissionDenied)
        clock.advance(15 * 86_400)
        #expect(await rpcErrorCode { _ = try await first.signUp(name: "dan", password: "cactus in the sun", invitation: codes[3]) } == .permissionDenied,
                "expired after 14 days")
        let listed = try await store.invitations()
        #expect(listed.count == 3 && Set(listed.compactMap(\.usedBy)).count == 2 && listed.filter { $0.usedBy == "cleo" }.count == 1)
        #expect(try await store.deleteInvitation(codes[1]) == false, "a used invitation stays on the record")
        // Open sign-up ignores codes; closed refuses them.
        _ = try await Self.accounts(records, clock: clock, policy: .open).signUp(name: "eve", password: "orchids bloom late")
        #expect(await rpcErrorCode { _ = try await Self.accounts(records, clock: clock, policy: .closed)
            .signUp(name: "fay", password: "orchids bloom late", invitation: codes[3]) } == .permissionDenied)
    }

    @Test("back-off doubles to at most 15 minutes; an address gets 20 free failures; an hour forgets")
    func schedule() {
        #expect((1...4).map { SignInBackoff.delay(key: "name:ana", failures: $0) } == [0, 0, 0, 0])
        #expect((5...8).map { SignInBackoff.delay(key: "name:ana", failures: $0) } == [1, 2, 4, 8])
        #expect(SignInBackoff.delay(key: "name:ana", failures: 40) == 900)
        #expect(SignInBackoff.delay(key: "address:127.0.0.1", failures: 20) == 0)
        #expect(SignInBackoff.delay(key: "address:127.0.0.1", failures: 21) == 1)
        #expect(SignInBackoff.forgetAfter == 3_600)
    }

    @Test("hashing threads run at nice 10, so sign-ins yield the cores to the gateway's other calls")
    func hashingYields() async throws {
        let hasher = PasswordHasher(threads: 2)
        _ = try await hasher.hash("warm the threads up")
        var niceness: [Int] = []
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") {
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            guard comm.hasPrefix("plantguide-pass"), let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                  let afterName = stat.range(of: ") ", options: .backwards) else { continue }
            // Fields after the name start at field 3 (state); the nice value is field 19.
            let fields = stat[afterName.upperBound...].split(separator: " ")
            if fields.count > 16, let nice = Int(fields[16]) { niceness.append(nice) }
        }
        #expect(niceness.count >= 2 && niceness.allSatisfy { $0 == 10 }, "the hashing threads' nice values: \(niceness)")
    }

    @Test("a flood of hashes beyond the queue is refused at once, not queued")
    func flood() async throws {
        let hasher = PasswordHasher(threads: 1, maxWaiting: 2)
        let outcomes = await withTaskGroup(of: RPCError.Code?.self) { group in
            for index in 0..<12 {
                group.addTask { await rpcErrorCode { _ = try await hasher.hash("password number \(index)") } }
            }
            return await group.reduce(into: [RPCError.Code?]()) { $0.append($1) }
        }
        #expect(outcomes.contains(.resourceExhausted), "\(outcomes)")
        #expect(outcomes.contains(nil), "some were hashed")
    }
}

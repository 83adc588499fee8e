import Testing

/// Lets at most two whole-stack tests (five service processes each, and their databases) run at a time: the
/// suite shares two cores, and a dozen stacks starting together would starve every test of the process, so that
/// deadlines measured anywhere would say more about the machine than about the code.
///
/// ```swift
/// @Suite(.wholeStack) struct GatewayJourneyTests { ... }
/// ```
public struct StackTestTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        await StackTestGate.shared.enter()
        do {
            try await function()
            await StackTestGate.shared.leave()
        } catch {
            await StackTestGate.shared.leave()
            throw error
        }
    }
}

extension Trait where Self == StackTestTrait {
    /// At most two whole-stack tests at a time: see ``StackTestTrait``.
    public static var wholeStack: Self { StackTestTrait() }
}

/// A counting gate: `enter` waits (without blocking a thread) while `limit` tests are inside.
actor StackTestGate {
    static let shared = StackTestGate(limit: 2)

    private let limit: Int
    private var inside = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = limit
    }

    func enter() async {
        if inside < limit {
            inside += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            inside -= 1
        } else {
            waiting.removeFirst().resume()  // the place passes straight to the next test
        }
    }
}

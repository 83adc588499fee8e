import Testing

/// Lets at most two whole-stack tests (five service processes each, and their databases) run at a time, and none
/// beside a test that times a service under load: the suite shares two cores, and a dozen stacks starting
/// together would starve every test of the process, so that deadlines measured anywhere would say more about the
/// machine than about the code.
///
/// ```swift
/// @Suite(.wholeStack) struct GatewayJourneyTests { ... }
/// ```
public struct StackTestTrait: TestTrait, SuiteTrait, TestScoping {
    /// How many of the gate's places the test takes: one for a stack, all of them for a test that measures how
    /// fast something answers under a load of its own making.
    let places: Int

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        await StackTestGate.shared.enter(places: places)
        do {
            try await function()
            await StackTestGate.shared.leave(places: places)
        } catch {
            await StackTestGate.shared.leave(places: places)
            throw error
        }
    }
}

extension Trait where Self == StackTestTrait {
    /// At most two whole-stack tests at a time: see ``StackTestTrait``.
    public static var wholeStack: Self { StackTestTrait(places: 1) }

    /// No whole-stack test beside it: for tests that time a service under a load they make themselves (another
    /// stack starting on the same two cores would be measured with it).
    public static var noStackBeside: Self { StackTestTrait(places: StackTestGate.limit) }
}

/// A counting gate: `enter` waits (without blocking a thread) until the places asked for are free; tests enter in
/// the order they came.
actor StackTestGate {
    static let limit = 2
    static let shared = StackTestGate()

    private var inside = 0
    private var waiting: [(places: Int, continuation: CheckedContinuation<Void, Never>)] = []

    func enter(places: Int) async {
        if waiting.isEmpty && inside + places <= Self.limit {
            inside += places
            return
        }
        await withCheckedContinuation { waiting.append((places, $0)) }
    }

    func leave(places: Int) {
        inside -= places
        while let first = waiting.first, inside + first.places <= Self.limit {
            waiting.removeFirst()
            inside += first.places
            first.continuation.resume()
        }
    }
}

@testable import PlantGuideRPC
import Testing

@Suite("Client balancing, alone")
struct LeastOutstandingTests {
    @Test("the ready endpoint with the fewest outstanding calls first, the other ready ones after; never one not ready")
    func fewestFirst() {
        var balancer = LeastOutstanding()

        let order = balancer.order(outstanding: [5, nil, 1, 3])

        #expect(order.first == 2)
        #expect(Set(order) == [0, 2, 3], "endpoint 1 is not ready")
        #expect(balancer.order(outstanding: [nil, nil]).isEmpty)
    }

    @Test("idle endpoints take turns")
    func turns() {
        var balancer = LeastOutstanding()

        let firsts = (0..<6).map { _ in balancer.order(outstanding: [0, 0, 0]).first! }

        #expect(Set(firsts) == [0, 1, 2])
        #expect(firsts[0] != firsts[1] && firsts[1] != firsts[2])
    }
}

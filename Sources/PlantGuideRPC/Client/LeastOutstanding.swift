/// The client's balancing: a call goes to the ready endpoint with the fewest calls outstanding, ties taken in
/// turn so that idle endpoints share the load; the other ready endpoints follow in that turn's order, as
/// fallbacks when a send finds the first one's queue full. A value with no sockets, tested alone.
struct LeastOutstanding {
    private var rotation = 0

    /// Endpoint indices to try, best first, given each endpoint's outstanding calls (nil: not ready).
    mutating func order(outstanding: [Int?]) -> [Int] {
        let ready = outstanding.indices.filter { outstanding[$0] != nil }
        guard !ready.isEmpty else { return [] }
        rotation &+= 1
        let turn = ready.indices.map { ready[($0 + rotation) % ready.count] }
        let chosen = turn.min { outstanding[$0]! < outstanding[$1]! }!
        return [chosen] + turn.filter { $0 != chosen }
    }
}

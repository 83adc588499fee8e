/// The frames a ROUTER socket puts before a request's body (the caller's routing id, and any frames a caller's
/// socket adds, such as REQ's empty delimiter), which go back ahead of the reply.
///
/// The usual case, one id of at most 16 bytes (libzmq makes 5-byte ids for peers that name none), is kept inline,
/// so a call costs no allocation for it; anything else is kept as copies of the frames.
struct RoutingFrames {
    private static let inlineCapacity = 16

    /// The single frame's bytes while `inlineCount` is set.
    private var inlineBytes: (UInt64, UInt64) = (0, 0)
    private var inlineCount: Int?
    private var copies: [[UInt8]] = []

    /// No frames: a reply with nothing ahead of it (what a DEALER or PAIR socket receives).
    init() {}

    var count: Int { inlineCount == nil ? copies.count : 1 }

    var isEmpty: Bool { count == 0 }

    /// Adds the next frame, as received (copied: libzmq's message does not outlive the receive).
    mutating func append(_ frame: UnsafeRawBufferPointer) {
        if isEmpty, frame.count <= Self.inlineCapacity {
            withUnsafeMutableBytes(of: &inlineBytes) { $0.copyMemory(from: frame) }
            inlineCount = frame.count
            return
        }
        if inlineCount != nil {
            copies = [withInlineFrame { Array($0) }]
            inlineCount = nil
        }
        copies.append(Array(frame))
    }

    /// Calls `body` with each frame in order until it returns false; returns whether every call returned true.
    @discardableResult
    func forEach(while body: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        if inlineCount != nil { return withInlineFrame(body) }
        for frame in copies {
            guard frame.withUnsafeBytes(body) else { return false }
        }
        return true
    }

    /// A copy of the first frame, or nil when there is none.
    var first: [UInt8]? {
        var first: [UInt8]?
        forEach { frame in
            first = Array(frame)
            return false
        }
        return first
    }

    private func withInlineFrame<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeBytes(of: inlineBytes) { body(UnsafeRawBufferPointer(rebasing: $0.prefix(inlineCount ?? 0))) }
    }
}

import CZeroMQ
import Foundation

/// Waits until `socket` has a message to read, or `timeoutMs` has passed; whether it has one.
///
/// A signal the process catches cuts a poll short with EINTR on whichever thread it lands: the wait then goes on for
/// the time left instead of reporting that nothing came.
public func zmqWaitReadable(_ socket: UnsafeMutableRawPointer?, timeoutMs: Int) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(timeoutMs)
    while true {
        let left = ContinuousClock.now.duration(to: deadline)
        let leftMs = max(0, Int(left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000) + 1)
        var items = [zmq_pollitem_t(socket: socket, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0)]
        let ready = zmq_poll(&items, 1, leftMs)
        if ready == 1 { return true }
        guard ready < 0, zmq_errno() == EINTR, ContinuousClock.now < deadline else { return false }
    }
}

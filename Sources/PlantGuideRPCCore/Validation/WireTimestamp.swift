import Foundation
import SwiftProtobuf

/// Timestamps from the wire, checked before they reach arithmetic, a conversion or a database, and timestamps
/// for the wire made without trapping, whatever a stored row holds.
///
/// proto3's Timestamp covers 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z with nanos in
/// 0...999,999,999; swift-protobuf traps on values outside it, so a value from a caller or from an old row is
/// checked or clamped here first.
public enum WireTimestamp {
    /// Seconds of 0001-01-01T00:00:00Z, the earliest Timestamp.
    public static let minimumSeconds: Int64 = -62_135_596_800
    /// Seconds of 9999-12-31T23:59:59Z, the latest Timestamp.
    public static let maximumSeconds: Int64 = 253_402_300_799

    /// Whether `timestamp` lies in proto3's range.
    public static func isValid(_ timestamp: Google_Protobuf_Timestamp) -> Bool {
        (minimumSeconds...maximumSeconds).contains(timestamp.seconds) && (0...999_999_999).contains(timestamp.nanos)
    }

    /// Seconds since 1970 of a timestamp from the wire.
    /// - Parameters:
    ///   - field: the request field, as the .proto names it, for the error message.
    ///   - range: what the domain allows, in seconds since 1970; proto3's range when nil.
    /// - Throws: INVALID_ARGUMENT naming `field` when the value lies outside proto3's range or `range`.
    public static func seconds(
        _ timestamp: Google_Protobuf_Timestamp, field: String, within range: ClosedRange<Double>? = nil
    ) throws -> Double {
        guard isValid(timestamp) else {
            throw RPCError.invalidArgument(
                field, .outOfRange, "\(field) must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z with nanos from 0 to 999999999")
        }
        let seconds = Double(timestamp.seconds) + Double(timestamp.nanos) / 1e9
        if let range, !range.contains(seconds) {
            let bounds = "\(describe(range.lowerBound)) to \(describe(range.upperBound))"
            throw RPCError.invalidArgument(field, .outOfRange, "\(field) must lie from \(bounds)")
        }
        return seconds
    }

    /// A date of a timestamp from the wire; see ``seconds(_:field:within:)``.
    public static func date(
        _ timestamp: Google_Protobuf_Timestamp, field: String, within range: ClosedRange<Double>? = nil
    ) throws -> Date {
        Date(timeIntervalSince1970: try seconds(timestamp, field: field, within: range))
    }

    /// The Timestamp of `seconds` since 1970, clamped into proto3's range (NaN reads as 1970): for values read
    /// back from storage, which must never stop a service from answering.
    public static func clamped(_ seconds: Double) -> Google_Protobuf_Timestamp {
        guard seconds.isFinite else {
            return Google_Protobuf_Timestamp(seconds: seconds > 0 ? maximumSeconds : seconds < 0 ? minimumSeconds : 0)
        }
        if seconds <= Double(minimumSeconds) { return Google_Protobuf_Timestamp(seconds: minimumSeconds) }
        if seconds >= Double(maximumSeconds) + 1 { return Google_Protobuf_Timestamp(seconds: maximumSeconds, nanos: 999_999_999) }
        let whole = seconds.rounded(.down)
        let nanos = min(999_999_999, max(0, Int32(((seconds - whole) * 1e9).rounded())))
        return Google_Protobuf_Timestamp(seconds: Int64(whole), nanos: nanos)
    }

    private static func describe(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}

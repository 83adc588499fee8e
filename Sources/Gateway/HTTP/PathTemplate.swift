/// A `google.api.http` path template such as "/v1/plants/{plant_id}", "/v1/tasks:complete" or
/// "/v1/plants/{plant_id}:favorite", matched against a request path: literal segments must be equal, each
/// `{field.path}` segment captures one percent-decoded segment (less a custom verb such as ":favorite" after it).
struct PathTemplate: Sendable {
    private enum Segment: Sendable {
        case literal(String)
        case variable(String, verb: String)
    }

    let text: String
    private let segments: [Segment]

    init(_ text: String) {
        self.text = text
        segments = text.split(separator: "/", omittingEmptySubsequences: true).map { part in
            guard part.hasPrefix("{"), let close = part.firstIndex(of: "}") else { return .literal(String(part)) }
            return .variable(String(part[part.index(after: part.startIndex)..<close]), verb: String(part[part.index(after: close)...]))
        }
    }

    /// The variables' values (field path → value) when `path` matches, else nil.
    func match(_ path: String) -> [String: String]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == segments.count else { return nil }
        var variables: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let literal):
                guard part == literal else { return nil }
            case .variable(let field, let verb):
                guard part.hasSuffix(verb), let value = String(part.dropLast(verb.count)).removingPercentEncoding, !value.isEmpty else {
                    return nil
                }
                variables[field] = value
            }
        }
        return variables
    }
}

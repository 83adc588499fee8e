/// A `google.api.http` path template such as "/v1/plants/{plant_id}" or "/v1/tasks:complete", matched against a
/// request path: literal segments must be equal, each `{field.path}` segment captures one percent-decoded segment.
struct PathTemplate: Sendable {
    private enum Segment: Sendable {
        case literal(String)
        case variable(String)
    }

    let text: String
    private let segments: [Segment]

    init(_ text: String) {
        self.text = text
        segments = text.split(separator: "/", omittingEmptySubsequences: true).map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? .variable(String(part.dropFirst().dropLast())) : .literal(String(part))
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
            case .variable(let field):
                guard let value = String(part).removingPercentEncoding, !value.isEmpty else { return nil }
                variables[field] = value
            }
        }
        return variables
    }
}

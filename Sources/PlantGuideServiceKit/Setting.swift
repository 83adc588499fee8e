/// A setting of a service executable: the flag when given, else its `PLANTGUIDE_*` environment variable, where
/// an empty variable counts as unset (so `PLANTGUIDE_TREFLE_TOKEN=` in a compose file means "no token").
public func setting(_ flag: String?, _ variable: String, in environment: [String: String]) -> String? {
    flag ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
}

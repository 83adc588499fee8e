/// A collection request that cannot be done, with the status it maps to.
public struct CollectionError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable { case invalidArgument, notFound, alreadyExists, resourceExhausted }
    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

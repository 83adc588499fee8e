import PlantGuideRPCCore

/// A collection request that cannot be done. Its code is the status the caller sees, so it is an ``RPCError``
/// under the domain's name: `CollectionError(.notFound, "no plant p1")`.
public typealias CollectionError = RPCError

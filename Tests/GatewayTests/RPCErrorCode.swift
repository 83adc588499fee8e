import PlantGuideRPC

/// The status code `body` fails with: nil when it succeeds, UNKNOWN for an error that is not an ``RPCError``.
func rpcErrorCode(of body: () async throws -> Void) async -> RPCError.Code? {
    do {
        try await body()
        return nil
    } catch let error as RPCError {
        return error.code
    } catch {
        return .unknown
    }
}

import Hummingbird
import NIOCore

/// What the HTTP front knows of a request beyond its bytes: Hummingbird's basics and the connection's remote
/// address (for ``ClientAddresses``, and the tracing middleware's peer attribute).
struct GatewayRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

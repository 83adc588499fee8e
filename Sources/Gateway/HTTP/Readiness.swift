import Foundation
import PlantGuideProtos
import PlantGuideRPCCore

/// /readyz: the gateway is ready when every service it calls answers its health check within a second.
enum Readiness {
    static func check(_ services: Downstream) async -> (ready: Bool, body: Data) {
        let states = await withTaskGroup(of: (String, String).self) { group in
            for (name, client) in services.named {
                group.addTask {
                    do {
                        let health = try await client.call(Plantguide_Health_V1_Health.check, .init(), options: .init(timeout: .seconds(1)))
                        return (name, health.status == .serving ? "SERVING" : "NOT_SERVING")
                    } catch {
                        return (name, (error as? RPCError)?.code.name ?? "UNAVAILABLE")
                    }
                }
            }
            return await group.reduce(into: [String: String]()) { $0[$1.0] = $1.1 }
        }
        let ready = states.values.allSatisfy { $0 == "SERVING" }
        let body = (try? JSONSerialization.data(withJSONObject: ["ready": ready, "services": states], options: [.sortedKeys])) ?? Data()
        return (ready, body)
    }
}

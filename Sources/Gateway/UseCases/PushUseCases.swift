import Foundation
import PlantGuideProtos
import PlantGuideRPCCore

/// Reminders by Web Push: a browser's subscription goes to scheduling, which keeps it and sends the reminders;
/// the gateway passes the browser's PushSubscription JSON on as it is.
struct PushUseCases: Sendable {
    typealias Scheduling = Plantguide_Scheduling_V1_SchedulingService

    let services: Downstream

    func subscribe(_ request: Plantguide_Gateway_V1_CreatePushSubscriptionRequest, as caller: Caller) async throws
        -> Plantguide_Gateway_V1_CreatePushSubscriptionResponse
    {
        let answer = try await services.call(services.scheduling, Scheduling.registerPushSubscription, .with {
            $0.endpoint = request.endpoint
            $0.p256Dh = request.keys.p256Dh
            $0.auth = request.keys.auth
            $0.language = request.language
        }, as: caller)
        return .with { $0.subscriptionID = answer.subscriptionID }
    }

    func unsubscribe(_ request: Plantguide_Gateway_V1_DeletePushSubscriptionRequest, as caller: Caller) async throws
        -> Plantguide_Gateway_V1_DeletePushSubscriptionResponse
    {
        let answer = try await services.call(services.scheduling, Scheduling.deletePushSubscription,
                                             .with { $0.subscriptionID = request.subscriptionID }, as: caller)
        return .with { $0.deleted = answer.deleted }
    }

    func list(as caller: Caller) async throws -> Plantguide_Gateway_V1_ListPushSubscriptionsResponse {
        let answer = try await services.call(services.scheduling, Scheduling.listPushSubscriptions, .init(), as: caller)
        return .with {
            $0.subscriptions = answer.subscriptions.map { subscription in
                .with {
                    $0.subscriptionID = subscription.subscriptionID
                    $0.pushService = subscription.pushService
                    $0.createdAt = subscription.createdAt
                }
            }
        }
    }

    func key(as caller: Caller) async throws -> Plantguide_Gateway_V1_GetPushKeyResponse {
        let answer = try await services.call(services.scheduling, Scheduling.getPushKey, .init(), as: caller)
        return .with { $0.publicKey = answer.publicKey }
    }
}

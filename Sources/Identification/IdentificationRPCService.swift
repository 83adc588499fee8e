import Foundation
import Logging
import PlantGuideProtos
import PlantGuideRPCCore

/// The RPC methods of plantguide-identification (see `Protos/plantguide/identification/v1/identification.proto`).
public struct IdentificationRPCService: RPCService {
    public let identifier: Identifier

    public init(identifier: Identifier) {
        self.identifier = identifier
    }

    /// Its handlers decode images and run the model: they compute, so they run on Swift's global pool.
    public var handlerExecution: RPCHandlerExecution? { .globalPool }

    public func registerMethods(with router: inout RPCRouter) {
        typealias Methods = Plantguide_Identification_V1_IdentificationService
        let identifier = self.identifier
        router.register(Methods.identify) { request, context in
            try await identifier.identify(request, timeRemaining: context.timeRemaining)
        }
        router.register(Methods.getStatus) { _, _ in
            let quota = identifier.plantnet.quotaSnapshot
            return .with {
                $0.plantnetConfigured = identifier.plantnet.isConfigured
                $0.plantnetRemainingRequests = Int64(quota.remaining ?? -1)
                $0.plantnetQuotaResetsAt = .init(date: quota.resetsAt)
                $0.plantnetDailyLimit = Int64(quota.limit)
                $0.plantnetUsedRequests = Int64(quota.used)
                $0.noPlantThreshold = identifier.configuration.noPlantThreshold
                if let model = identifier.classifier {
                    $0.models = [.with {
                        $0.name = model.name
                        $0.version = model.version
                        $0.classes = UInt32(model.classes)
                        $0.inputWidth = UInt32(model.inputSize.width)
                        $0.inputHeight = UInt32(model.inputSize.height)
                        $0.experimental = model.isExperimental
                        if let onnx = model as? OnnxSpeciesClassifier {
                            $0.task = onnx.installed.configuration.task.rawValue
                            $0.maxBatchSize = UInt32(onnx.batching.maxBatchSize)
                            $0.workers = UInt32(onnx.batching.workers)
                        }
                    }]
                }
            }
        }
    }
}

import CSodium
import Foundation
import PlantGuideCore
import PlantGuideHTTP
import PlantGuideImaging
import PlantGuideProtos
import PlantGuideRPCCore
import Synchronization

/// Names the plant in one to five photos: validates them, follows ``HybridPolicy`` between the on-device model and
/// Pl@ntNet, and remembers answers for identical photos and settings.
public final class Identifier: Sendable {
    public typealias Request = Plantguide_Identification_V1_IdentifyRequest
    public typealias Response = Plantguide_Identification_V1_IdentifyResponse

    public let plantnet: PlantNetClient
    public let classifier: (any SpeciesClassifier)?
    let configuration: IdentificationConfiguration
    private let cache: Mutex<[String: (response: Response, order: UInt64)]> = Mutex([:])
    private let counter = Atomic<UInt64>(0)

    public init(configuration: IdentificationConfiguration, classifier: (any SpeciesClassifier)? = nil,
                http: any HTTPClient = CurlHTTPClient()) {
        self.configuration = configuration
        self.classifier = classifier
        plantnet = PlantNetClient(configuration: configuration.plantnet, http: http)
    }

    /// - Throws: ``RPCError`` INVALID_ARGUMENT for bad photos or settings; the statuses of ``PlantNetError``;
    ///   FAILED_PRECONDITION when the policy has nothing to ask.
    public func identify(_ request: Request, timeRemaining: Duration) async throws -> Response {
        guard (1...5).contains(request.images.count) else {
            throw RPCError.invalidArgument("images", .outOfRange, "give one to five photos, not \(request.images.count)")
        }
        guard request.maxResults <= 20 else { throw RPCError.invalidArgument("max_results", .outOfRange, "max_results must be at most 20") }
        guard (0...1).contains(request.minConfidence) else {
            throw RPCError.invalidArgument("min_confidence", .outOfRange, "min_confidence must be between 0 and 1")
        }
        if request.hasLocation { try request.location.validate(field: "location") }
        let maxResults = request.maxResults == 0 ? 5 : Int(request.maxResults)
        let minimum = request.minConfidence == 0 ? 0.7 : request.minConfidence
        let key = configuration.cacheCapacity > 0 ? cacheKey(request) : ""
        if !key.isEmpty, var cached = cache.withLock({ $0[key]?.response }) {
            cached.cached = true
            return cached
        }

        let deadline = ContinuousClock.now + timeRemaining
        let decoded = try await BlockingWork.run { [classifier] in try Self.decode(request.images, for: classifier) }

        let method: HybridPolicy.Method = switch request.method {
        case .onDevice: .onDevice
        case .plantnet: .plantnet
        default: .hybrid
        }
        var onDevice: [SpeciesGuess] = []
        var response = Response()
        var step = HybridPolicy.start(method, modelInstalled: classifier != nil, plantnetConfigured: plantnet.isConfigured,
                                      offline: configuration.offline)
        if step == .runModel, let classifier {
            onDevice = try await Self.combine(classifier.classify(decoded, maxResults: maxResults, deadline: deadline), limit: maxResults)
            guard ContinuousClock.now < deadline else { throw RPCError(.deadlineExceeded, "the deadline passed during on-device inference") }
            response.model = "\(classifier.name)@\(classifier.version)"
            response.experimental = classifier.isExperimental
            step = HybridPolicy.afterModel(method, best: onDevice.first?.score, minimumConfidence: minimum,
                                           experimental: classifier.isExperimental,
                                           plantnetConfigured: plantnet.isConfigured, offline: configuration.offline)
        }
        switch step {
        case .refuse(let reason):
            throw RPCError(.failedPrecondition, reason)
        case .runModel:
            throw RPCError(.internal, "the policy asked for a model that is not there")
        case .answer(let note):
            response.policyNote = note
            response.source = .onDevice
            response.candidates = onDevice.map(Self.wire)
        case .askPlantNet(let reason):
            response.policyNote = reason
            do {
                let uploads = try await BlockingWork.run { try Self.plantNetImages(request.images) }
                let answer = try await plantnet.identify(
                    uploads,
                    language: request.language.isEmpty ? "en" : request.language, maxResults: maxResults,
                    timeout: min(configuration.plantnet.timeout, timeRemaining))
                let guesses = answer.candidates.map { candidate in
                    var guess = SpeciesGuess(scientificName: candidate.scientificName, score: candidate.score, source: .plantnet)
                    guess.commonNames = candidate.commonNames
                    guess.family = candidate.family
                    guess.genus = candidate.genus
                    guess.gbifID = candidate.gbifID
                    guess.powoID = candidate.powoID
                    return guess
                }
                response.candidates = HybridPolicy.merge(plantnet: guesses, onDevice: onDevice, limit: maxResults).map(Self.wire)
                response.source = onDevice.isEmpty ? .plantnet : .hybrid
                response.noPlantRecognized = answer.noPlantRecognized && onDevice.isEmpty
            } catch let error as PlantNetError where !onDevice.isEmpty {
                response.policyNote = "\(reason); Pl@ntNet failed (\(error.message)): on-device answer"
                response.source = .onDevice
                response.candidates = onDevice.map(Self.wire)
            }
        }
        if response.source == .onDevice, let best = response.candidates.first?.score, best < configuration.noPlantThreshold {
            response.noPlantRecognized = true
            response.candidates = []
            response.policyNote += String(format: "; on-device best score %.3f < %.3f: no plant recognised", best, configuration.noPlantThreshold)
        }
        // An experimental model's answer is never a confident identification, whatever its score.
        let onlyExperimental = response.experimental && response.source == .onDevice
        response.lowConfidence = onlyExperimental || (response.candidates.first?.score ?? 0) < minimum
        let order = counter.add(1, ordering: .relaxed).newValue
        if !key.isEmpty {
            cache.withLock { cache in
                cache[key] = (response, order)
                if cache.count > configuration.cacheCapacity {
                    for old in cache.sorted(by: { $0.value.order < $1.value.order }).prefix(max(1, cache.count / 2)) { cache[old.key] = nil }
                }
            }
        }
        return response
    }

    /// Decodes each photo straight to about the model's input size (JPEGs scale down while decoding). Blocking
    /// CPU work: callers run it through ``BlockingWork``.
    /// - Throws: INVALID_ARGUMENT naming the photo that is not a usable image.
    static func decode(_ images: [Plantguide_Identification_V1_IdentifyImage], for classifier: (any SpeciesClassifier)?) throws -> [RGBImage] {
        try images.enumerated().map { index, image in
            do {
                let info = try ImageDecoder.inspect(image.data)
                let upright = info.orientation.swapsDimensions ? (info.height, info.width) : (info.width, info.height)
                let longSide = classifier?.decodeLongSide(width: upright.0, height: upright.1) ?? 64
                return try ImageDecoder.decode(image.data, maxLongSide: longSide)
            } catch let error as ImagingError {
                throw RPCError.invalidArgument("images[\(index)].data", .invalidFormat, "photo \(index + 1): \(error.message)")
            }
        }
    }

    /// A hash of the photos, organs and settings: BLAKE2b-256 (libsodium's generic hash, about twice as fast as
    /// SHA-256 on megabytes of photo).
    private func cacheKey(_ request: Request) -> String {
        // The state is a 64-byte-aligned C struct Swift sees as opaque.
        let memory = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
        defer { memory.deallocate() }
        let state = OpaquePointer(memory)
        crypto_generichash_init(state, nil, 0, 32)
        func add(_ bytes: UnsafeRawBufferPointer) {
            crypto_generichash_update(state, bytes.bindMemory(to: UInt8.self).baseAddress, UInt64(bytes.count))
        }
        Array("\(request.method.rawValue)|\(request.maxResults)|\(request.minConfidence)|\(request.language)".utf8).withUnsafeBytes(add)
        for image in request.images {
            Array("|\(image.organ.rawValue)|\(image.data.count)|".utf8).withUnsafeBytes(add)
            image.data.withUnsafeBytes(add)
        }
        var digest = [UInt8](repeating: 0, count: 32)
        crypto_generichash_final(state, &digest, 32)
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    /// One ranked list from the model's lists for several photos of the same plant (mean score per species).
    static func combine(_ lists: [[SpeciesGuess]], limit: Int) -> [SpeciesGuess] {
        var totals: [String: SpeciesGuess] = [:]
        for guess in lists.joined() {
            var total = totals[guess.scientificName] ?? guess
            if totals[guess.scientificName] == nil { total.score = 0 }
            total.score += guess.score / Double(lists.count)
            totals[guess.scientificName] = total
        }
        return Array(totals.values.sorted { $0.score > $1.score }.prefix(limit))
    }

    static func wire(_ guess: SpeciesGuess) -> Plantguide_Identification_V1_SpeciesCandidate {
        .with {
            $0.scientificName = guess.scientificName
            $0.commonNames = guess.commonNames
            $0.family = guess.family
            $0.genus = guess.genus
            $0.score = guess.score
            $0.gbifID = guess.gbifID ?? ""
            $0.powoID = guess.powoID ?? ""
            $0.attributes = guess.attributes
            $0.attributes["source"] = guess.source == .plantnet ? "plantnet" : "on_device"
        }
    }

    static func organ(_ organ: Plantguide_Identification_V1_Organ) -> PlantNetImage.Organ {
        switch organ {
        case .leaf: .leaf
        case .flower: .flower
        case .fruit: .fruit
        case .bark: .bark
        default: .auto
        }
    }

    /// The photos as Pl@ntNet takes them (``PlantNetUpload``). Blocking CPU work: callers run it through ``BlockingWork``.
    /// - Throws: INVALID_ARGUMENT naming a photo that cannot be converted.
    static func plantNetImages(_ images: [Plantguide_Identification_V1_IdentifyImage]) throws -> [PlantNetImage] {
        try images.enumerated().map { index, image in
            do {
                return try PlantNetUpload.image(image.data, organ: organ(image.organ))
            } catch let error as ImagingError {
                throw RPCError.invalidArgument("images[\(index)].data", .invalidFormat, "photo \(index + 1): \(error.message)")
            }
        }
    }
}

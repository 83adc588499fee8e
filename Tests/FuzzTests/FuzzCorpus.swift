import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import SwiftProtobuf

/// Valid requests of every method of each service: the seeds the fuzzer runs first (so that plants, schedules
/// and photos exist for the mutated requests to find) and then mutates.
enum FuzzCorpus {
    typealias Seed = (path: String, request: Data)

    static func seed<Request: SwiftProtobuf.Message, Response>(_ method: RPCMethod<Request, Response>, _ request: Request) -> Seed {
        (method.path, (try? request.serializedData()) ?? Data())
    }

    /// A real, small JPEG.
    static let jpeg: Data = (try? TestImages.jpeg(TestImages.gradient(width: 16, height: 12))) ?? Data()

    static var collection: [Seed] {
        typealias M = Plantguide_Collection_V1_CollectionService
        let plant = Plantguide_Collection_V1_Plant.with {
            $0.id = "p1"
            $0.scientificName = "Ficus lyrata"
            $0.commonNames = ["fiddle-leaf fig"]
            $0.family = "Moraceae"
            $0.notes = "by the window"
            $0.addedAt = .init(seconds: 1_780_000_000)
            $0.identificationConfidence = 0.9
        }
        return [
            seed(M.addPlant, .with { $0.plant = plant }),
            seed(M.addPlant, .with { $0.plant = plant; $0.plant.id = "p2"; $0.plant.scientificName = "Monstera deliciosa" }),
            seed(M.getPlant, .with { $0.id = "p1" }),
            seed(M.updatePlant, .with { $0.plant = plant; $0.plant.notes = "moved"; $0.updateMask.paths = ["notes"] }),
            seed(M.listPlants, .with { $0.pageSize = 10; $0.families = ["Moraceae"]; $0.addedAfter = .init(seconds: 1) }),
            seed(M.setFavorite, .with { $0.id = "p1"; $0.favorite = true }),
            seed(M.searchPlants, .with { $0.query = "fic"; $0.limit = 5 }),
            seed(M.suggestNames, .with { $0.prefix = "Fi"; $0.limit = 5 }),
            seed(M.getStatistics, .init()),
            seed(M.putPhoto, .with { $0.plantID = "p1"; $0.data = jpeg; $0.kind = .captured }),
            seed(M.getPhoto, .with { $0.sha256 = String(repeating: "ab", count: 32); $0.thumbnailSize = 256 }),
            seed(M.deletePhoto, .with { $0.plantID = "p2"; $0.sha256 = String(repeating: "ab", count: 32) }),
            seed(M.addIdentification, .with {
                $0.identification.id = "i1"
                $0.identification.plantID = "p1"
                $0.identification.confidence = 0.8
                $0.identification.identifiedAt = .init(seconds: 1_780_000_000)
                $0.identification.location = .with { $0.latitude = 48.1; $0.longitude = 11.6 }
            }),
            seed(M.listIdentifications, .with { $0.plantID = "p1"; $0.pageSize = 10 }),
            seed(M.addJournalEvent, .with { $0.event.id = "e1"; $0.event.plantID = "p1"; $0.event.kind = .watered; $0.event.note = "ok" }),
            seed(M.listJournalEvents, .with { $0.plantID = "p1"; $0.pageSize = 10 }),
            seed(M.exportCollection, .init()),
            seed(M.importCollection, .with { $0.archive = Data("not a tar".utf8) }),
            seed(M.deletePlant, .with { $0.id = "p2" }),
        ]
    }

    static var scheduling: [Seed] {
        typealias M = Plantguide_Scheduling_V1_SchedulingService
        let schedule = Plantguide_Scheduling_V1_Schedule.with {
            $0.plantID = "p1"
            $0.plantName = "Monty"
            $0.setting = .outdoor
            $0.includeRepotting = true
            $0.careInfo = .with {
                $0.scientificName = "Monstera deliciosa"
                $0.watering.frequency = .weekly
                $0.watering.intervalDays = 7
                $0.watering.seasonalAdjustments = [.with { $0.season = .winter; $0.intervalMultiplier = 2 }]
                $0.fertilizer.frequency = .monthly
                $0.fertilizer.activeMonths = [4, 5, 6]
            }
        }
        return [
            seed(M.putPreferences, .with {
                $0.preferences.notifyTime = "08:30"
                $0.preferences.timeZone = "Europe/Berlin"
                $0.preferences.seasonalAdjustment = true
                $0.preferences.location = .with { $0.latitude = 52.5; $0.longitude = 13.4 }
                $0.preferences.taskTypes = [.with { $0.type = .repotting; $0.enabled = true }]
                $0.preferences.plantNotifications = ["p1": true]
            }),
            seed(M.putSchedule, .with { $0.schedule = schedule }),
            seed(M.getSchedule, .with { $0.plantID = "p1" }),
            seed(M.listTasks, .with { $0.view = .range; $0.fromDate = "2026-06-01"; $0.toDate = "2026-07-01" }),
            seed(M.getCalendarCounts, .with { $0.fromDate = "2026-06-01"; $0.toDate = "2026-06-30" }),
            seed(M.getBadgeCount, .init()),
            seed(M.completeTasks, .with { $0.taskIds = ["p1|watering|2026-06-01"]; $0.completedAt = .init(seconds: 1_780_300_000) }),
            seed(M.snoozeTask, .with { $0.taskID = "p1|watering|2026-06-08"; $0.hours = 5 }),
            seed(M.skipTask, .with { $0.taskID = "p1|watering|2026-06-15" }),
            seed(M.addTask, .with { $0.task.id = "t1"; $0.task.plantID = "p1"; $0.task.type = .pestControl; $0.task.dueDate = "2026-06-02" }),
            seed(M.recordCareEvent, .with { $0.plantID = "p1"; $0.type = .watering; $0.occurredAt = .init(seconds: 1_780_300_000) }),
            seed(M.getPreferences, .init()),
            seed(M.registerWebhook, .with { $0.id = "w1"; $0.url = "http://127.0.0.1:9/hook"; $0.secret = "s3cret-s3cret" }),
            seed(M.deleteWebhook, .with { $0.id = "w1" }),
            seed(M.getCalendar, .with { $0.days = 30 }),
            seed(M.listSchedules, .with { $0.pageSize = 2 }),
            seed(M.renamePlant, .with { $0.plantID = "p1"; $0.plantName = "Fernando" }),
            seed(M.getPlantTaskCounts, .with { $0.plantIds = ["p1", "p2"] }),
            seed(M.deletePlantSchedules, .with { $0.plantID = "p2" }),
            seed(M.deleteUserData, .init()),
        ]
    }

    static var caredata: [Seed] {
        typealias M = Plantguide_Caredata_V1_CareDataService
        return [
            seed(M.getCareInfo, .with { $0.scientificName = "Monstera deliciosa" }),
            seed(M.getCareInfo, .with { $0.trefleID = 12345 }),
            seed(M.searchSpecies, .with { $0.query = "fic"; $0.pageSize = 5 }),
            seed(M.getCacheStats, .init()),
            seed(M.invalidateCacheEntry, .with { $0.scientificName = "Monstera deliciosa" }),
        ]
    }

    static var identification: [Seed] {
        typealias M = Plantguide_Identification_V1_IdentificationService
        return [
            seed(M.identify, .with {
                $0.images = [.with { $0.data = jpeg; $0.organ = .leaf }]
                $0.method = .onDevice
                $0.maxResults = 3
                $0.minConfidence = 0.5
            }),
            seed(M.getStatus, .init()),
        ]
    }
}

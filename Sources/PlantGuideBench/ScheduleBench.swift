import ArgumentParser
import Foundation
import PlantGuideCore

/// Plans 30 days for many plants of varied care, one after another on one thread, and times the whole batch.
struct ScheduleBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "plan", abstract: "Time planning 30 days for many plants.")

    @Option(help: "Plants per batch.") var plants = 10_000
    @Option(help: "Batches timed.") var iterations = 20

    func run() {
        var preferences = SchedulePreferences()
        preferences.timeZone = TimeZone(identifier: "Europe/Berlin")!
        preferences.avoidWeekdays = [7]
        preferences.groupWatering = true
        let start = LocalDate(parsing: "2026-03-20")!
        let requests = (0..<plants).map { index -> ScheduleRequest in
            let care = CareInfo(
                scientificName: "Plant \(index)",
                watering: WateringSchedule(frequency: WateringFrequency.allCases[index % 6], amount: .moderate, seasonalAdjustments: [.winter: 2]),
                fertilizer: FertilizerSchedule(frequency: FertilizerFrequency.allCases[index % 5], type: .balancedLiquid, activeMonths: Array(3...9)),
                source: .catalog, fetchedAt: Date(timeIntervalSince1970: 0))
            var request = ScheduleRequest(care: care, setting: PlantSetting.allCases[index % 4], start: start)
            request.includePruning = index % 3 == 0
            request.includeRepotting = index % 7 == 0
            return request
        }
        var samples: [Int64] = []
        var tasks = 0
        let clock = ContinuousClock()
        for _ in 0..<iterations {
            let begin = clock.now
            tasks = requests.reduce(0) { $0 + ScheduleGenerator.plan($1, preferences: preferences).count }
            samples.append((clock.now - begin).nanoseconds)
        }
        print(BenchResult(implementation: "plan-\(plants)-plants", payload: tasks, inflight: 1, samples: samples,
                          elapsed: .nanoseconds(samples.reduce(0, +))).json)
    }
}

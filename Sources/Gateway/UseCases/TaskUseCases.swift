import Foundation
import PlantGuideProtos
import PlantGuideRPCCore

/// The task screens: today, upcoming and overdue across the plants; completing, snoozing and skipping tasks.
struct TaskUseCases: Sendable {
    typealias Scheduling = Plantguide_Scheduling_V1_SchedulingService

    let services: Downstream

    /// The view's tasks, the badge and the plants' names, asked of scheduling at once.
    func list(_ request: Plantguide_Gateway_V1_ListTasksRequest, as caller: Caller) async throws -> Plantguide_Gateway_V1_ListTasksResponse {
        async let tasks = services.call(services.scheduling, Scheduling.listTasks, .with {
            $0.view = request.view
            $0.plantID = request.plantID
        }, as: caller)
        async let badge = services.call(services.scheduling, Scheduling.getBadgeCount, .init(), as: caller)
        async let names = plantNames(as: caller)
        let listed = try await tasks
        let known = try await names
        var response = Plantguide_Gateway_V1_ListTasksResponse()
        response.tasks = listed.tasks
        response.badge = try await badge
        for task in listed.tasks { response.plantNames[task.plantID] = known[task.plantID] ?? task.plantID }
        return response
    }

    func complete(_ request: Plantguide_Gateway_V1_CompleteTasksRequest, as caller: Caller) async throws
        -> Plantguide_Gateway_V1_CompleteTasksResponse
    {
        guard !request.taskIds.isEmpty else { throw RPCError.invalidArgument("task_ids", .required, "task_ids is empty") }
        let done = try await services.call(services.scheduling, Scheduling.completeTasks, .with { $0.taskIds = request.taskIds }, as: caller)
        return .with {
            $0.completed = done.completed
            $0.planned = done.planned
        }
    }

    /// - Throws: INVALID_ARGUMENT for no task id, hours outside 1–720 or neither hours nor a date.
    func snooze(_ request: Plantguide_Gateway_V1_SnoozeTaskRequest, as caller: Caller) async throws -> Plantguide_Gateway_V1_SnoozeTaskResponse {
        guard !request.taskID.isEmpty else { throw RPCError.invalidArgument("task_id", .required, "task_id is empty") }
        var forward = Plantguide_Scheduling_V1_SnoozeTaskRequest.with { $0.taskID = request.taskID }
        switch request.until {
        case .hours(let hours)?:
            guard (1...720).contains(hours) else { throw RPCError.invalidArgument("hours", .outOfRange, "hours must be from 1 to 720") }
            forward.hours = hours
        case .date(let date)?: forward.date = date
        case nil: throw RPCError.invalidArgument("until", .required, "give hours, or a date as YYYY-MM-DD")
        }
        let snoozed = try await services.call(services.scheduling, Scheduling.snoozeTask, forward, as: caller)
        return .with { $0.task = snoozed.task }
    }

    /// - Throws: INVALID_ARGUMENT for no task id.
    func skip(_ request: Plantguide_Gateway_V1_SkipTaskRequest, as caller: Caller) async throws -> Plantguide_Gateway_V1_SkipTaskResponse {
        guard !request.taskID.isEmpty else { throw RPCError.invalidArgument("task_id", .required, "task_id is empty") }
        let skipped = try await services.call(services.scheduling, Scheduling.skipTask, .with { $0.taskID = request.taskID }, as: caller)
        return .with { $0.task = skipped.task }
    }

    /// - Throws: INVALID_ARGUMENT for no task id.
    func reopen(_ request: Plantguide_Gateway_V1_ReopenTaskRequest, as caller: Caller) async throws -> Plantguide_Gateway_V1_ReopenTaskResponse {
        guard !request.taskID.isEmpty else { throw RPCError.invalidArgument("task_id", .required, "task_id is empty") }
        let reopened = try await services.call(services.scheduling, Scheduling.reopenTask, .with { $0.taskID = request.taskID }, as: caller)
        return .with { $0.task = reopened.task }
    }

    /// Plant id -> the name its schedule carries (kept current by the gateway's saves and renames).
    private func plantNames(as caller: Caller) async throws -> [String: String] {
        var names: [String: String] = [:]
        var token = ""
        repeat {
            let page = try await services.call(services.scheduling, Scheduling.listSchedules, .with {
                $0.pageSize = 500
                $0.pageToken = token
                $0.namesOnly = true
            }, as: caller)
            for schedule in page.schedules { names[schedule.plantID] = schedule.plantName }
            token = page.nextPageToken
        } while !token.isEmpty
        return names
    }
}

import Foundation
import Hummingbird
import PlantGuideProtos
import PlantGuideRPC

/// Today: the tasks due and overdue, each done, put off to tomorrow or skipped in one tap.
extension WebApp {
    func today(_ page: PageRequest) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        // Overdue and today's in one list, overdue first, by the person's own time zone, which scheduling keeps.
        let listed = await call(Plantguide_Gateway_V1_GatewayService.listTasks, .with { $0.view = .due }, token: page.token)
        guard case .success(let current) = listed else { return failurePage(page, listed) }
        let strings = page.strings
        let late = Int(current.badge.overdue)
        let tasks: [[String: Any]] = current.tasks.enumerated().map { index, task in
            let isLate = index < late
            return [
                "id": task.id, "what": Self.verb(task.type, strings), "plant": current.plantNames[task.plantID] ?? task.plantID,
                "when": isLate ? strings.format("overdueSince", ["date": Self.day(task.dueDate, strings)]) : strings.format("dueToday"),
                "overdue": isLate,
            ]
        }
        let badge = strings.format("overdueAndToday", ["overdue": "\(current.badge.overdue)", "today": "\(current.badge.today)"])
        return render("today", page, ["title": strings.format("today"), "onToday": true, "tasks": tasks, "hasTasks": !tasks.isEmpty,
                                      "badge": badge])
    }

    /// Done, put off to tomorrow or skipped; by htmx the task's row is swapped for one saying so (naming the plant as
    /// the row did: `plantName`, sent with the form, only shown), without script Today comes back.
    func act(_ page: PageRequest, on taskID: String, _ action: TaskAction, byScript: Bool, plantName: String? = nil) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let strings = page.strings
        let task: Plantguide_Scheduling_V1_CareTask?
        let outcome: String
        switch action {
        case .complete:
            let answer = await call(Plantguide_Gateway_V1_GatewayService.completeTasks, .with { $0.taskIds = [taskID] }, token: page.token)
            guard case .success(let completed) = answer else { return failurePage(page, answer) }
            (task, outcome) = (completed.completed.first, strings.format("completed"))
        case .snooze:
            // To tomorrow in the person's own time zone: the task's due date moves, and its reminder with it.
            let settings = await call(Plantguide_Gateway_V1_GatewayService.getSettings, .init(), token: page.token)
            guard case .success(let read) = settings else { return failurePage(page, settings) }
            let answer = await call(Plantguide_Gateway_V1_GatewayService.snoozeTask, .with {
                $0.taskID = taskID
                $0.date = Self.tomorrow(in: read.settings.timeZone)
            }, token: page.token)
            guard case .success(let snoozed) = answer else { return failurePage(page, answer) }
            (task, outcome) = (snoozed.task, strings.format("snoozedTo", ["date": Self.day(snoozed.task.dueDate, strings)]))
        case .skip:
            let answer = await call(Plantguide_Gateway_V1_GatewayService.skipTask, .with { $0.taskID = taskID }, token: page.token)
            guard case .success(let skipped) = answer else { return failurePage(page, answer) }
            (task, outcome) = (skipped.task, strings.format("skipped"))
        }
        guard byScript, let task else { return Self.redirect("/today") }
        let row = templates.render(["id": task.id, "what": Self.verb(task.type, strings), "plant": plantName ?? task.plantID, "outcome": outcome],
                                   withTemplate: "task-done") ?? ""
        return Self.html(row, status: .ok)
    }

    /// Tomorrow's date (YYYY-MM-DD) in `timeZone` (UTC when empty or unknown).
    static func tomorrow(in timeZone: String, now: Date = Date()) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")!
        let next = calendar.date(byAdding: .day, value: 1, to: now) ?? now
        let parts = calendar.dateComponents([.year, .month, .day], from: next)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }
}

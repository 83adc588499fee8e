import Foundation
import Hummingbird
import PlantGuideProtos
import PlantGuideRPCCore

/// Today: the tasks due and overdue, each done, put off to tomorrow or skipped in one tap.
extension WebApp {
    /// Today, and the buttons of its tasks (`/tasks/{id}/complete`, `…/snooze`, `…/skip`, `…/reopen`).
    func todayRoutes() -> RouteCollection<GatewayRequestContext> {
        let routes = WebScreenRoutes(self)
        routes.page("/today", get: { _, _, page in await today(page) })
        routes.page("/tasks/{id}/{action}", post: { request, context, page in
            guard let id = WebScreenRoutes.parameter("id", context), let action = context.parameters.get("action").flatMap(TaskAction.init) else {
                return render("error", page, status: .notFound, ["title": page.strings.format("somethingWrong"), "message": request.uri.path])
            }
            return await act(page, on: id, action, byScript: WebScreenRoutes.byScript(request), plantName: await Self.form(request)["plant"])
        })
        return routes.collection
    }

    func today(_ page: PageRequest) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        // Overdue and today's in one list, overdue first, by the person's own time zone, which scheduling keeps.
        let listed = await call(Plantguide_Gateway_V1_GatewayService.listTasks, .with { $0.view = .due }, token: page.token)
        guard case .success(let current) = listed else { return failurePage(page, listed) }
        let strings = page.strings
        let late = Int(current.badge.overdue)
        let rows = current.tasks.enumerated().map { index, task in
            Self.row(task, plant: current.plantNames[task.plantID] ?? task.plantID, overdue: index < late, strings).html
        }
        let badge = strings.format("overdueAndToday", ["overdue": "\(current.badge.overdue)", "today": "\(current.badge.today)"])
        return render("today", page, ["title": strings.format("today"), "onToday": true, "rows": rows.joined(), "hasTasks": !rows.isEmpty,
                                      "badge": badge])
    }

    /// One task's row on Today (``WebRows/Task``).
    static func row(_ task: Plantguide_Scheduling_V1_CareTask, plant: String, overdue: Bool, _ strings: [String: String]) -> WebRows.Task {
        WebRows.Task(id: task.id, what: Self.verb(task.type, strings), plant: plant,
                     when: overdue ? strings.format("overdueSince", ["date": Self.day(task.dueDate, strings)]) : strings.format("dueToday"),
                     overdue: overdue, doneLabel: strings["done"] ?? "", snoozeLabel: strings["snooze"] ?? "", skipLabel: strings["skip"] ?? "")
    }

    /// Done, put off to tomorrow, skipped, or the done or skip undone; by htmx the task's row is swapped for one
    /// saying so (naming the plant as the row did: `plantName`, sent with the form, only shown), an undone one for
    /// its row again; without script Today comes back.
    func act(_ page: PageRequest, on taskID: String, _ action: TaskAction, byScript: Bool, plantName: String? = nil) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        if action == .reopen { return await reopen(page, taskID, byScript: byScript, plantName: plantName) }
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
        case .reopen: return Self.redirect("/today")  // answered above
        }
        guard byScript, let task else { return Self.redirect("/today") }
        return fragment("task-done", page, ["id": task.id, "what": Self.verb(task.type, strings), "plant": plantName ?? task.plantID,
                                            "outcome": outcome, "undoable": action != .snooze])
    }

    /// The task open again; by htmx its row as Today shows it (overdue when due before today in the person's time zone).
    private func reopen(_ page: PageRequest, _ taskID: String, byScript: Bool, plantName: String?) async -> Response {
        let answer = await call(Plantguide_Gateway_V1_GatewayService.reopenTask, .with { $0.taskID = taskID }, token: page.token)
        guard case .success(let reopened) = answer else { return failurePage(page, answer) }
        guard byScript else { return Self.redirect("/today") }
        let settings = await call(Plantguide_Gateway_V1_GatewayService.getSettings, .init(), token: page.token)
        let timeZone = (try? settings.get())?.settings.timeZone ?? ""
        let overdue = reopened.task.dueDate < Self.today(in: timeZone)
        return Self.html(Self.row(reopened.task, plant: plantName ?? reopened.task.plantID, overdue: overdue, page.strings).html, status: .ok)
    }

    /// Tomorrow's date (YYYY-MM-DD) in `timeZone` (UTC when empty or unknown).
    static func tomorrow(in timeZone: String, now: Date = Date()) -> String {
        today(in: timeZone, now: now, after: 1)
    }

    /// Today's date (YYYY-MM-DD) in `timeZone` (UTC when empty or unknown), or the date `days` after it.
    static func today(in timeZone: String, now: Date = Date(), after days: Int = 0) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")!
        let day = calendar.date(byAdding: .day, value: days, to: now) ?? now
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }
}

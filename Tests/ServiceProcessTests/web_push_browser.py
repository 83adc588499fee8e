"""Reminders on a phone, in headless Chromium, for WebAppBrowserTests: notifications, live notices, offline tasks.

Given a signed-in session (its cookie) and the payload of a reminder that reached the fake push service, this:
- opens Settings and presses "Turn on notifications", and reports what the page then says (headless Chromium has
  no push service, so its subscription fails; the page must say why, not fail silently);
- delivers the reminder to the app's service worker through the DevTools Protocol (ServiceWorker.deliverPushMessage,
  as a push service would) and reports the notification shown: its title, tag and buttons;
- answers the notification with its Done button, run in the service worker as its notificationclick handler runs
  it, and reports whether the task left Today;
- with Today open, saves a plant (OFFLINE_PLANT_ID, whose watering reminds at once) and reports the notice the
  page shows when its reminder arrives on the gateway's event stream, and what axe-core finds with it shown;
- turns watering reminders off in Settings, saves a plant, and reports what Today then shows of it (its task
  planned, no reminder);
- completes another task on Today with the connection gone (the page is the copy the service worker kept), reports
  what the row says, comes back online, and reports whether the task was completed, how many of its kind are planned
  and what the service worker still keeps.
Prints one JSON object.

Usage: python3 web_push_browser.py http://localhost:PORT COOKIE_NAME=VALUE PUSH_PAYLOAD_JSON OFFLINE_PLANT_ID
"""
import json
import sys
import time

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import sync_playwright
from polling import wait_until

# The tasks of a view, as the JSON API lists them; a refused request throws, so that no check passes on an error.
TASKS = """async query => { const response = await fetch("/v1/tasks?" + query, {credentials: "same-origin"});
    if (!response.ok) throw new Error(query + ": " + response.status + " " + await response.text());
    return (await response.json()).tasks || []; }"""
AXE_RULES = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]}}
QUEUED = """async () => (await (await caches.open("plantguide-queue")).keys()).length"""


def wait_for(page, expression, seconds=15):
    """Waits until `expression` is true in the page. Playwright's own wait_for_function evaluates a string, which
    the app's Content-Security-Policy (no 'unsafe-eval') refuses while it polls."""
    if not wait_until(lambda: page.evaluate(expression), seconds):
        raise TimeoutError(f"still false after {seconds} s: {expression}")


def main():
    origin, cookie, reminder_json, offline_plant = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    reminder = json.loads(reminder_json)["notification"]["data"]  # the reminder in the declarative form's notification
    name, value = cookie.split("=", 1)
    report = {}
    with sync_playwright() as playwright:
        # An incognito context: its push subscription fails at once (a profile's waits for a push service that
        # headless Chromium never reaches, until the page's own time limit).
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        context = browser.new_context()
        context.add_cookies([{"name": name, "value": value, "url": origin}])
        context.grant_permissions(["notifications"], origin=origin)
        page = context.pages[0] if context.pages else context.new_page()
        devtools = context.new_cdp_session(page)
        registrations = []
        devtools.on("ServiceWorker.workerRegistrationUpdated", lambda event: registrations.extend(event["registrations"]))
        devtools.send("ServiceWorker.enable")

        # Settings: the state once the service worker is ready, then what "Turn on" says.
        page.goto(origin + "/settings")
        wait_for(page, "document.getElementById('push-on').hidden === false")
        report["pushStateBefore"] = page.inner_text("#push-state")
        page.click("#push-on")
        wait_for(page, "!document.getElementById('push-state').textContent.includes('off for this device')")
        report["pushStateAfterTurnOn"] = page.inner_text("#push-state")

        # The reminder, delivered as the push service would; the notification it shows.
        page.goto(origin + "/today")
        wait_for(page, "navigator.serviceWorker.controller !== null")
        live = [r for r in registrations if not r.get("isDeleted")]
        # Playwright holds each new worker until it has set it up: evaluating in it first makes sure it runs when the
        # push comes. There it also keeps the promise of each notification the app's push handler shows.
        worker = context.service_workers[-1] if context.service_workers else context.wait_for_event("serviceworker")
        worker.evaluate("""() => {
            self.__pushes = [];
            self.__showing = [];
            self.addEventListener("push", event => self.__pushes.push(event.data ? event.data.text().length : -1));
            const show = self.registration.showNotification.bind(self.registration);
            self.registration.showNotification = (title, options) => {
              const shown = show(title, options);
              self.__showing.push(shown.then(() => "shown", error => String(error)));
              return shown;
            }; }""")
        devtools.send("ServiceWorker.deliverPushMessage",
                      {"origin": origin, "registrationId": live[-1]["registrationId"], "data": reminder_json})
        # The notification shown, then Done on it: the service worker's click handler, run on that notification at
        # once (headless Chromium may let a notification go when nothing displays it). The list is read only once the
        # notification is shown: in Chromium 156 a getNotifications() while a showNotification() is still under way
        # drops the new notification for good (1 run in 3 of a bare page and worker; none in 12 when waiting).
        shown = worker.evaluate("""async () => {
            for (let tries = 0; tries < 200 && self.__showing.length === 0; tries++) {
              await new Promise(resolve => setTimeout(resolve, 100));
            }
            const outcomes = await Promise.all(self.__showing);
            const listed = await self.registration.getNotifications();
            const seen = listed.map(n => ({title: n.title, tag: n.tag, lang: n.lang, actions: n.actions.map(a => a.action + ":" + a.title)}));
            if (listed.length > 0) await answerNotification(listed[0], "complete");
            return {seen, outcomes}; }""")
        report["notifications"] = shown["seen"]
        if not report["notifications"]:  # what the browser held, for the failure's message
            report["showOutcomes"] = shown["outcomes"]
            report["registrations"] = registrations
            report["pushEvents"] = worker.evaluate("self.__pushes")
            report["permission"] = worker.evaluate("Notification.permission")
            report["workerStates"] = [w.evaluate("self.serviceWorker ? self.serviceWorker.state : 'unknown'") for w in context.service_workers]
        due = page.evaluate(TASKS, "view=VIEW_DUE")
        report["doneFromNotification"] = not any(task["id"] == reminder["taskId"] for task in due)
        report["notificationsAfterDone"] = page.evaluate("async () => (await (await navigator.serviceWorker.ready).getNotifications()).length")

        # A reminder while Today is open: a plant added now reminds at once, and the page shows it as it arrives.
        page.goto(origin + "/today")
        wait_for(page, "document.getElementById('live-reminders').dataset.connected === 'true'")
        saved = page.evaluate("""async id => (await fetch("/v1/plants/" + id, {method: "PUT", credentials: "same-origin",
            headers: {"Content-Type": "application/json"},
            body: JSON.stringify({plant: {scientificName: "Ocimum basilicum", customName: "Basil"}})})).status""", offline_plant)
        report["savedWhileOpen"] = saved
        wait_for(page, "document.querySelector('.live-notice') !== null")
        report["liveNotice"] = " ".join(page.inner_text(".live-notice").split())
        for theme in ("light", "dark"):  # the notice and its buttons, for axe-core's WCAG 2.2 AA rules
            page.emulate_media(color_scheme=theme)
            violations = Axe().run(page, options=AXE_RULES).response["violations"]
            report[f"liveNoticeAxe-{theme}"] = [violation["id"] for violation in violations]

        # Watering reminders turned off in Settings (by the form, as a person does): a plant added then plans its
        # watering, and no reminder of it comes while Today stays open.
        page.goto(origin + "/settings")
        page.uncheck("#type-watering")
        page.click("#reminders-heading ~ form button[type=submit]")
        page.wait_for_url("**/settings?done=saved")
        page.goto(origin + "/today")
        wait_for(page, "document.getElementById('live-reminders').dataset.connected === 'true'")
        report["savedAfterOff"] = page.evaluate("""async () => (await fetch("/v1/plants/quiet", {method: "PUT", credentials: "same-origin",
            headers: {"Content-Type": "application/json"},
            body: JSON.stringify({plant: {scientificName: "Mentha spicata", customName: "Mint"}})})).status""")
        report["quietPlanned"] = len([t for t in page.evaluate(TASKS, "view=VIEW_DUE") if t["plantId"] == "quiet"])
        time.sleep(3)  # a reminder comes within a few tenths of a second here (the basil's did)
        report["noticesAfterOff"] = page.evaluate("[...document.querySelectorAll('.live-notice')].map(n => n.textContent)")

        # Without a connection: Today as last seen, a task done there, kept; back online, sent once.
        page.goto(origin + "/today")
        offline_task = next((task["id"] for task in page.evaluate(TASKS, "view=VIEW_DUE") if task["plantId"] == offline_plant), None)
        report["offlineTaskFound"] = offline_task is not None
        context.set_offline(True)
        page.reload()
        clicked_at = time.time()
        row = f"document.getElementById({json.dumps('task-' + offline_task)})"
        page.evaluate(f"{row}.querySelector('button[type=submit]').click()")
        wait_for(page, f"{row}.classList.contains('done')")
        report["offlineRow"] = page.evaluate(f"{row}.textContent")
        report["keptWhileOffline"] = worker.evaluate(QUEUED)
        context.set_offline(False)
        page.reload()  # a person back online opens the app again (Chromium's emulation does not always fire "online")
        report["completedOnceOnline"] = bool(wait_until(
            lambda: not any(task["id"] == offline_task for task in page.evaluate(TASKS, "view=VIEW_DUE"))))
        report["keptAfterOnline"] = worker.evaluate(QUEUED)
        page.reload()  # opened again: nothing is left to send
        time.sleep(0.5)
        report["keptAfterReopen"] = worker.evaluate(QUEUED)
        # Completing it again (idempotent) answers with the completion already recorded: the one sent when back
        # online, between the click offline and now.
        checked_at = time.time()
        again = page.evaluate("""async id => (await (await fetch("/v1/tasks:complete", {method: "POST", credentials: "same-origin",
            headers: {"Content-Type": "application/json"}, body: JSON.stringify({taskIds: [id]})})).json())""", offline_task)
        completed = (again.get("completed") or [{}])[0]
        report["offlineTaskState"] = completed.get("state")
        stamp = completed.get("completedAt", "")
        recorded = time.mktime(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone if stamp else 0
        report["completedBetweenClickAndCheck"] = clicked_at - 1 <= recorded <= checked_at
        browser.close()
    print(json.dumps(report))


if __name__ == "__main__":
    main()

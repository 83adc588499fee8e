"""Web Push end to end in Firefox ESR, for WebAppBrowserTests: no step stands in for the browser or the push service.

A push service of ours (mozilla_push_service.py, Mozilla's protocol on loopback) is Firefox's `dom.push.serverURL`,
and the permission to notify is granted by preference. Then, through the page alone:
- signs up on the sign-up form, opens Settings and presses "Turn on notifications": the page's own script
  subscribes (Firefox registers a channel with the push service) and gives the subscription to the gateway;
- sets the reminder time to a minute ago and saves a plant: its watering falls due, scheduling encrypts the
  reminder for the subscription (RFC 8291) and POSTs it to the push service, which passes it to Firefox over the
  WebSocket; Firefox decrypts it and the app's service worker shows the notification. Reported: the
  notification's title, body, tag and buttons, the time from the plant saved to the notification listed, and the
  acknowledgement Firefox sent (100: delivered; 101 would be a decryption failure);
- presses the notification's Done button as Firefox does when a person presses it on the system's notification
  (Firefox's own alert window, used here, draws no buttons): the service worker's notificationclick handler gets
  the "complete" action; reports whether the task left Today;
- the channel then expires at the push service (it answers 410): the next reminder removes the subscription at
  the gateway; Settings subscribes again, and "Turn off" unsubscribes in Firefox and removes it at the gateway.
With LANGUAGE "es" the page and so the subscription are in Spanish (Accept-Language), and so is the notification.
Prints one JSON object.

Usage: python3 firefox_push_browser.py http://localhost:PORT [LANGUAGE]
"""
import json
import sys
import time
import uuid

from firefox_bidi import Firefox
from mozilla_push_service import MozillaPushService
from polling import wait_until

# The JSON API as the page calls it: a refused request throws, so that no check passes on an error.
FETCH = """async (method, path, body) => { const response = await fetch(path, {method, credentials: "same-origin",
    headers: {"Content-Type": "application/json"}, body: body === null ? undefined : JSON.stringify(body)});
    if (!response.ok) throw new Error(method + " " + path + ": " + response.status + " " + await response.text());
    return response.status === 204 ? null : await response.json(); }"""
NOTIFICATIONS = """async () => (await (await navigator.serviceWorker.ready).getNotifications()).map(n => ({
    title: n.title, body: n.body, tag: n.tag, lang: n.lang, data: n.data,
    actions: (n.actions || []).map(a => a.action + ":" + a.title)}))"""


def reminder_time_a_minute_ago():
    """HH:MM in UTC a minute ago: a plant saved now is reminded of at once (at midnight's first minute, 00:00)."""
    now = time.gmtime(time.time() - 60)
    return "00:00" if time.time() % 86_400 < 60 else time.strftime("%H:%M", now)


def main():
    origin = sys.argv[1]
    language = sys.argv[2] if len(sys.argv) > 2 else "en"
    service = MozillaPushService()
    report = {}
    prefs = dict(service.firefox_prefs(), **{
        "permissions.default.desktop-notification": 1,   # the permission prompt, answered "Allow"
        "intl.accept_languages": language,
        # Notifications as Firefox's own alert windows: headless, with no desktop notification daemon to show them,
        # the system's would fail every showNotification().
        "alerts.useSystemBackend": False,
        # ... which, asked for reduced motion, stay 20 s instead of sliding away as soon as they are drawn.
        "ui.prefersReducedMotion": 1,
    })
    with Firefox(prefs=prefs, system_access=True) as firefox:
        try:
            run(firefox, service, origin, report)
        except Exception as failure:
            report["failure"] = f"{type(failure).__name__}: {failure}"
            report["console"] = firefox.console()[-30:]
            report["firefoxLog"] = [line for line in firefox.log if "push" in line.lower()][-30:]
            report["posts"] = service.posts
    service.stop()
    print(json.dumps(report))


def run(firefox, service, origin, report):
    api = lambda method, path, body=None: firefox.call(FETCH, method, path, body)
    # Signed up on the form, by keyboard.
    firefox.navigate(origin + "/signup")
    firefox.focus("#name")
    firefox.type("firefox-push-" + uuid.uuid4().hex[:8])
    firefox.press("Tab")
    firefox.type("basil needs water")
    firefox.press("Enter")
    firefox.wait_for("location.pathname === '/today'")

    # Settings' own button, pressed by a person (a user activation: Firefox asks for one to request permission).
    firefox.navigate(origin + "/settings")
    firefox.wait_for("document.getElementById('push-on').hidden === false")
    report["pushStateBefore"] = firefox.evaluate("document.getElementById('push-state').textContent")
    firefox.evaluate("document.getElementById('push-on').click()", user_activation=True)
    firefox.wait_for("document.getElementById('push-off').hidden === false || document.getElementById('push-state').textContent.includes(':')", 30)
    report["pushStateAfterTurnOn"] = firefox.evaluate("document.getElementById('push-state').textContent")
    report["channels"] = len(service.registered)
    subscriptions = api("GET", "/v1/push-subscriptions")
    report["subscriptionsAtGateway"] = len(subscriptions.get("subscriptions", []))

    # A reminder falls due: the time a minute ago, a plant saved. Scheduling POSTs it to the push service, which
    # passes it to Firefox; the service worker shows it.
    api("PATCH", "/v1/settings", {"settings": {"notifyTime": reminder_time_a_minute_ago(), "timeZone": "UTC"},
                                  "updateMask": "notifyTime,timeZone"})
    saved_at = time.time()
    api("PUT", "/v1/plants/fig", {"plant": {"scientificName": "Ficus lyrata", "customName": "Fig"}})
    shown = wait_until(lambda: firefox.call(NOTIFICATIONS), 30)
    listed_at = time.time()
    report["notifications"] = shown or []
    delivered = [post for post in service.posts if post["status"] == 201]
    report["posts"] = [{key: post[key] for key in ("status", "encoding", "ttl", "vapid")} for post in service.posts]
    report["secondsSavedToShown"] = round(listed_at - saved_at, 3) if shown else None
    report["secondsPostedToShown"] = round(listed_at - delivered[0]["at"], 3) if shown and delivered else None
    alerts = wait_until(firefox.notifications_shown, 10) or []
    report["alerts"] = [{key: alert[key] for key in ("title", "text", "lang")} for alert in alerts]
    wait_until(lambda: service.acks, 5)
    report["acks"] = [ack.get("code") for ack in service.acks]

    # Done on the notification: the worker's click handler with the "complete" action, as Firefox runs it.
    if shown:
        task_id = shown[0]["data"].get("taskId") if isinstance(shown[0].get("data"), dict) else None
        report["taskId"] = task_id
        report["dueBeforeDone"] = any(task["id"] == task_id for task in api("GET", "/v1/tasks?view=VIEW_DUE").get("tasks", []))
        if alerts:
            firefox.press_notification_button(alerts[0]["context"], "complete", "Done")
        due = wait_until(lambda: not any(task["id"] == task_id for task in api("GET", "/v1/tasks?view=VIEW_DUE").get("tasks", [])), 10)
        report["doneFromNotification"] = bool(due)

    # The channel expires at the push service: the next reminder is answered 410 and the subscription goes.
    if service.registered:
        service.gone(service.registered[-1])
        api("PUT", "/v1/plants/basil", {"plant": {"scientificName": "Ocimum basilicum", "customName": "Basil"}})
        report["removedAfterGone"] = bool(wait_until(
            lambda: not api("GET", "/v1/push-subscriptions").get("subscriptions"), 20))
        report["postsAfterGone"] = [post["status"] for post in service.posts[len(delivered):]]

    # Subscribed again from Settings, then turned off there: Firefox unregisters its channel, the gateway forgets it.
    firefox.navigate(origin + "/settings")
    firefox.wait_for("document.getElementById('push-on').hidden === false || document.getElementById('push-off').hidden === false")
    if firefox.evaluate("document.getElementById('push-off').hidden === false"):
        firefox.evaluate("document.getElementById('push-off').click()", user_activation=True)
        firefox.wait_for("document.getElementById('push-on').hidden === false")
    firefox.evaluate("document.getElementById('push-on').click()", user_activation=True)
    firefox.wait_for("document.getElementById('push-off').hidden === false", 30)
    report["subscriptionsAfterResubscribe"] = len(api("GET", "/v1/push-subscriptions").get("subscriptions", []))
    firefox.evaluate("document.getElementById('push-off').click()", user_activation=True)
    firefox.wait_for("document.getElementById('push-on').hidden === false")
    report["pushStateAfterTurnOff"] = firefox.evaluate("document.getElementById('push-state').textContent")
    report["subscriptionsAfterTurnOff"] = len(api("GET", "/v1/push-subscriptions").get("subscriptions", []))
    report["channelsUnregistered"] = len(service.unregistered)


if __name__ == "__main__":
    main()

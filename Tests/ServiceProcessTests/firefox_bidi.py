"""Firefox ESR driven over WebDriver BiDi, which Firefox speaks itself: no geckodriver (Debian has none), no
Puppeteer (the npm registry is not reachable here). Just what the web app's tests need: navigate, run script (with
a user's activation when asked), type by keyboard, size the window, take screenshots.

    with Firefox(prefs={"dom.push.serverURL": "ws://127.0.0.1:9/"}) as firefox:
        firefox.navigate("http://localhost:8080/signin")
        firefox.evaluate("document.title")

Each Firefox has a profile of its own in a temporary folder, written before it starts (user.js): preferences are
how a test grants permissions or points Firefox at a push service of its own.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time

from websockets.sync.client import connect

FIREFOX = shutil.which("firefox-esr") or "/usr/bin/firefox-esr"

# What every test profile sets: no first-run pages, no updates or studies, nothing reached beyond loopback.
QUIET_PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.disabledForTesting": True,
    "app.normandy.enabled": False,
    "messaging-system.rsexperimentloader.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    # No push service but the test's own: none at all unless a test names one.
    "dom.push.serverURL": "",
}


# A notification's title and text as Firefox's alert window shows them.
ALERT_TEXT = """({title: document.getElementById("alertTitleLabel").getAttribute("value"),
    text: document.getElementById("alertTextLabel").textContent,
    lang: document.getElementById("alertTitleLabel").getAttribute("lang") || ""})"""


class BiDiError(RuntimeError):
    """A command Firefox answered with an error, or a script that threw."""


class Firefox:
    """One headless Firefox ESR and one BiDi session on its first tab."""

    def __init__(self, prefs=None, width=1280, height=800, system_access=False):
        self.system_access = system_access
        self.prefs = dict(QUIET_PREFS, **(prefs or {}))
        self.size = (width, height)
        self.next_id = 0
        self.events = []
        self.log = []

    def __enter__(self):
        self.profile = tempfile.mkdtemp(prefix="plantguide-firefox-")
        with open(os.path.join(self.profile, "user.js"), "w") as user:
            for name, value in self.prefs.items():
                user.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
        environment = dict(os.environ, MOZ_HEADLESS_WIDTH=str(self.size[0]), MOZ_HEADLESS_HEIGHT=str(self.size[1]))
        privileged = ["--remote-allow-system-access"] if self.system_access else []
        self.process = subprocess.Popen([FIREFOX, "--headless", "--no-remote", "--profile", self.profile,
                                         "--remote-debugging-port", "0"] + privileged + ["about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environment)
        address = self._listening_address()
        self.socket = connect(address + "/session", max_size=64 * 1024 * 1024, open_timeout=30)
        self.command("session.new", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": True}}})
        self.context = self.command("browsingContext.getTree", {})["contexts"][0]["context"]
        self.command("session.subscribe", {"events": ["log.entryAdded"]})
        return self

    def _listening_address(self):
        """Firefox prints where BiDi listens on standard error; the rest of that stream is kept for failures."""
        found = {}

        def read():
            for line in self.process.stderr:
                self.log.append(line.rstrip())
                match = re.search(r"WebDriver BiDi listening on (ws://\S+)", line)
                if match and "address" not in found:
                    found["address"] = match.group(1)
        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + 60
        while "address" not in found:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise BiDiError("Firefox did not start BiDi: " + "\n".join(self.log[-20:]))
            time.sleep(0.05)
        return found["address"]

    def __exit__(self, *failure):
        try:
            self.command("session.end", {}, timeout=10)
        except Exception:
            pass
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)

    def command(self, method, params, timeout=60):
        """Sends one command and returns its result; events that arrive meanwhile are kept in `events`."""
        self.next_id += 1
        ident = self.next_id
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self.socket.recv(timeout=max(0.1, deadline - time.monotonic())))
            if message.get("id") == ident:
                if message.get("type") == "error":
                    raise BiDiError(f"{method}: {message.get('error')}: {message.get('message')}")
                return message["result"]
            if message.get("type") == "event":
                self.events.append(message)

    def navigate(self, url):
        """Opens `url` in the tab and waits for its load event."""
        self.command("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"})

    def reload(self):
        self.command("browsingContext.reload", {"context": self.context, "wait": "complete"})

    @property
    def url(self):
        return self.evaluate("location.href")

    def evaluate(self, expression, user_activation=False, target=None):
        """The value of `expression` in the page (awaited when a promise), as JSON would carry it."""
        result = self.command("script.evaluate", {
            "expression": expression, "target": target or {"context": self.context}, "awaitPromise": True,
            "userActivation": user_activation, "resultOwnership": "none",
            "serializationOptions": {"maxObjectDepth": 8}})
        return self._value(result)

    def notifications_shown(self):
        """The notifications Firefox shows (its own alert windows, with `alerts.useSystemBackend` off): their title
        and text, read from the windows themselves. Needs `system_access`."""
        return [dict(self.evaluate(ALERT_TEXT, target={"context": context}), context=context) for context in self._alert_windows()]

    def press_notification_button(self, context, action, title):
        """Presses a button of a notification shown, as Firefox does when a person presses one on the system's
        notification: the notification's observer hears a click with that action (nsIAlertAction), and the page's
        service worker gets its notificationclick event. (Firefox's own alert window draws no buttons.)"""
        self.evaluate(f"""(() => {{
            const pressed = {{action: {json.dumps(action)}, title: {json.dumps(title)}, iconURL: "", windowsSystemActivationType: false,
                             opaqueRelaunchData: "", QueryInterface: ChromeUtils.generateQI(["nsIAlertAction"])}};
            gAlertListener.observe(pressed, "alertclickcallback", gAlertCookie);
            return true; }})()""", target={"context": context})

    def _alert_windows(self):
        tree = self.command("browsingContext.getTree", {"moz:scope": "chrome"})["contexts"]
        return [context["context"] for context in tree if context["url"] == "chrome://global/content/alerts/alert.xhtml"]

    def call(self, function, *arguments, user_activation=False):
        """`function` (a JavaScript function's text) called with `arguments` (JSON values) in the page."""
        return self.evaluate(f"({function})(...{json.dumps(list(arguments))})", user_activation=user_activation)

    def _value(self, result):
        if result.get("type") == "exception":
            details = result["exceptionDetails"]
            raise BiDiError(details.get("text", "") + " " + json.dumps(details.get("stackTrace", {}))[:500])
        return self._plain(result["result"])

    def _plain(self, remote):
        """A BiDi remote value as a Python value."""
        kind = remote["type"]
        value = remote.get("value")
        if kind in ("undefined", "null"):
            return None
        if kind in ("string", "boolean"):
            return value
        if kind == "number":
            return value if not isinstance(value, str) else float(value.replace("Infinity", "inf")) if "Infinity" in value else float("nan")
        if kind == "array":
            return [self._plain(item) for item in value or []]
        if kind == "object":
            return {key if isinstance(key, str) else self._plain(key): self._plain(item) for key, item in value or []}
        return value

    def wait_for(self, expression, seconds=15):
        """Waits until `expression` is true in the page; its last value otherwise, in the error."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                if self.evaluate(expression):
                    return
            except BiDiError:
                pass  # a page between two documents
            if time.monotonic() > deadline:
                raise TimeoutError(f"still false after {seconds} s: {expression} (at {self.url})")
            time.sleep(0.1)

    def wait_for_url(self, suffix, seconds=15):
        self.wait_for(f"location.pathname + location.search === {json.dumps(suffix)} && document.readyState === 'complete'", seconds)

    def focus(self, selector):
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")

    def press(self, *keys):
        """Presses each key in turn, as a person does: "Tab", "Enter", or one character."""
        special = {"Tab": "\ue004", "Enter": "\ue006", "Space": " ", "Escape": "\ue00c"}
        actions = []
        for key in keys:
            value = special.get(key, key)
            actions += [{"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]
        self.command("input.performActions", {"context": self.context, "actions": [{"type": "key", "id": "keyboard", "actions": actions}]})

    def type(self, text):
        self.press(*list(text))

    def set_viewport(self, width, height):
        self.command("browsingContext.setViewport", {"context": self.context, "viewport": {"width": width, "height": height}})

    def screenshot(self, path, full_page=True):
        import base64
        params = {"context": self.context}
        if full_page:
            params["origin"] = "document"
        data = self.command("browsingContext.captureScreenshot", params)["data"]
        with open(path, "wb") as image:
            image.write(base64.b64decode(data))

    def set_cookie(self, origin, name, value):
        """A cookie of `origin`'s host, as the server would have set it."""
        host = re.sub(r"^https?://", "", origin).split(":")[0].split("/")[0]
        self.command("storage.setCookie", {"cookie": {"name": name, "value": {"type": "string", "value": value}, "domain": host, "path": "/"}})

    def console(self):
        """What the pages and workers logged, as text."""
        return [f"{event['params'].get('level')}: {event['params'].get('text')}" for event in self.events
                if event.get("method") == "log.entryAdded"]

"""The web app's journey by keyboard in WebKit and in Firefox, for WebAppBrowserTests and Scripts/screens.

The journey the Chromium tests run (web_pages_browser.py), in the engines most of PlantGuide's people use:
WebKit, as Safari renders it (WebKitWebDriver driving MiniBrowser, under Xvfb: `xvfb-run -a python3 ...`), and
Firefox ESR (WebDriver BiDi, firefox_bidi.py). Signs up on the form by keyboard, saves two plants through the JSON
API, does and undoes a task on Today by keyboard, edits a plant by keyboard, opens Settings, identifies a photo and
adds the best candidate with it, and signs out. On every screen, in the app's light and dark themes and at a
phone's width and a desktop's: axe-core's WCAG 2.2 A/AA rules (axe-core from the axe-playwright-python package,
injected, not fetched from a CDN), and screenshots when a folder is given (ENGINE-SCREEN-THEME-SIZE.png).

What these engines cannot do here is left out and said so in the README: passkeys (neither WebKitWebDriver nor
Firefox's BiDi has a virtual authenticator), installability (a Chromium DevTools question).

Prints one JSON object. Usage: python3 web_engines_browser.py webkit|firefox http://localhost:PORT [FOLDER] [PHOTO.jpg]
"""
import json
import os
import sys
import time
import uuid

import axe_playwright_python

AXE_SOURCE = open(os.path.join(os.path.dirname(axe_playwright_python.__file__), "axe.min.js")).read()
RULES = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]}}
AXE_RUN = f"""(async () => {{
    if (typeof axe === "undefined") {{ {AXE_SOURCE}\n }}
    const results = await axe.run(document, {json.dumps(RULES)});
    return results.violations.map(v => ({{id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(" "))}}));
}})()"""
# Phone: an iPhone's 390 CSS pixels (MiniBrowser's window is at least 447 wide: what it gives is reported).
SIZES = {"phone": (390, 844), "desktop": (1280, 800)}
THEME_COOKIE = "plantguide_theme"


class WebKit:
    """MiniBrowser (WebKitGTK, Safari's engine) through WebKitWebDriver and Selenium."""
    name = "webkit"

    def __enter__(self):
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service
        options = Options()
        options.binary_location = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
        options.add_argument("--automation")
        self.driver = webdriver.WebKitGTK(options=options, service=Service(executable_path="/usr/bin/WebKitWebDriver"))
        self.driver.set_script_timeout(60)
        self.set_size(*SIZES["desktop"])
        return self

    def __exit__(self, *failure):
        self.driver.quit()

    def navigate(self, url):
        self.driver.get(url)

    def reload(self):
        self.driver.refresh()

    def evaluate(self, expression):
        answer = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            f"Promise.resolve().then(() => ({expression})).then(value => done({{value}}), error => done({{error: String(error)}}));")
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer.get("value")

    def press(self, *keys):
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys
        chain = ActionChains(self.driver)
        for key in keys:
            chain.send_keys({"Tab": Keys.TAB, "Enter": Keys.ENTER}.get(key, key))
        chain.perform()

    def type(self, text):
        self.press(text)

    def activate_focused(self):
        """Enter on the focused button or link, as a person presses it."""
        self.press("Enter")

    def set_files(self, selector, path):
        from selenium.webdriver.common.by import By
        self.driver.find_element(By.CSS_SELECTOR, selector).send_keys(path)

    def set_size(self, width, height):
        self.driver.set_window_size(width, height)

    def screenshot(self, path):
        self.driver.save_screenshot(path)

    def set_cookie(self, origin, name, value):
        self.driver.add_cookie({"name": name, "value": value, "path": "/"})


class Gecko:
    """Firefox ESR over WebDriver BiDi."""
    name = "firefox"

    def __enter__(self):
        from firefox_bidi import Firefox
        self.firefox = Firefox().__enter__()
        self.set_size(*SIZES["desktop"])
        return self

    def __exit__(self, *failure):
        self.firefox.__exit__(*failure)

    def navigate(self, url):
        self.firefox.navigate(url)

    def reload(self):
        self.firefox.reload()

    def evaluate(self, expression):
        return self.firefox.evaluate(expression)

    def press(self, *keys):
        self.firefox.press(*keys)

    def type(self, text):
        self.firefox.type(text)

    def activate_focused(self):
        """The focused button or link, activated. Not by Enter: the keys BiDi synthesizes reach a focused button
        (keydown, keypress and keyup all fire there) but Firefox 153 makes no click of them, while a real key does;
        typing, Tab and Enter in a form's field are keys here as in WebKit."""
        self.firefox.evaluate("document.activeElement.click()")

    def set_files(self, selector, path):
        node = self.firefox.command("script.evaluate", {"expression": f"document.querySelector({json.dumps(selector)})",
                                                        "target": {"context": self.firefox.context}, "awaitPromise": False})
        self.firefox.command("input.setFiles", {"context": self.firefox.context, "element": {"sharedId": node["result"]["sharedId"]},
                                                "files": [path]})

    def set_size(self, width, height):
        self.firefox.set_viewport(width, height)

    def screenshot(self, path):
        self.firefox.screenshot(path)

    def set_cookie(self, origin, name, value):
        self.firefox.set_cookie(origin, name, value)


def wait_for(browser, expression, seconds=15):
    deadline = time.monotonic() + seconds
    while True:
        try:
            if browser.evaluate(expression):
                return
        except Exception:
            pass  # between two documents
        if time.monotonic() > deadline:
            raise TimeoutError(f"{browser.name}: still false after {seconds} s: {expression} (at {browser.evaluate('location.href')})")
        time.sleep(0.1)


def check(browser, origin, screen, report, folder, reload=True):
    """axe-core on the page as it is, in each theme and at each size; screenshots when asked. `reload` False keeps
    what script put on the page: the theme is then set on the page itself, as the server would have rendered it."""
    for theme in ("light", "dark"):
        browser.set_cookie(origin, THEME_COOKIE, theme)
        if reload:
            browser.reload()
        else:
            browser.evaluate(f"document.documentElement.dataset.theme = {json.dumps(theme)}")
        for size, (width, height) in SIZES.items():
            browser.set_size(width, height)
            time.sleep(0.2)  # the layout at the new width
            report["screens"][f"{screen}-{theme}-{size}"] = browser.evaluate(AXE_RUN)
            report["widths"][size] = browser.evaluate("window.innerWidth")
            report["reflow"][f"{screen}-{size}"] = browser.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            if folder:
                browser.screenshot(os.path.join(folder, f"{browser.name}-{screen}-{theme}-{size}.png"))
        browser.set_size(*SIZES["desktop"])
    browser.set_cookie(origin, THEME_COOKIE, "system")


def journey(browser, origin, folder, photo, report):
    browser.navigate(origin + "/signin")
    check(browser, origin, "signin", report, folder)

    # Signed up by keyboard alone: the skip link first, then the name, the password, Enter.
    browser.navigate(origin + "/signup")
    browser.press("Tab")
    report["firstFocus"] = browser.evaluate("document.activeElement.textContent.trim()")
    browser.evaluate("document.getElementById('name').focus()")
    browser.type(f"{browser.name}-{uuid.uuid4().hex[:6]}")
    browser.press("Tab")
    browser.type("basil needs water")
    browser.press("Enter")
    wait_for(browser, "location.pathname === '/today'")
    for plant_id, body in [("p1", {"scientificName": "Ficus lyrata", "customName": "Fig"}),
                           ("p2", {"scientificName": "Ocimum basilicum", "customName": "Basil", "favorite": True})]:
        report["saved"].append(browser.evaluate(f"""fetch("/v1/plants/{plant_id}", {{method: "PUT", headers: {{"Content-Type": "application/json"}},
            body: JSON.stringify({{plant: {json.dumps(body)}}})}}).then(response => response.status)"""))
    report["serviceWorker"] = browser.evaluate(
        "Promise.race([navigator.serviceWorker.ready.then(() => true), new Promise(resolve => setTimeout(() => resolve(false), 10000))])")

    browser.navigate(origin + "/today")
    check(browser, origin, "today", report, folder)
    # Done on Today by keyboard (htmx swaps the row), then Undo by keyboard: the row comes back with its buttons.
    browser.evaluate("document.querySelector('.tasks li button[type=submit]').focus()")
    browser.activate_focused()
    wait_for(browser, "document.querySelector('.tasks li.done') !== null")
    report["doneOnToday"] = browser.evaluate("document.querySelector('.tasks li.done').textContent.split(/\\s+/).join(' ').trim()")
    done_id = browser.evaluate("document.querySelector('.tasks li.done').id")
    browser.evaluate("document.querySelector('.tasks li.done form.undo button').focus()")
    browser.activate_focused()
    wait_for(browser, f"""(() => {{ const row = document.getElementById({json.dumps(done_id)});
        return row !== null && !row.classList.contains("done") && row.querySelector("button") !== null; }})()""")
    report["undoneOnToday"] = browser.evaluate("document.querySelectorAll('.tasks li.done').length === 0")

    browser.navigate(origin + "/plants")
    check(browser, origin, "plants", report, folder)
    browser.navigate(origin + "/plants/p2")
    check(browser, origin, "plant", report, folder)
    # Edited by keyboard: the Edit link, the location typed, Enter saves and shows the plant again.
    browser.evaluate("document.querySelector(\"a[href='/plants/p2/edit']\").focus()")
    browser.activate_focused()
    wait_for(browser, "location.pathname === '/plants/p2/edit'")
    check(browser, origin, "plant-edit", report, folder)
    browser.evaluate("document.getElementById('location').focus()")
    browser.type("Kitchen window")
    browser.press("Enter")
    wait_for(browser, "location.pathname === '/plants/p2' && document.body.textContent.includes('Kitchen window')")
    report["edited"] = True
    browser.navigate(origin + "/settings")
    check(browser, origin, "settings", report, folder)

    # Identify: a photo chosen, its candidates swapped in by htmx, the best one added with the photo.
    browser.navigate(origin + "/identify")
    check(browser, origin, "identify", report, folder)
    if photo:
        browser.set_files("#library", photo)
        browser.evaluate("[...document.querySelectorAll('button')].filter(b => b.textContent.includes('Identify')).pop().click()")
        wait_for(browser, "document.querySelector('#results .candidate, #results .warning, #results .error') !== null", 30)
        report["identifyResults"] = browser.evaluate("document.querySelectorAll('.candidate').length")
        check(browser, origin, "identify-results", report, folder, reload=False)
        browser.evaluate("document.querySelector('.candidate button').click()")
        wait_for(browser, "/^\\/plants\\/[^/]+$/.test(location.pathname) && document.readyState === 'complete'", 30)
        plant_id = browser.evaluate("location.pathname.split('/').pop()")
        check(browser, origin, "plant-identified", report, folder)
        report["identifiedPlant"] = browser.evaluate(f"""fetch("/v1/plants/{plant_id}").then(r => r.json()).then(details => ({{
            name: details.plant.scientificName, photos: (details.plant.photos || []).length}}))""")

    # Signed out: back on the sign-in page.
    browser.navigate(origin + "/today")
    browser.evaluate("[...document.querySelectorAll('button, a')].find(e => e.textContent.trim() === 'Sign out').click()")
    wait_for(browser, "location.pathname === '/signin'")
    report["signedOut"] = True


def main():
    engine, origin = sys.argv[1], sys.argv[2]
    folder = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
    photo = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
    report = {"engine": engine, "screens": {}, "widths": {}, "reflow": {}, "saved": []}
    with (WebKit() if engine == "webkit" else Gecko()) as browser:
        try:
            journey(browser, origin, folder, photo, report)
        except Exception as failure:
            report["failure"] = f"{type(failure).__name__}: {failure}"
            try:
                report["at"] = browser.evaluate("location.href")
            except Exception:
                pass
    print(json.dumps(report))


if __name__ == "__main__":
    main()

"""The web app's screens in headless Chromium, for WebAppBrowserTests and Scripts/screens.

Signs up through the sign-up form by keyboard alone (Tab, type, Enter), saves plants through the JSON API with the
session cookie, then opens Today (Done and Undo by keyboard), My plants, a plant (edited by keyboard) and Settings (a passkey
added on a virtual authenticator, all the data downloaded); identifies a photo and adds the best candidate with it (with a photo given); asks
Chromium whether the app is installable; opens My plants again offline, from the service worker, and not once signed
out; and signs in again with the passkey alone, then removes it. On every screen, in light and dark theme:
axe-core's WCAG 2.2 A/AA rules (axe-playwright-python), the Content-Security-Policy violations the page reported,
and, with a folder given, screenshots at phone and desktop width. Reads Largest Contentful Paint from the
Performance API. Prints one JSON object.

With a second gateway's address (another replica on the same PostgreSQL), Settings, Identify and the plant added
are opened through it, the plant is then looked for through the first, and the session is the one cookie for both
(a cookie is the host's, whatever its port).

Usage: python3 web_pages_browser.py http://localhost:PORT [SCREENSHOT_FOLDER] [PHOTO.jpg] [http://localhost:OTHER_PORT]
(an empty SCREENSHOT_FOLDER takes no screenshots)
"""
import json
import os
import sys
import tempfile

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import sync_playwright

WATCH_CSP = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", e => window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI));
"""
LARGEST_PAINT = """
() => new Promise(resolve => {
  new PerformanceObserver(list => { const all = list.getEntries(); resolve(all[all.length - 1].startTime); })
    .observe({type: "largest-contentful-paint", buffered: true});
  setTimeout(() => resolve(-1), 3000);
})
"""
RULES = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]}}
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}


# Safari on an iPhone (iOS 18.4), as it names itself.
IPHONE_SAFARI = ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.4 "
                 "Mobile/15E148 Safari/604.1")


def devtools_errors(context, page):
    """Chromium's reasons the page could not be installed as an app (none: it can)."""
    session = context.new_cdp_session(page)
    errors = session.send("Page.getInstallabilityErrors")["installabilityErrors"]
    session.detach()
    return [error["errorId"] for error in errors]


# The innermost elements that reach past the window's right edge, and by how much.
WIDEST = """[...document.querySelectorAll("body *")]
    .filter(element => element.getBoundingClientRect().right > window.innerWidth + 0.5
        && ![...element.children].some(child => child.getBoundingClientRect().right > window.innerWidth + 0.5))
    .slice(0, 5)
    .map(element => element.tagName.toLowerCase() + (element.id ? "#" + element.id : "") + (element.className ? "." + element.className : "")
        + " +" + Math.round(element.getBoundingClientRect().right - window.innerWidth))"""

# The elements that would still move: a transition or an animation longer than none.
MOVING = """[...document.querySelectorAll("*")].filter(element => {
    const style = getComputedStyle(element);
    const longest = value => Math.max(...value.split(",").map(part => parseFloat(part) || 0));
    return longest(style.transitionDuration) > 0 || (style.animationName !== "none" && longest(style.animationDuration) > 0);
}).map(element => element.tagName.toLowerCase() + (element.id ? "#" + element.id : ""))"""


def check(screen, name, report, axe, folder, themes=("light", "dark"), reload=True):
    """axe-core's findings and the CSP violations of the page at `screen`, in each theme; screenshots when asked.
    `reload` False keeps what script put on the page (a reload would show the page as the server sends it)."""
    for theme in themes:
        screen.emulate_media(color_scheme=theme)
        if reload:
            screen.reload()
        results = axe.run(screen, options=RULES)
        report["screens"][f"{name}-{theme}"] = [
            {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]]}
            for v in results.response["violations"]]
        report["csp"] += screen.evaluate("window.__cspViolations")
        if folder:
            for size_name, size in SIZES.items():
                screen.set_viewport_size(size)
                screen.screenshot(path=os.path.join(folder, f"{name}-{theme}-{size_name}.png"), full_page=True)
            screen.set_viewport_size(SIZES["desktop"])
    screen.emulate_media(color_scheme="light")
    # Reflow (WCAG 1.4.10): at 320 CSS pixels wide, as 1280 at 400 % zoom (stricter than 200 %), nothing scrolls
    # sideways. Reduced motion: with the system asking for it, nothing moves.
    screen.set_viewport_size({"width": 320, "height": 640})
    report["reflow"][name] = screen.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    if report["reflow"][name] > 0:  # the widest elements, for the failure's message
        report["reflowCulprits"][name] = screen.evaluate(WIDEST)
    screen.set_viewport_size(SIZES["desktop"])
    screen.emulate_media(reduced_motion="reduce")
    report["motion"][name] = screen.evaluate(MOVING)
    screen.emulate_media(reduced_motion="no-preference")


def main():
    origin = sys.argv[1]
    other = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else origin
    folder = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
    photo = sys.argv[3] if len(sys.argv) > 3 else None
    axe = Axe()
    report = {"screens": {}, "csp": [], "lcp": {}, "reflow": {}, "reflowCulprits": {}, "motion": {}}
    with tempfile.TemporaryDirectory(prefix="plantguide-chromium-") as profile, sync_playwright() as playwright:
        # A profile of its own, not an incognito context: Chromium installs apps only outside incognito.
        context = playwright.chromium.launch_persistent_context(profile, executable_path="/usr/bin/chromium", args=["--no-sandbox"],
                                                                viewport=SIZES["desktop"])
        context.add_init_script(WATCH_CSP)
        page = context.pages[0] if context.pages else context.new_page()

        page.goto(origin + "/signin")
        check(page, "signin", report, axe, folder)

        # Sign up by keyboard alone: the skip link first, then the name, the password, Enter.
        page.goto(origin + "/signup")
        report["lcp"]["signup"] = page.evaluate(LARGEST_PAINT)
        page.keyboard.press("Tab")
        report["firstFocus"] = page.evaluate("document.activeElement.textContent.trim()")
        page.focus("#name")
        page.keyboard.type("screens")
        page.keyboard.press("Tab")
        page.keyboard.type("basil needs water")
        page.keyboard.press("Enter")
        page.wait_for_url("**/today")
        for plant_id, body in [("p1", {"scientificName": "Ficus lyrata", "customName": "Fig"}),
                               ("p2", {"scientificName": "Ocimum basilicum", "customName": "Basil", "favorite": True})]:
            status = page.evaluate("""async ([id, plant]) => (await fetch("/v1/plants/" + id, {method: "PUT",
                headers: {"Content-Type": "application/json"}, body: JSON.stringify({plant})})).status""", [plant_id, body])
            report.setdefault("saved", []).append(status)

        # Installable, and what was seen opens offline: the service worker takes over, keeps Today and My plants as
        # they are seen next, and serves them when the network is gone.
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        report["installability"] = devtools_errors(context, page)
        for path in ["/today", "/plants"]:
            page.goto(origin + path)
            page.wait_for_function("navigator.serviceWorker.controller !== null")
        context.set_offline(True)
        page.goto(origin + "/plants")
        report["offline"] = {"plants": page.locator("text=Basil").count() > 0,
                             "banner": page.evaluate("!document.getElementById('offline').hidden")}
        context.set_offline(False)

        page.goto(origin + "/today")
        report["lcp"]["today"] = page.evaluate(LARGEST_PAINT)
        check(page, "today", report, axe, folder)
        # Done on Today, by keyboard: htmx swaps the task's row for one saying it is done.
        first_row = "document.querySelector('.tasks li')"
        if page.evaluate(first_row + " !== null"):
            page.evaluate(first_row + ".querySelector('button[type=submit]').focus()")
            page.keyboard.press("Enter")
            page.wait_for_selector(".tasks li.done", timeout=15000)
            report["doneOnToday"] = " ".join(page.inner_text(".tasks li.done").split())
            # Undo, by keyboard too: the task's row comes back with its buttons.
            done_id = page.evaluate("document.querySelector('.tasks li.done').id")
            page.evaluate("document.querySelector('.tasks li.done form.undo button').focus()")
            page.keyboard.press("Enter")
            page.wait_for_function(f"""() => {{ const row = document.getElementById({json.dumps(done_id)});
                return row !== null && !row.classList.contains("done") && row.querySelector("button") !== null; }}""", timeout=15000)
            report["undoneOnToday"] = page.locator(".tasks li.done").count() == 0
        page.goto(origin + "/plants")
        check(page, "plants", report, axe, folder)
        page.goto(origin + "/plants/p2")
        check(page, "plant", report, axe, folder)
        # Editing it by keyboard: the Edit link, the location typed, Enter saves and shows the plant again.
        page.focus("a[href='/plants/p2/edit']")
        page.keyboard.press("Enter")
        page.wait_for_url("**/plants/p2/edit")
        check(page, "plant-edit", report, axe, folder)
        page.focus("#location")
        page.keyboard.type("Kitchen window")
        page.keyboard.press("Enter")
        page.wait_for_url("**/plants/p2")
        report["edited"] = page.locator("text=Kitchen window").count() > 0
        page.goto(other + "/settings")
        check(page, "settings", report, axe, folder)
        # A passkey added in Settings, on a virtual platform authenticator (the DevTools Protocol's): the page
        # comes back saying so, and lists it.
        devtools = context.new_cdp_session(page)
        devtools.send("WebAuthn.enable")
        devtools.send("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
            "isUserVerified": True, "automaticPresenceSimulation": True}})
        page.fill("#passkey-name", "Test phone")
        page.click("#passkey-create")
        page.wait_for_url("**/settings?done=passkeyAdded")
        report["passkeyAdded"] = " ".join(page.inner_text("#passkeys .rows").split())
        # Download all my data: a tar archive, saved under the name the gateway gives.
        with page.expect_download() as downloading:
            page.click("a[href='/settings/export']")
        download = downloading.value
        with open(download.path(), "rb") as archive:
            head = archive.read(512)
        report["export"] = {"name": download.suggested_filename, "ustar": head[257:262] == b"ustar",
                            "bytes": os.path.getsize(download.path())}

        # Identify: a photo chosen, its candidates swapped in by htmx, and "Add to my plants" with the photo still in
        # the form: the plant's page, and the photo kept with the plant.
        page.goto(other + "/identify")
        check(page, "identify", report, axe, folder)
        if photo:
            page.set_input_files("#library", photo)
            page.click("button:has-text('Identify') >> nth=-1")
            page.wait_for_selector("#results .candidate, #results .warning, #results .error")
            report["identifyResults"] = page.locator(".candidate").count()
            report["identifyError"] = page.locator("#results .error").all_inner_texts()
            check(page, "identify-results", report, axe, folder, reload=False)
            if report["identifyResults"] == 0:
                raise SystemExit("identify: no candidates: %s" % page.inner_text("#results"))
            page.click(".candidate button >> nth=0")
            page.wait_for_url("**/plants/*")
            page.wait_for_load_state("load")
            check(page, "plant-identified", report, axe, folder)
            plant_id = page.url.rsplit("/", 1)[-1]
            report["identifiedPlant"] = page.evaluate("""async id => {
                const details = await (await fetch("/v1/plants/" + id)).json();
                return {name: details.plant.scientificName, photos: (details.plant.photos || []).length,
                        tasks: (details.upcomingTasks || []).length};
            }""", plant_id)

            # Through the first gateway too (the same store behind both).
            page.goto(origin + "/plants")
            report["identifiedSeenThroughFirst"] = page.locator(f"a[href='/plants/{plant_id}']").count() > 0

        # Signing out takes the kept pages with it: offline, My plants is no longer there to open. (Signed out
        # through the first gateway: a browser clears the site data of the origin that asks.)
        page.goto(origin + "/today")
        page.click("text=Sign out")
        page.wait_for_url("**/signin")
        context.set_offline(True)
        try:
            page.goto(origin + "/plants")
            report["keptAfterSignOut"] = page.locator("text=Basil").count() > 0
        except Exception:  # the browser's own "no connection" error: nothing was kept
            report["keptAfterSignOut"] = False
        context.set_offline(False)

        # Signed out, back in with the passkey alone.
        page.goto(origin + "/signin")
        page.click("#passkey-signin-button")
        page.wait_for_url("**/today")
        report["passkeySignIn"] = page.url.endswith("/today") and page.locator("text=Sign out").count() > 0
        page.goto(origin + "/settings")
        page.click("#passkeys .rows button")
        page.wait_for_url("**/settings?done=passkeyRemoved")
        report["passkeysAfterRemoval"] = page.locator("#passkeys .rows li").count()

        # Settings as Safari on an iPhone shows it before the app is added to the Home Screen (where alone iOS grants
        # Web Push): the way to get there, not a button that fails.
        session = context.new_cdp_session(page)
        session.send("Emulation.setUserAgentOverride", {"userAgent": IPHONE_SAFARI, "platform": "iPhone"})
        page.goto(origin + "/settings")
        page.wait_for_function("document.getElementById('push-state').textContent.includes('Home Screen')", timeout=10_000)
        report["iphonePush"] = {"state": page.inner_text("#push-state"), "buttonShown": page.is_visible("#push-on")}
        context.close()
    print(json.dumps(report))


if __name__ == "__main__":
    main()

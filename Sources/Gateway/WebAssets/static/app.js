// PlantGuide's own script: what server-rendered pages and htmx do not, with no inline code (the page's CSP allows
// scripts from this origin only). Shows an offline banner while the browser has no connection, tells the service
// worker when the connection is back (it then sends what was done offline), shows reminders as they arrive while a
// page is open, turns notifications on this device on and off in Settings, and adds and uses passkeys.
"use strict";
(function () {
  function showConnection() {
    var banner = document.getElementById("offline");
    if (banner) banner.hidden = navigator.onLine;
  }
  // What was done offline goes out when the connection returns, or when the app opens with one.
  function sendKept() {
    if (navigator.onLine && navigator.serviceWorker && navigator.serviceWorker.controller) navigator.serviceWorker.controller.postMessage("online");
  }
  window.addEventListener("online", function () { showConnection(); sendKept(); });
  window.addEventListener("offline", showConnection);
  document.addEventListener("DOMContentLoaded", function () { showConnection(); sendKept(); });
})();

// The service worker keeps the app's files and the last-seen pages for when the connection is gone.
if ("serviceWorker" in navigator) {
  window.addEventListener("load", function () {
    navigator.serviceWorker.register("/sw.js").catch(function () { /* the app works without it, online */ });
  });
}

// Notifications on this device (Settings): the browser's push subscription, given to the gateway, which sends each
// reminder to it. The subscription's id is kept in this browser, to turn it off again.
(function () {
  var SUBSCRIPTION_KEY = "plantguide-push-subscription";

  function section() { return document.getElementById("push"); }

  function say(key, reason) {
    var text = section().dataset[key] || "";
    document.getElementById("push-state").textContent = reason ? text.replace("{reason}", reason) : text;
  }

  function show(on) {
    document.getElementById("push-on").hidden = on;
    document.getElementById("push-off").hidden = !on;
    say(on ? "on" : "off");
  }

  function base64URLToBytes(text) {
    var padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(padded), function (c) { return c.charCodeAt(0); });
  }

  function answer(response) {
    if (response.ok) return response.json();
    return response.json().catch(function () { return {}; }).then(function (body) {
      throw new Error((body.error && body.error.message) || response.status + " " + response.statusText);
    });
  }

  async function turnOn() {
    var permission = await Notification.requestPermission();
    if (permission !== "granted") { say("denied"); return; }
    var registration = await navigator.serviceWorker.ready;
    var key = await fetch("/v1/push/key", {credentials: "same-origin"}).then(answer);
    // A browser that cannot reach its push service may never answer: after a while, say so.
    var subscription = await Promise.race([
      registration.pushManager.subscribe({userVisibleOnly: true, applicationServerKey: base64URLToBytes(key.publicKey)}),
      new Promise(function (_, reject) {
        setTimeout(function () { reject(new Error("the browser's push service did not answer")); }, 20000);
      }),
    ]);
    var created = await fetch("/v1/push-subscriptions", {
      method: "POST", credentials: "same-origin", headers: {"Content-Type": "application/json"},
      // The page's language (the one the person reads the app in), so that notifications are worded alike.
      body: JSON.stringify(Object.assign(subscription.toJSON(), {language: document.documentElement.lang})),
    }).then(answer);
    localStorage.setItem(SUBSCRIPTION_KEY, created.subscriptionId);
    show(true);
  }

  async function turnOff() {
    var registration = await navigator.serviceWorker.ready;
    var subscription = await registration.pushManager.getSubscription();
    if (subscription) await subscription.unsubscribe();
    var id = localStorage.getItem(SUBSCRIPTION_KEY);
    if (id) {
      await fetch("/v1/push-subscriptions/" + encodeURIComponent(id), {method: "DELETE", credentials: "same-origin"}).then(answer);
      localStorage.removeItem(SUBSCRIPTION_KEY);
    }
    show(false);
  }

  function failed(error) { say("failed", error && error.message ? error.message : String(error)); }

  document.addEventListener("DOMContentLoaded", function () {
    if (!section()) return;
    // iOS and iPadOS grant Web Push only to the app added to the Home Screen and opened from there.
    var apple = /iPad|iPhone|iPod/.test(navigator.userAgent) || (navigator.platform === "MacIntel" && navigator.maxTouchPoints > 1);
    var installed = navigator.standalone === true || window.matchMedia("(display-mode: standalone)").matches;
    if (apple && !installed) { say("installFirst"); return; }
    if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) { say("unsupported"); return; }
    document.getElementById("push-on").addEventListener("click", function () { turnOn().catch(failed); });
    document.getElementById("push-off").addEventListener("click", function () { turnOff().catch(failed); });
    navigator.serviceWorker.ready
      .then(function (registration) { return registration.pushManager.getSubscription(); })
      .then(function (subscription) { show(subscription !== null && Notification.permission === "granted"); })
      .catch(failed);
  });
})();

// Reminders while a page is open: the gateway's event stream (the session cookie signs it in), each shown once as a
// notice with a link to Today. The stream reconnects by itself after a drop.
(function () {
  document.addEventListener("DOMContentLoaded", function () {
    var region = document.getElementById("live-reminders");
    if (!region || !("EventSource" in window)) return;
    var verbs = {};
    try { verbs = JSON.parse(region.dataset.verbs || "{}"); } catch (malformed) { /* the type's name shows */ }
    var shown = {};
    var stream = new EventSource("/v1/reminders/stream");
    stream.addEventListener("open", function () { region.dataset.connected = "true"; });
    stream.addEventListener("reminder", function (event) {
      var reminder;
      try { reminder = JSON.parse(event.data); } catch (malformed) { return; }
      if (!reminder.id || shown[reminder.id]) return;
      shown[reminder.id] = true;
      var task = reminder.task || {};
      var notice = document.createElement("p");
      notice.className = "live-notice";
      var label = document.createElement("strong");
      label.textContent = region.dataset.reminder + " ";
      notice.appendChild(label);
      notice.appendChild(document.createTextNode((verbs[task.type] || task.type || "") + " " + (reminder.plantName || "") + " "));
      var link = document.createElement("a");
      link.href = "/today";
      link.textContent = region.dataset.open;
      notice.appendChild(link);
      var dismiss = document.createElement("button");
      dismiss.type = "button";
      dismiss.className = "link";
      dismiss.textContent = region.dataset.dismiss;
      dismiss.addEventListener("click", function () { notice.remove(); });
      notice.appendChild(document.createTextNode(" "));
      notice.appendChild(dismiss);
      region.appendChild(notice);
    });
  });
})();

// Passkeys: added in Settings (navigator.credentials.create with the gateway's options) and used on the sign-in
// page (navigator.credentials.get) to a session cookie. Offered only where the browser reads WebAuthn's JSON forms.
(function () {
  function supported() {
    return window.PublicKeyCredential && PublicKeyCredential.parseCreationOptionsFromJSON && PublicKeyCredential.parseRequestOptionsFromJSON;
  }

  function post(path, body) {
    return fetch(path, {method: "POST", credentials: "same-origin", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)})
      .then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (answer) {
          if (!response.ok) throw new Error((answer.error && answer.error.message) || response.status + " " + response.statusText);
          return answer;
        });
      });
  }

  function failure(container, state) {
    return function (error) {
      // NotAllowedError: the person cancelled, or the authenticator refused; said as the browser words it.
      var reason = error && error.message ? error.message : String(error);
      document.getElementById(state).textContent = (container.dataset.failed || "").replace("{reason}", reason);
    };
  }

  async function addPasskey() {
    var options = await post("/v1/passkeys:beginRegistration", {});
    var credential = await navigator.credentials.create({publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options)});
    var name = document.getElementById("passkey-name").value.trim();
    await post("/v1/passkeys", {credential: credential.toJSON(), name: name});
    window.location.assign("/settings?done=passkeyAdded");
  }

  async function signIn() {
    var options = await post("/v1/sessions:beginPasskey", {});
    var credential = await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options)});
    await post("/v1/sessions:passkey", {credential: credential.toJSON(), cookie: true});
    window.location.assign("/today");
  }

  document.addEventListener("DOMContentLoaded", function () {
    if (!supported()) return;
    var settings = document.getElementById("passkeys");
    if (settings) {
      document.getElementById("passkey-add").hidden = false;
      document.getElementById("passkey-create").addEventListener("click", function () {
        addPasskey().catch(failure(settings, "passkey-state"));
      });
    }
    var signInBox = document.getElementById("passkey-signin");
    if (signInBox) {
      signInBox.hidden = false;
      document.getElementById("passkey-signin-button").addEventListener("click", function () {
        signIn().catch(failure(signInBox, "passkey-signin-state"));
      });
    }
  });
})();

// PlantGuide's service worker: keeps the app's files and the last-seen Today and My plants, so that they open
// without a connection; keeps a task done, put off or skipped without a connection until it can be sent; shows
// reminders that arrive by Web Push, with Done and Tomorrow buttons that work without opening the app. The gateway
// fills in the files' current names, a version (so a new build replaces the cache) and the reader's words. Served
// from /sw.js (scope: the whole app).
"use strict";
const VERSION = "__VERSION__";
const SHELL = __SHELL__;
const WORDS = __WORDS__;
const CACHE = "plantguide-" + VERSION;
const QUEUE = "plantguide-queue";
const KEPT_PAGES = ["/today", "/plants"];
const TASK_ACTION = /^\/tasks\/[^/]+\/(complete|snooze|skip|reopen)$/;

self.addEventListener("install", event => {
  event.waitUntil(caches.open(CACHE).then(cache => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", event => {
  event.waitUntil(caches.keys()
    .then(keys => Promise.all(keys.filter(key => key !== CACHE && key !== QUEUE).map(key => caches.delete(key))))
    .then(() => self.clients.claim())
    .then(sendQueued));
});

self.addEventListener("fetch", event => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "POST" && TASK_ACTION.test(url.pathname)) {
    event.respondWith(fetch(request.clone()).catch(() => queue(url.pathname, request.headers.get("HX-Request") === "true")));
    return;
  }
  if (request.method !== "GET") return;
  if (url.pathname.startsWith("/static/")) {
    event.respondWith(caches.match(request).then(hit => hit || fetch(request)));
    return;
  }
  if (request.mode === "navigate" && KEPT_PAGES.includes(url.pathname)) {
    // The network first, so that pages are current; the copy last seen when it cannot be reached.
    event.respondWith(fetch(request).then(response => {
      if (response.ok && !response.redirected) {
        const copy = response.clone();
        caches.open(CACHE).then(cache => cache.put(url.pathname, copy));
      }
      return response;
    }).catch(() => caches.match(url.pathname, {ignoreVary: true}).then(hit => hit || Response.error())));
  }
});

// The page says when the connection is back (a service worker hears no "online" of its own).
self.addEventListener("message", event => {
  if (event.data === "online") event.waitUntil(sendQueued());
});

self.addEventListener("sync", event => {
  if (event.tag === "plantguide-queue") event.waitUntil(sendQueued());
});

// A task's action taken without a connection: kept (one entry per task and action, so pressing twice keeps one) and
// answered with the row htmx swaps in, saying it will be sent.
async function queue(path, byScript) {
  const cache = await caches.open(QUEUE);
  await cache.put(path, new Response(String(Date.now())));
  if (self.registration.sync) self.registration.sync.register("plantguide-queue").catch(() => {});
  const id = escapeHTML(decodeURIComponent(path.split("/")[2]));
  const row = `<li id="task-${id}" class="task done" role="status">${WORDS.queued}</li>`;
  return byScript ? new Response(row, {status: 200, headers: {"Content-Type": "text/html; charset=utf-8"}})
    : Response.redirect("/today", 303);
}

function escapeHTML(text) {
  return text.replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"})[c]);
}

// Sends what was kept, oldest first. A task's actions are idempotent on the server (done twice is done once), so a
// send that was cut off is simply sent again. Kept until the server answers; a refusal (the task is gone, the
// session ended) is not sent again.
async function sendQueued() {
  const cache = await caches.open(QUEUE);
  const kept = await cache.keys();
  const entries = await Promise.all(kept.map(async request => [request, Number(await (await cache.match(request)).text())]));
  entries.sort((a, b) => a[1] - b[1]);
  for (const [request] of entries) {
    let response;
    try {
      response = await fetch(new URL(request.url).pathname, {method: "POST", headers: {"HX-Request": "true"}, credentials: "same-origin"});
    } catch (offline) {
      return;
    }
    if (response.status >= 500) return;
    await cache.delete(request);
  }
}

// A push is scheduling's reminder in Declarative Web Push's form: `notification` (title, body, lang, tag) with the
// reminder itself in its `data`. Safari shows such a message by itself where no service worker runs; here the worker
// shows it, with the buttons a reminder has.
self.addEventListener("push", event => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch (notJSON) {
    message = {notification: {title: event.data ? event.data.text() : ""}};
  }
  event.waitUntil(showReminder(message.notification || {}));
});

// A reminder as a notification: one per task (a later one replaces it), with Done and Tomorrow when it names a task.
function showReminder(notification) {
  const reminder = notification.data || {};
  const actions = reminder.taskId ? [{action: "complete", title: WORDS.done}, {action: "snooze", title: WORDS.snooze}] : [];
  return self.registration.showNotification(notification.title || "PlantGuide", {
    body: notification.body || "", lang: notification.lang || "", tag: notification.tag || reminder.taskId || "plantguide",
    data: reminder, actions, icon: WORDS.icon,
  });
}

self.addEventListener("notificationclick", event => {
  event.waitUntil(answerNotification(event.notification, event.action));
});

// Done or Tomorrow: the task's action, sent (or kept until there is a connection) without opening the app; a tap
// elsewhere on the notification opens the plant's page, in a window of the app when there is one.
async function answerNotification(notification, action) {
  notification.close();
  const reminder = notification.data || {};
  if ((action === "complete" || action === "snooze") && reminder.taskId) {
    const path = `/tasks/${encodeURIComponent(reminder.taskId)}/${action}`;
    try {
      const response = await fetch(path, {method: "POST", headers: {"HX-Request": "true"}, credentials: "same-origin"});
      if (response.status >= 500) await queue(path, true);
    } catch (offline) {
      await queue(path, true);
    }
    return;
  }
  const target = reminder.url || "/today";
  const windows = await self.clients.matchAll({type: "window", includeUncontrolled: true});
  const open = windows.find(client => "focus" in client);
  if (open) return open.navigate(target).then(client => client && client.focus());
  return self.clients.openWindow(target);
}

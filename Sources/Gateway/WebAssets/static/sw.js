// PlantGuide's service worker: keeps the app's files and the last-seen Today and My plants, so that they open
// without a connection. The gateway fills in the files' current names and a version, so a new build replaces the
// cache. Served from /sw.js (scope: the whole app).
"use strict";
const VERSION = "__VERSION__";
const SHELL = __SHELL__;
const CACHE = "plantguide-" + VERSION;
const KEPT_PAGES = ["/today", "/plants"];

self.addEventListener("install", event => {
  event.waitUntil(caches.open(CACHE).then(cache => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", event => {
  event.waitUntil(caches.keys()
    .then(keys => Promise.all(keys.filter(key => key !== CACHE).map(key => caches.delete(key))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", event => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
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

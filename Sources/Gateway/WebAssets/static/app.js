// PlantGuide's own script: what server-rendered pages and htmx do not, with no inline code (the page's CSP allows
// scripts from this origin only). Shows an offline banner while the browser has no connection.
"use strict";
(function () {
  function showConnection() {
    var banner = document.getElementById("offline");
    if (banner) banner.hidden = navigator.onLine;
  }
  window.addEventListener("online", showConnection);
  window.addEventListener("offline", showConnection);
  document.addEventListener("DOMContentLoaded", showConnection);
})();

// The service worker keeps the app's files and the last-seen pages for when the connection is gone.
if ("serviceWorker" in navigator) {
  window.addEventListener("load", function () {
    navigator.serviceWorker.register("/sw.js").catch(function () { /* the app works without it, online */ });
  });
}

// Outrider console: the only script besides the vendored htmx (the CSP allows no inline script).
// Keeps "waiting" and "expires in" times ticking between server updates. Text only, never HTML.
(function () {
  "use strict";

  function span(seconds) {
    seconds = Math.max(0, Math.floor(seconds));
    var d = Math.floor(seconds / 86400), h = Math.floor((seconds % 86400) / 3600);
    var m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
    if (d) return d + "d " + h + "h";
    if (h) return h + "h " + m + "m";
    if (m) return m + "m " + s + "s";
    return s + "s";
  }

  function tick() {
    var now = Date.now();
    document.querySelectorAll("time[data-since]").forEach(function (el) {
      var t = Date.parse(el.getAttribute("data-since"));
      if (!isNaN(t)) el.textContent = span((now - t) / 1000);
    });
    document.querySelectorAll("time[data-until]").forEach(function (el) {
      var t = Date.parse(el.getAttribute("data-until"));
      if (!isNaN(t)) el.textContent = t > now ? "in " + span((t - now) / 1000) : "now";
    });
  }

  setInterval(tick, 1000);

  // The live indicator of pages with an SSE stream: "live" while connected, else "reconnecting".
  function live(state, text) {
    document.body.setAttribute("data-live", state);
    document.querySelectorAll(".live-status").forEach(function (el) { el.textContent = text; });
  }
  document.addEventListener("htmx:sseOpen", function () { live("open", "live"); });

  // The pending count in the tab title, kept live: the list's count arrives with each SSE update.
  function pendingTitle() {
    var el = document.getElementById("pending-count");
    if (!el) return;
    var n = el.getAttribute("data-total");
    if (n !== null && /^[0-9]+$/.test(n)) document.title = document.title.replace(/^(\([0-9]+\) )?/, "(" + n + ") ");
  }
  document.addEventListener("htmx:oobAfterSwap", pendingTitle);
  document.addEventListener("htmx:afterSwap", pendingTitle);
  document.addEventListener("htmx:sseError", function () { live("error", "reconnecting…"); });
})();

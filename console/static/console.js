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

  // Keyboard: j/k move through the pending list, Enter opens; on a request, a approves, r rejects (the
  // comment is the reason: r focuses it, Ctrl+Enter there rejects), e edits; ? lists the keys. Every one
  // of these is a shortcut to a link or button that works without JavaScript.
  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll("#pending-table tbody tr[data-href]"));
  }
  var selected = null;  // the approval id of the selected row (kept across live updates)
  function select(index) {
    var all = rows();
    if (!all.length) return;
    index = Math.max(0, Math.min(all.length - 1, index));
    all.forEach(function (tr) { tr.classList.remove("selected"); tr.removeAttribute("aria-selected"); });
    var tr = all[index];
    tr.classList.add("selected");
    tr.setAttribute("aria-selected", "true");
    selected = tr.getAttribute("data-approval-id");
    var link = tr.querySelector("a");
    if (link) link.focus({ preventScroll: true });
    tr.scrollIntoView({ block: "nearest" });
  }
  function current() {
    var all = rows();
    for (var i = 0; i < all.length; i++) if (all[i].getAttribute("data-approval-id") === selected) return i;
    return -1;
  }
  document.addEventListener("htmx:oobAfterSwap", function () {
    var i = current();
    if (i >= 0) rows()[i].classList.add("selected");
  });
  function click(selector) {
    var el = document.querySelector(selector);
    if (el) { el.click(); return true; }
    return false;
  }
  function toggleHelp(show) {
    var help = document.getElementById("keys-help");
    if (!help) return;
    help.hidden = show === undefined ? !help.hidden : !show;
  }
  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    var typing = t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
    if (typing) {
      if (t.id === "comment" && ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
        ev.preventDefault();
        click("#decide button[value=reject]");
      } else if (ev.key === "Escape") {
        t.blur();
      }
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var key = ev.key;
    if (key === "?") { toggleHelp(); ev.preventDefault(); return; }
    if (key === "Escape") { toggleHelp(false); return; }
    if (document.getElementById("pending-table")) {
      if (key === "j" || key === "k") {
        var i = current();
        select(i < 0 ? 0 : i + (key === "j" ? 1 : -1));
        ev.preventDefault();
      } else if (key === "Enter" && current() >= 0) {
        window.location.assign(rows()[current()].getAttribute("data-href"));
        ev.preventDefault();
      }
      return;
    }
    if (!document.getElementById("decide")) return;
    if (key === "a") {
      if (click("#decide button[value=approve]")) ev.preventDefault();
    } else if (key === "r") {
      var comment = document.getElementById("comment");
      if (!comment) return;
      ev.preventDefault();
      if (comment.value.trim()) { click("#decide button[value=reject]"); return; }
      comment.setAttribute("placeholder", "The reason for rejecting (required); Ctrl+Enter rejects");
      comment.focus();
    } else if (key === "e") {
      if (click("#decide a.edit")) ev.preventDefault();
    }
  });
})();

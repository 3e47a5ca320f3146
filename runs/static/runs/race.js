/* A live lesson's class race panel (runs/_race.html): fetched again when the lesson's socket
 * says the race changed (live.js dispatches "live:race"), and every 5 seconds while a race runs
 * (a page without a socket); the race's clock counts down from the server's time left.
 */
(function () {
  "use strict";
  if (window.damaRacePanel) return;
  window.damaRacePanel = true;
  var due = null, clock = null, poll = null;

  function panel() { return document.getElementById("race-panel"); }

  function refresh() {
    if (due) return;
    due = setTimeout(function () {
      due = null;
      var el = panel();
      if (!el || !window.htmx) return;
      window.htmx.ajax("GET", el.dataset.panelUrl, { target: "#race-panel", swap: "outerHTML" });
    }, 300);
  }

  function text(ms) {
    var s = Math.max(0, Math.ceil(ms / 1000));
    return Math.floor(s / 60) + ":" + (s % 60 < 10 ? "0" : "") + (s % 60);
  }

  function init() {
    var el = panel();
    if (clock) { clearInterval(clock); clock = null; }
    if (poll) { clearInterval(poll); poll = null; }
    if (!el || el.dataset.running !== "1") return;
    var until = performance.now() + Number(el.dataset.remainingMs || 0);
    var shown = el.querySelector("[data-race-clock]");
    function tick() {
      var left = until - performance.now();
      if (shown) shown.textContent = text(left);
      if (left <= 0) { clearInterval(clock); clock = null; refresh(); }
    }
    tick();
    clock = setInterval(tick, 500);
    poll = setInterval(refresh, 5000);
  }

  document.addEventListener("live:race", refresh);
  document.addEventListener("htmx:afterSettle", function (ev) {
    if (ev.detail && ev.detail.elt && ev.detail.elt.id === "race-panel") init();
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

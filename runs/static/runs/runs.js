/* A storm's clock on the page. The server keeps the clock (the run's deadline): each answer
 * carries the seconds left as the server counts them (data-remaining-ms on #run), and the page
 * counts down from there until the next answer. At zero the page asks the server for the run
 * (which ends it there) instead of deciding anything itself. The time left is said to a screen
 * reader at each minute and at 30 and 10 seconds (#run-clock-say), not every second.
 */
(function () {
  "use strict";
  var timer = null;

  function text(ms) {
    var s = Math.max(0, Math.ceil(ms / 1000));
    var m = Math.floor(s / 60);
    s = s % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  function start(run) {
    if (timer) { clearInterval(timer); timer = null; }
    if (!run || !run.dataset.remainingMs || run.dataset.state !== "playing") return;
    var clock = run.querySelector("[data-clock]");
    var say = document.getElementById("run-clock-say");
    var until = performance.now() + Number(run.dataset.remainingMs);
    var lastSaid = null;
    function tick() {
      var left = until - performance.now();
      if (clock) {
        clock.textContent = text(left);
        clock.classList.toggle("low", left < 10000);
      }
      var s = Math.max(0, Math.ceil(left / 1000));
      if (say && s !== lastSaid && s > 0 && (s % 60 === 0 || s === 30 || s === 10)) {
        lastSaid = s;
        say.textContent = (say.dataset.template || "{time}").replace("{time}", text(left));
      }
      if (left <= 0) {
        clearInterval(timer); timer = null;
        if (window.htmx) window.htmx.ajax("GET", run.dataset.pageUrl, { target: "#run", swap: "outerHTML" });
        else window.location.reload();
      }
    }
    tick();
    timer = setInterval(tick, 250);
  }

  function init() { start(document.getElementById("run")); }
  document.addEventListener("htmx:afterSettle", init);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

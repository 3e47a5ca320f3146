/* The square trainer's clock (squares/templates/squares/run.html).
 *
 * The server keeps the time: the page gets the milliseconds left (data-remaining-ms) with every
 * question and only counts them down for the eye; the live region says "10 seconds left" once
 * and "Time is up" at the end, and then the run's page is loaded again: the server shows the
 * score (an answer after the deadline does not count, whatever this clock shows). In "name this
 * square" the answer box gets the focus back after each question.
 */
(function () {
  "use strict";
  var timer = null;
  function start(root) {
    var clock = (root || document).querySelector("[data-squares-clock]");
    if (timer) { window.clearInterval(timer); timer = null; }
    if (!clock) return;
    var live = document.querySelector("[data-squares-said]");
    var end = Date.now() + Number(clock.dataset.remainingMs || 0);
    var warned = false;
    function tick() {
      var left = Math.max(0, end - Date.now());
      clock.textContent = Math.ceil(left / 1000) + " s";
      if (!warned && left <= 10000 && left > 0) {
        warned = true;
        if (live) live.textContent = clock.dataset.msgTen || "";
      }
      if (left <= 0) {
        window.clearInterval(timer);
        timer = null;
        if (live) live.textContent = clock.dataset.msgOver || "";
        window.location.assign(clock.dataset.runUrl);
      }
    }
    tick();
    timer = window.setInterval(tick, 250);
  }
  document.addEventListener("htmx:load", function (ev) {
    var elt = ev.detail && ev.detail.elt;
    if (elt && elt.querySelector && (elt.matches("#squares-run") || elt.querySelector("#squares-run"))) start(document);
  });
  document.addEventListener("htmx:afterSettle", function () {
    var input = document.querySelector("[data-squares-input]");
    if (input) input.focus();
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { start(document); });
  else start(document);
})();

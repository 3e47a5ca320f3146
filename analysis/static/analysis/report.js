/* The game report (analysis/templates/analysis/report.html): stepping through the positions by
 * keyboard, the chart's points, and where the focus goes when the position is swapped.
 *
 * Every position is a real link (?ply=N) that htmx swaps into #report-view; without a script they
 * are plain links. Here: Left and Right step to the move before and after, Home to the start and
 * End to the final position (the step links), anywhere but in a field or on a slider; a click on
 * the chart follows the same link as the chart's list in words, so that htmx swaps it too.
 */
(function () {
  "use strict";
  var STEPS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
  var OWN_KEYS = "input, textarea, select, summary, [contenteditable], [role=application], [role=slider]";

  // a step pressed while the last one is still on its way waits for it (a held key, quick presses)
  var busy = false;
  var queued = [];

  function go(step) {
    var link = document.querySelector('#report-view [data-step="' + step + '"][href]');
    if (!link) return false;
    busy = true;
    link.click();
    return true;
  }

  document.addEventListener("keydown", function (ev) {
    var step = STEPS[ev.key];
    if (!step || ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    var target = ev.target;
    if (target && target.closest && target.closest(OWN_KEYS)) return;
    if (!document.getElementById("report-view")) return;
    ev.preventDefault();
    if (busy) { if (queued.length < 10) queued.push(step); return; }
    go(step);
  });

  function next() {
    busy = false;
    while (queued.length && !go(queued.shift())) { /* a step that is not there: the next */ }
  }
  document.addEventListener("htmx:afterSettle", function (ev) {
    if (ev.detail && ev.detail.elt && ev.detail.elt.id === "engine-line") return;
    next();
  });
  document.addEventListener("htmx:responseError", function () { queued = []; busy = false; });
  document.addEventListener("htmx:sendError", function () { queued = []; busy = false; });

  document.addEventListener("click", function (ev) {
    var point = ev.target && ev.target.closest ? ev.target.closest("[data-chart] a[data-point]") : null;
    if (!point || ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    var same = document.querySelector('#report-view .eval-list a[data-ply="' + point.getAttribute("data-ply") + '"]');
    if (!same) return; // the SVG link is followed as it is
    ev.preventDefault();
    refocus = null;
    same.click();
  });

  var refocus = null;
  document.addEventListener("htmx:beforeRequest", function () {
    var active = document.activeElement;
    if (!active || !active.closest || !active.closest("#report-view")) { refocus = null; return; }
    if (active.dataset.step) refocus = '#report-view [data-step="' + active.dataset.step + '"][href]';
    else if (active.closest(".eval-list")) refocus = "#report-view .eval-list [aria-current]";
    else if (active.hasAttribute("data-ply")) refocus = "#report-view .move-pairs [aria-current]";
    else refocus = null;
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (!refocus) return;
    var wanted = document.querySelector(refocus) || document.querySelector("#report-view .move-pairs [aria-current]");
    refocus = null;
    if (wanted) wanted.focus();
  });
})();

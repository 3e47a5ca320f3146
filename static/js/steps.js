/* Stepping through a game's moves, on the game pages (play's and versus's): the move list
 * (section.game-moves) has real links to each position and the step links ([data-step] first,
 * prev, next, last) that htmx swaps in.
 *
 * Left and Right step to the move before and after, Home to the start position and End to the
 * game as it stands, anywhere but in a field, on the board that takes moves (its own arrow keys)
 * or on a slider. When a step, a move of the list or the way back to the game had the focus, it
 * goes to the same step, to the move shown or to the board once the region is swapped. A key
 * pressed while a step is on its way is kept and played once the new region has settled (the
 * links it would follow are those of the region being replaced), so no press is lost.
 */
(function () {
  "use strict";
  var STEPS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
  var OWN_KEYS = "input, textarea, select, summary, [contenteditable], [role=application], [role=slider]";

  var stepping = false, pending = null;

  function go(step) {
    var link = document.querySelector('.game-moves [data-step="' + step + '"][href]');
    if (!link) return false;
    link.click();
    return true;
  }

  document.addEventListener("keydown", function (ev) {
    var step = STEPS[ev.key];
    if (!step || ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    var target = ev.target;
    if (target && target.closest && target.closest(OWN_KEYS)) return;
    if (stepping) { ev.preventDefault(); pending = step; return; }
    if (document.querySelector('.game-moves [data-step="' + step + '"][href]')) {
      ev.preventDefault();
      go(step);
    }
  });

  var refocus = null;
  document.addEventListener("htmx:beforeRequest", function (ev) {
    var source = ev.detail && ev.detail.elt;
    if (source && source.closest && source.closest(".game-moves")) stepping = true;
    var active = document.activeElement;
    refocus = null;
    if (!active || !active.dataset) return;
    if (active.dataset.step) refocus = '.game-moves [data-step="' + active.dataset.step + '"][href]';
    else if (active.hasAttribute("data-ply")) refocus = ".game-moves [data-ply][aria-current]";
    else if (active.hasAttribute("data-back-to-game")) refocus = ".board-svg";
  });
  function settled() {
    stepping = false;
    if (refocus) {
      var wanted = document.querySelector(refocus) || document.querySelector(".game-moves [data-ply][aria-current]");
      refocus = null;
      if (wanted) wanted.focus();
    }
    if (pending) { var step = pending; pending = null; go(step); }
  }
  document.addEventListener("htmx:afterSettle", settled);
  // a step that fails (the network, a 400) does not hold the keys up
  document.addEventListener("htmx:afterRequest", function (ev) {
    if (ev.detail && ev.detail.failed) { stepping = false; pending = null; }
  });
})();

/* The site's frame. Loaded in <head> without defer, so that what it sets is there before the
 * page is first drawn (the policy runs no inline script, so this is a file):
 *
 * - the class "js" on <html>: the stylesheet folds the header's links under the menu button
 *   only when this script runs (without it they wrap onto more rows);
 * - the board size the visitor chose (the resize handle of board.js, kept in localStorage under
 *   "dama.board-zoom"): the class board-zoom-NN on <html> (NN from 50 to 95 in steps of 5; none
 *   is the largest), which the stylesheet turns into --board-zoom;
 * - once the page is read, the header's menu button: it opens and closes the links
 *   (aria-expanded), the focus goes to the first link when it opens, Escape closes it and gives
 *   the focus back to the button, and it closes when the focus or a click leaves the header.
 */
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("js");
  try {
    var zoom = Number(window.localStorage.getItem("dama.board-zoom"));
    if (zoom >= 50 && zoom < 100 && zoom % 5 === 0) root.classList.add("board-zoom-" + zoom);
  } catch (e) { /* storage refused: the largest board */ }

  function menu() {
    var toggle = document.querySelector("[data-menu-toggle]");
    var panel = document.querySelector("[data-site-menu]");
    var header = toggle && toggle.closest("header");
    if (!toggle || !panel || !header) return;
    function isOpen() { return toggle.getAttribute("aria-expanded") === "true"; }
    function close(giveFocusBack) {
      if (!isOpen()) return;
      toggle.setAttribute("aria-expanded", "false");
      panel.classList.remove("is-open");
      if (giveFocusBack) toggle.focus();
    }
    function open() {
      toggle.setAttribute("aria-expanded", "true");
      panel.classList.add("is-open");
      var first = panel.querySelector("a[href], button, summary");
      if (first) first.focus();
    }
    toggle.addEventListener("click", function () {
      if (isOpen()) close(true); else open();
    });
    header.addEventListener("keydown", function (ev) {
      if (ev.key !== "Escape" || !isOpen()) return;
      var details = ev.target.closest && ev.target.closest("details[open]");
      if (details) return; // Escape closes the variant menu first (see below)
      ev.preventDefault();
      close(true);
    });
    // the variant menu (a <details>) inside: Escape closes it and keeps the focus on its summary
    header.addEventListener("keydown", function (ev) {
      var details = ev.key === "Escape" && ev.target.closest && ev.target.closest("details[open]");
      if (!details) return;
      ev.preventDefault();
      details.open = false;
      var summary = details.querySelector("summary");
      if (summary) summary.focus();
    });
    header.addEventListener("focusout", function (ev) {
      if (ev.relatedTarget && !header.contains(ev.relatedTarget)) close(false);
    });
    document.addEventListener("click", function (ev) {
      if (!header.contains(ev.target)) close(false);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", menu);
  else menu();
})();

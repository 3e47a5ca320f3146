/* The puzzle trainer: a short slide of the defender's reply, and the solution replay stepper.
 *
 * The board itself is the board component (board.js, lesson mode: the server judges every click).
 * After a right move the server answers with the board after the defender's reply and its route
 * in data-animate="from,...,to": the piece on "to" slides in from "from". A finished puzzle has
 * its solution as a list of frames (one diagram per move); here they become a stepper with
 * Previous / Play / Next (without JavaScript the frames are simply listed).
 */
(function () {
  "use strict";
  var reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

  function animate(widget) {
    var route = (widget.dataset.animate || "").split(",").filter(Boolean).map(Number);
    if (route.length < 2 || reduce || widget.dataset.animated) return;
    widget.dataset.animated = "1";
    var svg = widget.querySelector("svg");
    if (!svg) return;
    var to = svg.querySelector('[data-square="' + route[route.length - 1] + '"]');
    var piece = to && to.querySelector("[data-piece]");
    if (!piece || !piece.animate) return;
    var boxes = route.map(function (sq) {
      var el = svg.querySelector('[data-square="' + sq + '"]');
      return el ? el.getBBox() : null;
    });
    if (boxes.some(function (b) { return !b; })) return;
    var end = boxes[boxes.length - 1];
    var frames = boxes.map(function (b) {
      return { transform: "translate(" + (b.x - end.x) + "px," + (b.y - end.y) + "px)" };
    });
    piece.animate(frames, { duration: 220 * (route.length - 1) + 120, easing: "ease-in-out" });
  }

  function replay(section) {
    if (section.dataset.ready) return;
    section.dataset.ready = "1";
    var frames = Array.prototype.slice.call(section.querySelectorAll("[data-frame]"));
    var controls = section.querySelector(".replay-controls");
    if (frames.length < 2 || !controls) return;
    var count = section.querySelector("[data-replay-count]");
    var index = 0, timer = null;
    function show(i) {
      index = Math.max(0, Math.min(frames.length - 1, i));
      frames.forEach(function (f, n) { f.hidden = n !== index; });
      var caption = frames[index].querySelector("figcaption");
      if (count) count.textContent = (index + 1) + " / " + frames.length + (caption ? " · " + caption.textContent : "");
    }
    function stop() { if (timer) { clearInterval(timer); timer = null; } }
    controls.hidden = false;
    section.classList.add("stepper");
    section.querySelector("[data-replay-prev]").addEventListener("click", function () { stop(); show(index - 1); });
    section.querySelector("[data-replay-next]").addEventListener("click", function () { stop(); show(index + 1); });
    section.querySelector("[data-replay-play]").addEventListener("click", function () {
      stop();
      if (index >= frames.length - 1) show(0);
      timer = setInterval(function () {
        if (index >= frames.length - 1) { stop(); return; }
        show(index + 1);
      }, 900);
    });
    show(0);
  }

  function initAll(root) {
    var scope = root || document;
    scope.querySelectorAll("[data-animate]").forEach(animate);
    scope.querySelectorAll("[data-replay]").forEach(replay);
    if (root && root.matches && root.matches("[data-replay]")) replay(root);
  }
  document.addEventListener("htmx:load", function (ev) { initAll(ev.detail.elt); });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { initAll(document); });
  else initAll(document);
})();

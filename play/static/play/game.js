/* The game page (play/templates/play/game.html): the clocks, and the sound of the moves.
 *
 * The clocks: the server gives each clock's time left in data-ms and marks the one that runs
 * (data-running); here they count down from it. The server alone judges a clock (play.Game.flag):
 * when the player's clock reaches zero the page asks for the game again (the event "clock-out",
 * an htmx request of the clocks' element) and the server says the game is lost, or gives the
 * time it still sees. Screen readers hear the player's time when the computer has moved (the
 * feedback) and when one minute, 30 and 10 seconds are left (an aria-live region of its own),
 * never every second.
 *
 * The sound (static/js/sound.js, one choice for the whole site): a move new to the page
 * (data-plies grew, data-kinds says which were captures) sounds once.
 *
 * The moves by keyboard, and the focus across a swap: static/js/steps.js.
 */
(function () {
  "use strict";
  var TICK_MS = 200;
  var SAY_AT = [60, 30, 10];

  // -- the clocks ------------------------------------------------------------------------------

  var ticking = null;

  function text(ms) {
    var s = Math.max(0, Math.ceil(ms / 1000));
    var r = s % 60;
    return Math.floor(s / 60) + ":" + (r < 10 ? "0" : "") + r;
  }

  function clocks(root) {
    var box = root.querySelector("[data-clocks]");
    if (ticking) { window.clearInterval(ticking); ticking = null; }
    if (!box) return;
    var began = Date.now();
    var said = box.querySelector("[data-clock-say]");
    var all = Array.prototype.slice.call(box.querySelectorAll("[data-clock]")).map(function (el) {
      return {
        el: el,
        time: el.querySelector("[data-clock-time]"),
        ms: Number(el.dataset.ms) || 0,
        running: el.hasAttribute("data-running"),
        player: el.dataset.clock === "player",
        out: false
      };
    });
    var running = all.filter(function (c) { return c.running; });
    if (!running.length) return;
    function tick() {
      var gone = Date.now() - began;
      running.forEach(function (c) {
        var left = c.ms - gone;
        c.time.textContent = text(left);
        c.el.classList.toggle("low", left <= 30000);
        if (!c.player) return;
        SAY_AT.forEach(function (s) {
          // said once, when the clock passes the mark (not when the page opens below it)
          if (c.ms > s * 1000 && left <= s * 1000 && !c["said" + s]) {
            c["said" + s] = true;
            if (said) said.textContent = box.getAttribute("data-msg-" + s) || "";
          }
        });
        if (left <= 0 && !c.out) {
          c.out = true;
          box.dispatchEvent(new CustomEvent("clock-out", { bubbles: false }));
        }
      });
    }
    tick();
    ticking = window.setInterval(tick, TICK_MS);
  }

  // -- the sound (static/js/sound.js) -----------------------------------------------------------

  function moves(region) {
    if (window.DamaSound) window.DamaSound.follow(region.dataset.game, region.dataset.plies, region.dataset.kinds);
  }

  // -- setting up ------------------------------------------------------------------------------

  function init(root) {
    var region = root && root.id === "game" ? root : document.getElementById("game");
    if (!region || region.dataset.gameReady) return;
    region.dataset.gameReady = "1";
    if (window.DamaSound) window.DamaSound.ready();
    clocks(region);
    moves(region);
  }

  document.addEventListener("htmx:load", function (ev) { init(ev.detail.elt); });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { init(document); });
  else init(document);
})();

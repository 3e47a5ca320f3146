/* The sound of the moves, one choice for the whole site: the game against the computer
 * (play/static/play/game.js) and the game between players (versus/static/versus/versus.js).
 *
 * Off unless the player turns it on (a button [data-sound-toggle], aria-pressed), remembered in
 * localStorage ("dama.sound"); tones made with WebAudio, no file, nothing from the network. A
 * short wooden tock for a move, two lower knocks for a capture.
 *
 *   DamaSound.ready()                  the toggle button shown and working (once a page)
 *   DamaSound.follow(game, plies, kinds)
 *                                      the moves of ``game`` (any key) the page now shows:
 *                                      ``plies`` of them, ``kinds`` a string of "m" (a move) and
 *                                      "c" (a capture) per ply, its last letter the last ply's
 *                                      (it may give only the last ones). The first call for a game only
 *                                      counts them (nothing sounds on the page's load); a later
 *                                      one sounds the plies new since (at most the last two),
 *                                      once each, whoever told of them first
 *   DamaSound.play(kinds)              ["m", "c", ...] sounded now, when the sound is on
 *
 * What sounded is written on the button (data-sounded="m,c"), for the tests.
 */
(function () {
  "use strict";
  var SOUND_KEY = "dama.sound";
  var audio = null;
  var seen = {}; // game -> the plies the page has shown

  function isOn() {
    try { return window.localStorage.getItem(SOUND_KEY) === "1"; } catch (e) { return false; }
  }

  function context() {
    if (!audio) {
      var Maker = window.AudioContext || window.webkitAudioContext;
      if (!Maker) return null;
      try { audio = new Maker(); } catch (e) { return null; }
    }
    if (audio.state === "suspended" && audio.resume) audio.resume().catch(function () {});
    return audio;
  }

  function tone(ctx, at, from, to, length, type) {
    var osc = ctx.createOscillator();
    var gain = ctx.createGain();
    osc.type = type;
    osc.frequency.setValueAtTime(from, at);
    osc.frequency.exponentialRampToValueAtTime(to, at + length);
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.3, at + 0.006);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
    osc.connect(gain);
    gain.connect(ctx.destination);
    osc.start(at);
    osc.stop(at + length + 0.02);
  }

  function play(kinds) {
    var button = document.querySelector("[data-sound-toggle]");
    if (!kinds.length || !isOn()) return;
    if (button) button.dataset.sounded = kinds.join(",");
    var ctx = context();
    if (!ctx) return;
    var at = ctx.currentTime + 0.01;
    kinds.forEach(function (kind) {
      if (kind === "c") {
        tone(ctx, at, 300, 120, 0.09, "square");
        tone(ctx, at + 0.07, 240, 90, 0.1, "square");
      } else {
        tone(ctx, at, 620, 320, 0.08, "triangle");
      }
      at += 0.22;
    });
  }

  function follow(game, plies, kinds) {
    game = String(game);
    plies = Number(plies) || 0;
    var before = seen[game];
    seen[game] = plies;
    if (before === undefined || plies <= before) return; // the page's load, or a take-back
    kinds = String(kinds || "");
    var offset = plies - kinds.length; // kinds may give only the last plies' sounds
    var sounds = [];
    // at most the last two: a move and the reply that came with it
    for (var ply = Math.max(before, plies - 2); ply < plies; ply++) {
      sounds.push(kinds.charAt(ply - offset) === "c" ? "c" : "m");
    }
    window.DamaSound.play(sounds); // through the object: a test may watch it
  }

  function ready() {
    var button = document.querySelector("[data-sound-toggle]");
    if (!button || button.dataset.ready) return;
    button.dataset.ready = "1";
    button.hidden = false;
    button.setAttribute("aria-pressed", isOn() ? "true" : "false");
    button.addEventListener("click", function () {
      var on = !isOn();
      try {
        if (on) window.localStorage.setItem(SOUND_KEY, "1");
        else window.localStorage.removeItem(SOUND_KEY);
      } catch (e) { /* not kept: this page only */ }
      button.setAttribute("aria-pressed", on ? "true" : "false");
      if (on) context(); // made on the click: the browser lets a page sound after a gesture
    });
    // a page opened with the sound on may sound once the player has done something on it
    ["pointerdown", "keydown"].forEach(function (name) {
      document.addEventListener(name, function () { if (isOn()) context(); }, { once: true, capture: true });
    });
  }

  window.DamaSound = { isOn: isOn, play: play, follow: follow, ready: ready };
})();

/* A game between players: follows it over a WebSocket (moves played there too), or by polling,
 * runs the clocks, and keeps a premove.
 *
 * The page (versus/templates/versus/game.html) has #versus with data-ws-path (the socket) and
 * data-state-url (the game region; ?v=<version> answers 204 while nothing changed). The region
 * #versus-game says the version shown, the viewer's side (data-side) and whether it is their move
 * (data-my-turn).
 *
 * Following: the socket sends {type: "state", version, ...}. A player's page, and a spectator's
 * of a casual game, gets the move in it (route, notation, the side that played it), the clocks'
 * milliseconds and the side whose clock runs: the piece is moved on the board, the clocks set and
 * the move announced at once; then the region is fetched over HTTP (each viewer gets the game as
 * they may see it: a spectator of a rated game is sent the version alone, and sees the game a few
 * plies late) and swapped in; its data-announce is said in the aria-live line #versus-announce.
 * While the socket is down, and for good when it never opens, the page polls (static/js/follow.js,
 * which this page loads first).
 *
 * Moving: while the socket is open, a move entered on the board (clicked, or typed) is sent on it
 * as {type: "move", route | text, version} instead of the form's post; the answer comes back on
 * it (a refusal's rule and article are shown in #versus-feedback). A move sent on a version the
 * server has left is not played (it answers "conflict" and the page fetches the game). Without a
 * socket the form posts as before.
 *
 * Premove: while it is the opponent's move a player may enter one move on the board (a click on
 * the piece and one on its landing, the keyboard as on the board, or typed): it is shown
 * highlighted (the squares' class is-premove) with a line saying so, and sent as soon as the
 * opponent's move arrives when it is among the legal moves the server sent with it, else dropped
 * with a short note. Escape, a click on the board or the line's button cancels it.
 *
 * The sound (static/js/sound.js, off unless turned on): a move sounds once, as it arrives, from
 * the socket's news or from a region swapped in (data-plies, data-kinds), never on the page's
 * load. A page looking at an earlier position (?ply=N, data-viewing) keeps it: its board does
 * not move, and the region is fetched for that position.
 *
 * The running clock (data-running, data-ms: the milliseconds left when the region was made)
 * counts down here; at zero the server is asked (it judges the flag). Without JavaScript the page
 * reloads itself (a meta refresh).
 */
(function () {
  "use strict";

  function start(root) {
    var asking = false, flagAsked = 0;
    var sent = 0, premove = null, resetting = false;
    var announcer = document.getElementById("versus-announce");
    var note = root.querySelector("[data-premove-note]");

    // the region shows version N; the socket may have told of later ones (latest), shown on the
    // board at once while the region is fetched
    var latest = { version: 0, myTurn: null };
    var announced = 0; // the version whose move was announced from the socket
    function region() { return document.getElementById("versus-game"); }
    function version() { var r = region(); return r ? Number(r.dataset.version || 0) : 0; }
    function gameVersion() { return Math.max(version(), latest.version); }
    function side() { var r = region(); return r ? r.dataset.side || "" : ""; }
    function myTurn() {
      if (latest.version > version() && latest.myTurn !== null) return latest.myTurn;
      var r = region();
      return !!(r && r.dataset.myTurn === "1");
    }
    function playing() { var r = region(); return !!(r && r.dataset.state === "playing"); }
    function widget() { return document.getElementById("versus-board"); }
    function msg(name) { return root.dataset["msg" + name] || ""; }
    function announce(text) {
      if (!announcer || !text) return;
      announcer.textContent = "";
      window.setTimeout(function () { announcer.textContent = text; }, 50);
    }
    function fetchState() {
      if (asking) return;
      asking = true;
      var url = root.dataset.stateUrl + "?v=" + version() + viewingQuery();
      fetch(url, { credentials: "same-origin", headers: { "HX-Request": "true" } }).then(function (r) {
        return r.status === 200 ? r.text() : null;
      }).then(function (html) {
        asking = false;
        if (html) swap(html);
      }).catch(function () { asking = false; });
    }
    function swap(html) {
      var current = region();
      var m = /data-version="(\d+)"/.exec(html);
      if (!current || !m || Number(m[1]) <= version()) return;
      var active = document.activeElement;
      var typed = active && active.id === "versus-move" ? active.value : "";
      htmx.swap(current, html, { swapStyle: "outerHTML" });
      var again = document.getElementById("versus-move");
      if (typed && again) { again.value = typed; again.focus(); }
      var r = region();
      if (version() > announced) announce(r && r.dataset.announce);
      showPremove();
      if (latest.version > version()) fetchState(); // a later one was told meanwhile
    }

    // -- the socket (static/js/follow.js) -------------------------------------------------------
    var follower = null;
    function open() { return !!follower && follower.isOpen(); }
    function send(frame) { return !!follower && follower.send(frame); }
    function ping() { send({ type: "ping" }); }
    function onClose(ev) {
      if (ev.code === 4403) { follower.say(""); return true; }
      if (ev.code === 4429) { follower.say(msg("TooMany")); follower.startPolling(); return true; }
      return false;
    }
    function onMessage(data) {
      if (data.type === "state") onState(data);
      else if (data.type === "reply") onReply(data);
    }

    // -- the game's news: the move on the board at once, then the region over HTTP -------------
    function onState(data) {
      var known = gameVersion(), now = Number(data.version);
      if (!(now > known)) return;
      var move = data.move;
      if (move && now === known + 1 && data.state) {
        latest = { version: now, myTurn: !!side() && data.state === "playing" && move.by !== side() };
        if (!viewing()) playOnBoard(move.route, move.by); // a move clicked here is on the board already
        if (data.clocks) setClocks(data.clocks, data.running);
        heard(data.plies, move.notation);
        var said = side() && move.by !== side() ? msg("OpponentMoved").replace("{move}", move.notation) : "";
        if (premove && latest.myTurn && !playPremove(move.legal || [], now)) said += " " + msg("PremoveDropped");
        if (said) { announce(said.trim()); announced = now; }
      } else {
        latest = { version: now, myTurn: null };
        if (data.plies !== undefined && !move) heard(data.plies, ""); // a move taken back
      }
      if (premove && data.state && data.state !== "playing") dropPremove(msg("PremoveDropped"));
      fetchState();
    }
    // -- the sound of the moves (static/js/sound.js) and the position looked at (?ply=N) --------
    function viewing() { var r = region(); return !!(r && r.hasAttribute("data-viewing")); }
    function viewingQuery() { var r = region(); return viewing() ? "&ply=" + encodeURIComponent(r.dataset.viewing) : ""; }
    // a move told on the socket sounds at once (a capture as one), and not again with the region
    function heard(plies, notation) {
      var r = region();
      if (!window.DamaSound || plies === undefined || plies === null || !r) return;
      window.DamaSound.follow(r.dataset.game, plies, notation && notation.indexOf("x") >= 0 ? "c" : "m");
    }
    // a region swapped in (the poll, the socket's news, a form's answer): its new moves sound
    function arrived() {
      var r = region();
      if (window.DamaSound && r) window.DamaSound.follow(r.dataset.game, r.dataset.plies, r.dataset.kinds);
    }
    if (window.DamaSound) window.DamaSound.ready();
    arrived();
    document.addEventListener("htmx:load", arrived);

    function squareEl(svg, sq) { return svg.querySelector('[data-square="' + sq + '"]'); }
    function at(el) {
      var m = /translate\(([-\d.]+)[ ,]+([-\d.]+)\)/.exec(el.getAttribute("transform") || "");
      return m ? [Number(m[1]), Number(m[2])] : [0, 0];
    }
    // the move on the drawing: the piece to its last landing, the pieces it jumped taken off
    // (a crowning and the rest come with the region, fetched right after)
    function playOnBoard(route, by) {
      var w = widget();
      var svg = w && w.querySelector("svg");
      if (!svg || !route || route.length < 2) return;
      var from = squareEl(svg, route[0]), to = squareEl(svg, route[route.length - 1]);
      var piece = from && from.querySelector("[data-piece]");
      if (!piece || !to) return;
      var squares = Array.prototype.slice.call(svg.querySelectorAll("[data-square]"));
      for (var i = 1; i < route.length; i++) {
        var a = squareEl(svg, route[i - 1]), b = squareEl(svg, route[i]);
        if (!a || !b) continue;
        var pa = at(a), pb = at(b), dx = pb[0] - pa[0], dy = pb[1] - pa[1];
        squares.forEach(function (s) {
          var p = at(s), u = dx ? (p[0] - pa[0]) / dx : -1, v = dy ? (p[1] - pa[1]) / dy : -1;
          if (Math.abs(u - v) > 1e-6 || u <= 0 || u >= 1) return;
          var jumped = s.querySelector("[data-piece]");
          if (jumped && jumped.getAttribute("data-piece").charAt(0) !== by) jumped.remove();
        });
      }
      var there = to.querySelector("[data-piece]");
      if (there && there !== piece) there.remove();
      to.appendChild(piece);
    }
    function setClocks(clocks, running) {
      var r = region();
      if (!r) return;
      r.dataset.shownAt = String(Date.now());
      r.querySelectorAll(".versus-clock[data-side]").forEach(function (clock) {
        var s = clock.dataset.side, ms = clocks[s];
        if (ms === null || ms === undefined) return;
        clock.dataset.ms = String(ms);
        clock.classList.toggle("running", running === s);
        if (running === s) clock.dataset.running = "1"; else clock.removeAttribute("data-running");
        var out = clock.querySelector("[data-clock-time]");
        if (out && ms < 86400000) out.textContent = text(ms);
      });
    }

    // -- moves and answers over the socket ------------------------------------------------------
    function onReply(data) {
      var w = widget();
      var status = w && w.querySelector("[data-board-status]");
      if (data.kind === "moved" || data.kind === "done") return; // the news follows
      if (data.kind === "continue") {
        if (status) { status.textContent = data.message; status.classList.remove("error"); }
        return;
      }
      if (data.id === "premove") { dropPremove(msg("PremoveDropped")); fetchState(); return; }
      resetBoard();
      var feedback = document.getElementById("versus-feedback");
      if (feedback) {
        feedback.textContent = "";
        var p = document.createElement("p");
        p.className = "verdict " + (data.kind === "illegal" || data.kind === "turn" ? "wrong" : "bad");
        p.setAttribute("data-testid", data.kind === "conflict" ? "notice" : data.kind === "turn" ? "not-your-turn" : data.kind === "illegal" ? "illegal" : "notice");
        p.textContent = data.message;
        feedback.appendChild(p);
        if (data.article) {
          var a = document.createElement("p");
          a.className = "article";
          a.setAttribute("data-testid", "article");
          a.textContent = msg("Rule") + ": " + data.article;
          feedback.appendChild(a);
        }
      }
      if (status) { status.textContent = data.message; status.classList.add("error"); }
      if (data.kind === "conflict" || data.kind === "over") fetchState();
    }
    // the board's own choice cancelled (its Escape), not the premove
    function resetBoard() {
      var w = widget();
      var holder = w && w.querySelector(".board-svg");
      if (!holder) return;
      resetting = true;
      holder.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
      resetting = false;
      var status = w.querySelector("[data-board-status]");
      if (status) status.textContent = "";
    }
    function entered(form) {
      var input = form.querySelector("[data-move-input]");
      var typed = input ? input.value.trim() : "";
      var route = (form.querySelector("[name=route]") || {}).value || "";
      if (typed) return { text: typed.slice(0, 200) };
      var squares = route.split(",").filter(Boolean).map(Number);
      return squares.length ? { route: squares } : null;
    }
    // capture phase on the page: before the board reads the form and before htmx posts it
    root.addEventListener("submit", function (ev) {
      var form = ev.target;
      if (!form.matches || !form.matches("#versus-board form.move-form")) return;
      if (!side() || !playing() || !open()) return; // posted over HTTP
      var move = entered(form);
      if (!move) return;
      ev.preventDefault();
      ev.stopPropagation();
      var input = form.querySelector("[data-move-input]");
      form.querySelector("[name=route]").value = "";
      if (myTurn()) {
        sent += 1;
        send({ type: "move", route: move.route, text: move.text, version: gameVersion(), id: sent });
        if (input && move.text) input.value = "";
        return;
      }
      setPremove(move);
      if (input) input.value = "";
      resetBoard();
      showPremove();
      announce(msg("PremoveSet").replace("{move}", premoveText()));
    }, true);

    // -- the premove ----------------------------------------------------------------------------
    function setPremove(move) { premove = move; }
    function premoveText() {
      return premove ? (premove.text || premove.route.join("-")) : "";
    }
    function showPremove() {
      var w = widget();
      var svg = w && w.querySelector("svg");
      if (svg) svg.querySelectorAll(".is-premove").forEach(function (el) { el.classList.remove("is-premove"); });
      if (svg && premove && premove.route) {
        premove.route.forEach(function (sq) { var el = squareEl(svg, sq); if (el) el.classList.add("is-premove"); });
      }
      if (!note) return;
      note.hidden = !premove;
      var line = note.querySelector("[data-premove-text]");
      if (line && premove) line.textContent = msg("PremoveSet").replace("{move}", premoveText());
    }
    function dropPremove(why, quiet) {
      premove = null;
      showPremove();
      if (why && !quiet) announce(why);
      var w = widget();
      var status = w && w.querySelector("[data-board-status]");
      if (status && why) { status.textContent = why; status.classList.add("error"); }
    }
    function cancelPremove() {
      if (!premove) return;
      dropPremove("");
      announce(msg("PremoveCancelled"));
    }
    // the premove's route among the legal moves just sent: the same route, the one route it
    // begins, or the one route with its first and last squares
    function legalRoute(legal, route) {
      function same(a, b) { return a.length === b.length && a.every(function (x, i) { return x === b[i]; }); }
      var exact = legal.filter(function (r) { return same(r, route); });
      if (exact.length) return exact[0];
      var begun = legal.filter(function (r) { return r.length > route.length && same(r.slice(0, route.length), route); });
      if (begun.length === 1) return begun[0];
      var ends = legal.filter(function (r) { return r[0] === route[0] && r[r.length - 1] === route[route.length - 1]; });
      return ends.length === 1 ? ends[0] : null;
    }
    // sent when legal (true), else dropped with a note on the board (false: the caller says it)
    function playPremove(legal, newVersion) {
      var move = premove;
      premove = null;
      showPremove();
      if (move.route) {
        var route = legalRoute(legal, move.route);
        if (!route) { dropPremove(msg("PremoveDropped"), true); return false; }
        send({ type: "move", route: route, version: newVersion, id: "premove" });
      } else {
        send({ type: "move", text: move.text, version: newVersion, id: "premove" });
      }
      return true;
    }
    root.addEventListener("keydown", function (ev) {
      if (ev.key === "Escape" && premove && !resetting) cancelPremove();
    }, true);
    root.addEventListener("click", function (ev) {
      if (!premove) return;
      if (ev.target.closest && ev.target.closest("[data-premove-cancel]")) { cancelPremove(); return; }
      if (ev.target.closest && ev.target.closest("#versus-board svg")) {
        // a click on the board cancels the premove (and picks nothing)
        ev.stopPropagation();
        cancelPremove();
      }
    }, true);

    function text(ms) {
      var s = Math.max(0, Math.ceil(ms / 1000));
      var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
      var two = function (n) { return (n < 10 ? "0" : "") + n; };
      return h ? h + ":" + two(m) + ":" + two(sec) : m + ":" + two(sec);
    }
    function tick() {
      var r = region();
      if (!r) return;
      if (!r.dataset.shownAt) r.dataset.shownAt = String(Date.now());
      var clock = r.querySelector(".versus-clock[data-running][data-ms]");
      if (!clock) return;
      var ms = Number(clock.dataset.ms);
      if (ms >= 86400000) return; // a correspondence game's days are shown as they came
      var left = ms - (Date.now() - Number(r.dataset.shownAt));
      var out = clock.querySelector("[data-clock-time]");
      if (out) out.textContent = text(left);
      if (left <= 0 && Date.now() - flagAsked > 2000) {
        // out of time here: the server judges the flag
        flagAsked = Date.now();
        ping();
        fetchState();
      }
    }
    follower = window.dama.follow(root, {
      connection: root.querySelector("[data-versus-connection]"),
      onMessage: onMessage, onClose: onClose, poll: fetchState, ping: true
    });
    window.setInterval(tick, 250);
  }

  function init() {
    var root = document.getElementById("versus");
    if (root && !root.dataset.started) { root.dataset.started = "1"; start(root); }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

/* A simul's grid: follows the simul over its WebSocket, or by polling, and swaps in the boards
 * that changed.
 *
 * The page (versus/templates/versus/simul.html) has #simul with data-ws-path (the socket) and
 * data-state-url (the grid; ?v=<grid version> answers 204 while nothing changed). The socket
 * sends {type: "changed"} whenever the simul or one of its games changes: the grid is fetched
 * over HTTP (?known=<token>.<version>,... names the boards shown: those unchanged come as empty
 * placeholders, data-skip, so a move on one board of thirty sends one board); each board (data-simul-board, its game's data-version) whose version moved is
 * replaced, and its data-announce said in the aria-live line #simul-announce; the rest of the
 * grid (the score, the boards waiting) is replaced too. A new state (the start, the end) replaces
 * the whole grid. While the socket is down, and for good when it never opens, the page polls
 * (static/js/follow.js, which this page loads first).
 * A click on a board opens its game; the key N opens the next board waiting for the host.
 */
(function () {
  "use strict";

  function start(root) {
    var asking = false, again = false;
    var announcer = document.getElementById("simul-announce");

    function grid() { return document.getElementById("simul-grid"); }
    function version() { var g = grid(); return g ? Number(g.dataset.version || 0) : 0; }
    function announce(texts) {
      if (!announcer || !texts.length) return;
      announcer.textContent = "";
      window.setTimeout(function () { announcer.textContent = texts.join(" "); }, 50);
    }
    // the boards shown, "<token>.<version>,...": the server leaves them out while unchanged
    function known() {
      var g = grid();
      if (!g) return "";
      return Array.prototype.map.call(g.querySelectorAll("[data-simul-board]"), function (b) {
        return b.dataset.simulBoard + "." + b.dataset.version;
      }).join(",");
    }
    function fetchGrid(whole) {
      if (asking) { again = true; return; }
      asking = true;
      var url = root.dataset.stateUrl + "?v=" + version();
      if (!whole) url += "&known=" + encodeURIComponent(known());
      fetch(url, {
        credentials: "same-origin", headers: { "HX-Request": "true" }
      }).then(function (r) {
        return r.status === 200 ? r.text() : null;
      }).then(function (html) {
        asking = false;
        if (html) swap(html);
        if (again) { again = false; fetchGrid(false); }
      }).catch(function () { asking = false; });
    }
    function swap(html) {
      var current = grid();
      var holder = document.createElement("template");
      holder.innerHTML = html.trim();
      var fresh = holder.content.querySelector("#simul-grid");
      if (!current || !fresh || Number(fresh.dataset.version) <= version()) return;
      var focusedBoard = document.activeElement && document.activeElement.closest
        ? document.activeElement.closest("[data-simul-board]") : null;
      var focusedToken = focusedBoard ? focusedBoard.dataset.simulBoard : "";
      if (fresh.dataset.state !== current.dataset.state) {
        // the start or the end: the whole grid, every board drawn
        if (fresh.querySelector("[data-skip]")) { fetchGrid(true); return; }
        current.replaceWith(fresh);
        return;
      }
      var said = [];
      fresh.querySelectorAll("[data-simul-board]").forEach(function (board) {
        var old = current.querySelector('[data-simul-board="' + board.dataset.simulBoard + '"]');
        if (!old || board.hasAttribute("data-skip")) return;
        if (old.dataset.version !== board.dataset.version) {
          if (board.dataset.announce) said.push(board.dataset.announce);
          old.replaceWith(board.cloneNode(true));
        }
      });
      var summary = fresh.querySelector(".simul-summary");
      var oldSummary = current.querySelector(".simul-summary");
      if (summary && oldSummary) oldSummary.replaceWith(summary);
      current.dataset.version = fresh.dataset.version;
      if (focusedToken) {
        var link = current.querySelector('[data-simul-board="' + focusedToken + '"] [data-simul-link]');
        if (link && document.activeElement === document.body) link.focus();
      }
      announce(said);
    }
    // a click on a board's drawing opens its game (the board's title is the link for the keyboard)
    root.addEventListener("click", function (ev) {
      var svg = ev.target.closest ? ev.target.closest(".board-svg") : null;
      var board = svg ? svg.closest("[data-simul-board]") : null;
      var link = board ? board.querySelector("[data-simul-link]") : null;
      if (link) window.location.assign(link.href);
    });
    document.addEventListener("keydown", function (ev) {
      if (ev.key !== "n" && ev.key !== "N") return;
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      var t = ev.target;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      var next = document.querySelector("[data-simul-next]");
      if (next) { ev.preventDefault(); window.location.assign(next.href); }
    });
    var follower = window.dama.follow(root, {
      connection: root.querySelector("[data-simul-connection]"),
      onMessage: function (data) { if (data.type === "changed") fetchGrid(false); },
      onClose: function (ev) {
        if (ev.code !== 4403) return false;
        follower.say("");
        return true;
      },
      poll: function () { fetchGrid(false); }
    });
  }

  function init() {
    var root = document.getElementById("simul");
    if (root && !root.dataset.started) { root.dataset.started = "1"; start(root); }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

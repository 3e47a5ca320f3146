/* The live lesson page: follows the teacher's board over a WebSocket, or by polling.
 *
 * The page (live/templates/live/session.html) has #live with data-ws-path (the socket),
 * data-state-url (the stage as it stands; ?since=<version> answers 204 when nothing changed),
 * data-results-url (the teacher's answers panel) and data-role. The server sends
 *   {type: "state", version, html, announce}   the stage (#live-stage) to show
 *   {type: "results", version, html}           the teacher's answers panel (#live-results)
 * A stage older than the one shown is ignored (an action's own answer may arrive first). The new
 * stage is said in the aria-live line #live-announce.
 *
 * A student who has answered the open question gets their own stage over HTTP (the pushed one
 * is the same for every student). The socket reconnects after a drop (1, 2, 4 ... 10 s); while it
 * is down, and for good when it never opens (a proxy or a browser without WebSockets), the page
 * polls the state URL (static/js/follow.js, which this page loads first). Two closes end it:
 * 4429 (the user has too many sockets open in the lesson) and 4403 (the user is no longer in the
 * class); the page says why, in its connection line and aria-live, and neither reconnects nor
 * polls.
 */
(function () {
  "use strict";
  // the server's close codes that end following (live/consumers.py): too many sockets, left
  var ENDS = { 4429: ["msgTooMany", "too-many"], 4403: ["msgLeft", "left"] };

  function start(root) {
    var role = root.dataset.role;
    var connection = root.querySelector("[data-live-connection]");
    var announcer = document.getElementById("live-announce");

    function stage() { return document.getElementById("live-stage"); }
    function version() { var s = stage(); return s ? Number(s.dataset.version || 0) : 0; }
    function announce(text) {
      if (!announcer || !text) return;
      announcer.textContent = "";
      // a new text in the live region is read out even when it repeats the last one
      window.setTimeout(function () { announcer.textContent = text; }, 50);
    }
    function answeredHere(html) {
      // this student answered the question of the pushed stage: their own stage shows their
      // answer (and, once revealed, whether it was right), so it comes over HTTP
      var mine = root.getAttribute("data-answered");
      if (role !== "student" || !mine) return false;
      var m = /data-question="(\d+)"/.exec(html);
      var about = /data-open="1"/.test(html) || /data-revealed="1"/.test(html);
      return !!(m && m[1] === mine && about);
    }
    function swapStage(html, newVersion, text) {
      var current = stage();
      if (!current || newVersion <= version()) return;
      if (answeredHere(html)) { poll(true); return; }
      var active = document.activeElement;
      var hadFocus = active && current.contains(active) && active.id;
      var typed = hadFocus && active.tagName === "INPUT" ? active.value : "";
      htmx.swap(current, html, { swapStyle: "outerHTML" });
      remember();
      drawMode();
      restoreGroups();
      if (hadFocus) {
        // the field being typed in keeps its focus and its text across the new stage
        var again = document.getElementById(hadFocus);
        if (again) {
          if (typed && again.tagName === "INPUT" && !again.value) again.value = typed;
          again.focus();
        }
      }
      announce(text || (stage() && stage().dataset.announce));
    }
    function swapResults(html) {
      var current = document.getElementById("live-results");
      if (current) htmx.swap(current, html, { swapStyle: "outerHTML" });
    }
    function remember() {
      // the question this student has answered (their stage shows their answer)
      var s = stage();
      var mine = s && s.querySelector("[data-testid=live-mine]");
      if (mine) root.setAttribute("data-answered", mine.getAttribute("data-question"));
    }
    function poll(force) {
      var url = root.dataset.stateUrl + (force ? "" : "?since=" + version());
      fetch(url, { credentials: "same-origin", headers: { "HX-Request": "true" } }).then(function (r) {
        if (r.status !== 200) return null;
        return r.text();
      }).then(function (html) {
        if (!html) return;
        var m = /data-version="(\d+)"/.exec(html);
        var v = m ? Number(m[1]) : 0;
        if (force && v === version()) {
          htmx.swap(stage(), html, { swapStyle: "outerHTML" });
          remember();
          drawMode();
          restoreGroups();
        } else {
          answeredHereSkip(html, v);
        }
      }).catch(function () {});
      // answers come in without a new version of the lesson: the teacher's panel every time
      if (role === "teacher" && !force) pollResults();
    }
    function answeredHereSkip(html, v) {
      var current = stage();
      if (!current || v <= version()) return;
      htmx.swap(current, html, { swapStyle: "outerHTML" });
      remember();
      drawMode();
      restoreGroups();
      announce(stage() && stage().dataset.announce);
    }
    function pollResults() {
      if (!root.dataset.resultsUrl) return;
      fetch(root.dataset.resultsUrl, { credentials: "same-origin", headers: { "HX-Request": "true" } })
        .then(function (r) { return r.status === 200 ? r.text() : null; })
        .then(function (html) { if (html) swapResults(html); })
        .catch(function () {});
    }
    // a close in ENDS: the page says why, and neither reconnects nor polls
    function onClose(ev) {
      var end = ENDS[ev.code];
      if (!end) return false;
      follower.stopPolling();
      follower.say(root.dataset[end[0]]);
      announce(root.dataset[end[0]]);
      root.setAttribute("data-live-socket", end[1]);
      return true;
    }
    function onMessage(data) {
      if (data.type === "state") swapStage(data.html, Number(data.version), data.announce);
      else if (data.type === "results") swapResults(data.html);
      // a class race changed (runs/static/runs/race.js fetches its panel)
      else if (data.type === "race") document.dispatchEvent(new CustomEvent("live:race"));
    }
    // the teacher's groups of actions (details.live-group) stay open or closed as the teacher
    // left them when a new stage replaces them
    var openGroups = {};
    document.addEventListener("toggle", function (ev) {
      var group = ev.target;
      if (group && group.matches && group.matches("details.live-group") && group.id) {
        openGroups[group.id] = group.open;
      }
    }, true);
    function restoreGroups() {
      Object.keys(openGroups).forEach(function (id) {
        var group = document.getElementById(id);
        if (group && openGroups[id] && !group.open) group.open = true;
      });
    }
    // the teacher draws by clicking: a square twice marks it, two squares make an arrow (posted
    // as the draw form's text, like a typed drawing); the board's own clicks wait meanwhile
    var drawing = false, drawFrom = null;
    function drawMode() {
      var toggle = document.querySelector("[data-live-draw-mode]");
      if (!toggle) return;
      toggle.hidden = false;
      toggle.setAttribute("aria-pressed", drawing ? "true" : "false");
    }
    function boardStatus(text) {
      var line = document.querySelector("#live-teacher-board [data-board-status]");
      if (line && text) line.textContent = text;
    }
    document.addEventListener("click", function (ev) {
      var toggle = ev.target.closest && ev.target.closest("[data-live-draw-mode]");
      if (toggle) {
        drawing = !drawing;
        drawFrom = null;
        drawMode();
        if (drawing) boardStatus(toggle.dataset.msgOn);
        return;
      }
      if (!drawing) return;
      var cell = ev.target.closest && ev.target.closest("#live-teacher-board [data-square]");
      if (!cell) return;
      ev.stopPropagation();
      ev.preventDefault();
      var square = cell.getAttribute("data-square");
      if (drawFrom === null) {
        drawFrom = square;
        var help = document.querySelector("[data-live-draw-mode]");
        boardStatus(help ? help.dataset.msgFrom.replace("{square}", square) : "");
        return;
      }
      var input = document.getElementById("live-draw");
      if (!input) return;
      input.value = drawFrom === square ? square : drawFrom + "-" + square;
      drawFrom = null;
      if (input.form.requestSubmit) input.form.requestSubmit(); else input.form.submit();
    }, true);
    document.addEventListener("htmx:afterSwap", function (ev) {
      remember();
      drawMode();
      restoreGroups();
      // the answer to this page's own request (a student's answer, a teacher's action): said
      var target = ev.detail && ev.detail.target;
      if (!target || target.id !== "live-stage") return;  // not a capture going on
      var mine = document.querySelector("#live-stage [data-testid=live-mine]");
      var error = document.querySelector("#live-stage [data-testid=live-error]");
      if (role === "student" && mine) announce(mine.textContent);
      else if (!error && stage()) announce(stage().dataset.announce);
    });
    drawMode();
    remember();
    var follower = window.dama.follow(root, {
      connection: connection,
      onMessage: onMessage,
      onClose: onClose,
      poll: function () { poll(false); },
      pollAtOnce: true,
      ping: true,
      query: "?lang=" + encodeURIComponent(document.documentElement.lang || ""),
      marker: "data-live-socket",
      closed: "closed",
      pollOnly: root.dataset.transport === "poll"
    });
    window.addEventListener("beforeunload", function () { follower.stop(); });
  }

  function init() {
    var root = document.getElementById("live");
    if (root) start(root);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

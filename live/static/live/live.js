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
 * polls the state URL every POLL_MS.
 */
(function () {
  "use strict";
  var POLL_MS = 2000;
  var PING_MS = 25000;

  function start(root) {
    var role = root.dataset.role;
    var connection = root.querySelector("[data-live-connection]");
    var announcer = document.getElementById("live-announce");
    var socket = null, opened = false, failures = 0, pollTimer = null, pingTimer = null, retry = null;

    function stage() { return document.getElementById("live-stage"); }
    function version() { var s = stage(); return s ? Number(s.dataset.version || 0) : 0; }
    function say(text) { if (connection) connection.textContent = text; }
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
      announce(stage() && stage().dataset.announce);
    }
    function pollResults() {
      if (!root.dataset.resultsUrl) return;
      fetch(root.dataset.resultsUrl, { credentials: "same-origin", headers: { "HX-Request": "true" } })
        .then(function (r) { return r.status === 200 ? r.text() : null; })
        .then(function (html) { if (html) swapResults(html); })
        .catch(function () {});
    }
    function startPolling() {
      if (pollTimer) return;
      say(root.dataset.msgPolling);
      pollTimer = window.setInterval(function () { poll(false); }, POLL_MS);
      poll(false);
    }
    function stopPolling() {
      if (pollTimer) { window.clearInterval(pollTimer); pollTimer = null; }
    }
    function connect() {
      if (!("WebSocket" in window)) { startPolling(); return; }
      var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
      var lang = document.documentElement.lang || "";
      try {
        socket = new WebSocket(scheme + window.location.host + root.dataset.wsPath + "?lang=" + encodeURIComponent(lang));
      } catch (e) {
        startPolling();
        return;
      }
      socket.addEventListener("open", function () {
        opened = true;
        failures = 0;
        stopPolling();
        say(root.dataset.msgLive);
        root.setAttribute("data-live-socket", "open");
        pingTimer = window.setInterval(function () {
          if (socket && socket.readyState === 1) socket.send(JSON.stringify({ type: "ping" }));
        }, PING_MS);
      });
      socket.addEventListener("message", function (ev) {
        var data;
        try { data = JSON.parse(ev.data); } catch (e) { return; }
        if (data.type === "state") swapStage(data.html, Number(data.version), data.announce);
        else if (data.type === "results") swapResults(data.html);
      });
      socket.addEventListener("close", function (ev) {
        root.setAttribute("data-live-socket", "closed");
        if (pingTimer) { window.clearInterval(pingTimer); pingTimer = null; }
        socket = null;
        if (ev.code === 4403) { startPolling(); return; }
        failures += 1;
        // follow by polling until a socket opens again (never, when WebSockets do not get
        // through: the tries go on every 10 s at most)
        startPolling();
        say(opened ? root.dataset.msgReconnecting : root.dataset.msgPolling);
        var wait = Math.min(10000, 1000 * Math.pow(2, failures - 1));
        retry = window.setTimeout(connect, wait);
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
    if (root.dataset.transport === "poll") startPolling();
    else connect();
    window.addEventListener("beforeunload", function () {
      if (retry) window.clearTimeout(retry);
      if (socket) socket.close();
    });
  }

  function init() {
    var root = document.getElementById("live");
    if (root) start(root);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

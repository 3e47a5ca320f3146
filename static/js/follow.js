/* Following a page's news over a WebSocket, or by polling while the socket is down: the one
 * follower of the pages that follow something live (versus/versus.js a game, versus/simul.js a
 * simul's grid, live/live.js a live lesson). Loaded with defer before the page's own script,
 * which calls
 *
 *   var follower = window.dama.follow(root, {
 *     connection: element,   // the line that says how the page follows (data-msg-live, -polling)
 *     onMessage: fn(data),   // each frame the server sends, parsed from JSON
 *     poll: fn(),            // asks the server over HTTP: every POLL_MS while the socket is down
 *     pollAtOnce: bool,      // and once as soon as the polling starts
 *     ping: bool,            // a {type: "ping"} frame every PING_MS while the socket is open
 *     query: "?lang=cs",     // added to the socket's path (root's data-ws-path)
 *     marker: "data-socket", // root's attribute, "open" while the socket is open; on a close it
 *     closed: "closed",      // is set to this, or removed when there is none
 *     onClose: fn(ev),       // true: this close ends following (the server's 4403, 4429 ...)
 *     pollOnly: bool         // no socket at all: poll for good
 *   });
 *   follower.send(frame)     // false when the socket is not open
 *   follower.isOpen(), follower.say(text), follower.startPolling(), follower.stopPolling(),
 *   follower.stop()          // the page is left: no more tries, the socket closed
 *
 * The socket is ws: or wss: as the page is. When it opens the polling stops and the connection
 * line says root's data-msg-live. When it closes (unless onClose ends following) the page polls,
 * saying data-msg-polling (data-msg-reconnecting after a socket that had opened, where the page
 * has that text), and tries the socket again after 1, 2, 4 ... 10 s. Without WebSockets, or when
 * the socket cannot be made, the page polls for good.
 */
(function () {
  "use strict";
  var POLL_MS = 2000;
  var PING_MS = 25000;

  function follow(root, options) {
    var socket = null, opened = false, failures = 0, pollTimer = null, pingTimer = null, retry = null;
    var marker = options.marker || "data-socket";

    function say(text) { if (options.connection) options.connection.textContent = text || ""; }
    function isOpen() { return !!socket && socket.readyState === 1; }
    function send(frame) {
      if (!isOpen()) return false;
      socket.send(JSON.stringify(frame));
      return true;
    }
    function startPolling() {
      if (pollTimer) return;
      say(root.dataset.msgPolling);
      pollTimer = window.setInterval(function () { options.poll(); }, POLL_MS);
      if (options.pollAtOnce) options.poll();
    }
    function stopPolling() {
      if (pollTimer) { window.clearInterval(pollTimer); pollTimer = null; }
    }
    function connect() {
      if (!("WebSocket" in window)) { startPolling(); return; }
      var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
      try {
        socket = new WebSocket(scheme + window.location.host + root.dataset.wsPath + (options.query || ""));
      } catch (e) { startPolling(); return; }
      socket.addEventListener("open", function () {
        opened = true;
        failures = 0;
        stopPolling();
        say(root.dataset.msgLive);
        root.setAttribute(marker, "open");
        if (options.ping) pingTimer = window.setInterval(function () { send({ type: "ping" }); }, PING_MS);
      });
      socket.addEventListener("message", function (ev) {
        var data;
        try { data = JSON.parse(ev.data); } catch (e) { return; }
        options.onMessage(data);
      });
      socket.addEventListener("close", function (ev) {
        if (options.closed) root.setAttribute(marker, options.closed); else root.removeAttribute(marker);
        if (pingTimer) { window.clearInterval(pingTimer); pingTimer = null; }
        socket = null;
        if (options.onClose && options.onClose(ev)) return;
        startPolling();
        if (root.dataset.msgReconnecting) say(opened ? root.dataset.msgReconnecting : root.dataset.msgPolling);
        failures += 1;
        // the tries go on every 10 s at most (for good where WebSockets do not get through)
        retry = window.setTimeout(connect, Math.min(10000, 1000 * Math.pow(2, failures - 1)));
      });
    }
    function stop() {
      if (retry) window.clearTimeout(retry);
      if (socket) socket.close();
    }

    if (options.pollOnly) startPolling();
    else connect();
    return {
      send: send, isOpen: isOpen, say: say, startPolling: startPolling, stopPolling: stopPolling, stop: stop
    };
  }

  window.dama = window.dama || {};
  window.dama.follow = follow;
})();

/* The board component: click or keyboard to move, the server judges every move.
 *
 * Needs only what the board widget (templates/core/board.html) renders: an engine SVG whose dark squares carry data-square="N",
 * a JSON list of legal moves in data-moves [{routes: [[start, ..., end], ...], text, captured}], a move form
 * (hidden "route" field, "move" text field) and an aria-live status line. Legal targets are
 * highlighted at once from the JSON; a multi-capture is entered landing by landing; the finished
 * route is posted (htmx), and the server answers with the new board or the reason it is illegal.
 *
 * Lesson mode (data-mode="lesson"): no legal moves in the page (they could give an exercise away).
 * A piece is picked, and each further click posts the route so far; the server answers whether the
 * capture goes on (the route comes back in data-path), or judges the move. data-mode="square": a
 * click posts the square. data-select="1": a clicked capture is added to the text field.
 * data-targets='{"22": [17, 18]}': where each piece may go by a quiet move, when the exercise lets
 * the page show it (the server leaves it out wherever it would give the answer away).
 * data-square-words='{"22": "column 3 from the left, row 3 from the bottom"}': what the keyboard
 * cursor says of each square instead of its name (the square trainer, where the name is the answer).
 *
 * A capture entered landing by landing is drawn as it goes: the piece stands on its last landing,
 * the pieces jumped so far are crossed and the route so far is drawn. Backspace, or a click on the
 * last landing, takes one landing back; Escape cancels.
 *
 * Every board (data-board, and the finished boards, data-board-view) has a flip button: the
 * squares are laid out again from the other side (their numbers and the a-h / 1-8 coordinates stay
 * upright and right), clicks and the keyboard cursor follow the squares where they now stand.
 *
 * And a resize handle (data-board-resize, a slider at the board's corner): dragged, or moved with
 * the arrow keys, Page Up / Page Down, Home and End, it sets the size of every board from half
 * the largest (the largest fits the window: site.css) to the largest, in steps of 5 %. The size is
 * kept in localStorage ("dama.board-zoom") and shown as the class board-zoom-NN on <html>, which
 * site.js also puts there before the page is drawn; no style is set on any element.
 */
(function () {
  "use strict";
  var SVGNS = "http://www.w3.org/2000/svg";
  var memory = {}; // variant -> {cursor, focused, pointer} kept across htmx swaps
  var flips = {}; // widget id -> the visitor turned the board (kept across htmx swaps)

  function translateOf(el) {
    var m = /translate\(([-\d.]+)[ ,]+([-\d.]+)\)/.exec(el.getAttribute("transform") || "");
    return m ? [Number(m[1]), Number(m[2])] : [0, 0];
  }
  // lay the drawing out from the other side: each square moves to its mirror place, the
  // coordinates along the edges are read the other way round, the arrows turn about the centre
  function mirror(svg) {
    var light = svg.querySelector("rect.light");
    if (!light) return;
    var x0 = Number(light.getAttribute("x")), y0 = Number(light.getAttribute("y"));
    var w = Number(light.getAttribute("width")), h = Number(light.getAttribute("height"));
    svg.querySelectorAll("[data-square]").forEach(function (g) {
      var cell = g.querySelector("rect");
      var side = cell ? Number(cell.getAttribute("width")) : 0;
      var at = translateOf(g);
      g.setAttribute("transform", "translate(" + (2 * x0 + w - side - at[0]) + "," + (2 * y0 + h - side - at[1]) + ")");
    });
    ["file", "rank"].forEach(function (cls) {
      var texts = Array.prototype.slice.call(svg.querySelectorAll("text." + cls));
      var words = texts.map(function (t) { return t.textContent; }).reverse();
      texts.forEach(function (t, i) { t.textContent = words[i]; });
    });
    svg.querySelectorAll("g.arrows").forEach(function (g) {
      if (g.getAttribute("transform")) g.removeAttribute("transform");
      else g.setAttribute("transform", "rotate(180 " + (x0 + w / 2) + " " + (y0 + h / 2) + ")");
    });
    svg.setAttribute("data-flipped", svg.getAttribute("data-flipped") === "1" ? "0" : "1");
  }
  // the flip button of a board: shown once the page can turn the board; returns a function that
  // puts the drawing the way the visitor wants it (the server's side, turned when they asked)
  function flipper(widget, after) {
    var button = widget.querySelector("[data-board-flip]");
    var holder = widget.querySelector(".board-svg");
    var svg = holder && holder.querySelector("svg");
    var id = widget.id || "board";
    function apply() {
      if (!svg) return;
      var server = widget.dataset.flipped === "1";
      var wanted = server !== !!flips[id];
      if ((svg.getAttribute("data-flipped") === "1") !== wanted) mirror(svg);
      widget.classList.toggle("is-flipped", wanted);
      if (button) button.setAttribute("aria-pressed", flips[id] ? "true" : "false");
    }
    if (button && svg) {
      button.hidden = false;
      button.addEventListener("click", function () {
        flips[id] = !flips[id];
        apply();
        if (after) after();
      });
    }
    apply();
    return apply;
  }

  // the visitor's board size: 50 to 100 (% of the largest), kept and shown on <html>
  var ZOOM_KEY = "dama.board-zoom", ZOOM_MIN = 50, ZOOM_MAX = 100, ZOOM_STEP = 5;
  function zoom() {
    var m = /(?:^|\s)board-zoom-(\d+)(?:\s|$)/.exec(document.documentElement.className);
    return m ? Number(m[1]) : ZOOM_MAX;
  }
  function showZoom(value) {
    document.querySelectorAll("[data-board-resize]").forEach(function (handle) {
      handle.setAttribute("aria-valuenow", String(value));
      var text = handle.dataset.msgSize;
      if (text) handle.setAttribute("aria-valuetext", text.replace("{percent}", String(value)));
    });
  }
  function setZoom(value) {
    value = Math.round(value / ZOOM_STEP) * ZOOM_STEP;
    value = Math.max(ZOOM_MIN, Math.min(ZOOM_MAX, value));
    var root = document.documentElement;
    Array.prototype.slice.call(root.classList).forEach(function (cls) {
      if (/^board-zoom-\d+$/.test(cls)) root.classList.remove(cls);
    });
    if (value < ZOOM_MAX) root.classList.add("board-zoom-" + value);
    try {
      if (value < ZOOM_MAX) window.localStorage.setItem(ZOOM_KEY, String(value));
      else window.localStorage.removeItem(ZOOM_KEY);
    } catch (e) { /* not kept: this page only */ }
    showZoom(value);
  }
  function resizer(widget) {
    var handle = widget.querySelector("[data-board-resize]");
    var frame = widget.querySelector(".board-frame");
    if (!handle || !frame) return;
    handle.hidden = false;
    showZoom(zoom());
    var drag = null;
    handle.addEventListener("pointerdown", function (ev) {
      if (ev.button !== 0) return;
      ev.preventDefault();
      handle.focus();
      handle.setPointerCapture(ev.pointerId);
      var width = frame.getBoundingClientRect().width;
      // the width of the largest board: the board is the largest times the size chosen
      drag = { x: ev.clientX, y: ev.clientY, width: width, largest: width * ZOOM_MAX / zoom() };
    });
    handle.addEventListener("pointermove", function (ev) {
      if (!drag) return;
      // down and to the right makes it larger: the longer of the two ways the pointer went
      var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      var grown = Math.abs(dx) > Math.abs(dy) ? dx : dy;
      var wanted = ZOOM_MAX * (drag.width + grown) / drag.largest;
      if (Math.round(wanted / ZOOM_STEP) * ZOOM_STEP !== zoom()) setZoom(wanted);
    });
    function stop() { drag = null; }
    handle.addEventListener("pointerup", stop);
    handle.addEventListener("pointercancel", stop);
    handle.addEventListener("keydown", function (ev) {
      var steps = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, PageUp: 2, PageDown: -2 };
      var value = zoom();
      if (steps[ev.key]) value += steps[ev.key] * ZOOM_STEP;
      else if (ev.key === "Home") value = ZOOM_MIN;
      else if (ev.key === "End") value = ZOOM_MAX;
      else return;
      ev.preventDefault();
      setZoom(value);
    });
  }

  function init(widget) {
    if (widget.dataset.boardReady) return;
    widget.dataset.boardReady = "1";
    resizer(widget);
    var holder = widget.querySelector(".board-svg");
    var svg = holder && holder.querySelector("svg");
    var form = widget.querySelector("form.move-form");
    var status = widget.querySelector("[data-board-status]");
    if (!svg || !form) return;
    flipper(widget, function () { draw(); });
    var mode = widget.dataset.mode || "free";
    var quiet = null;
    try { quiet = widget.dataset.targets ? JSON.parse(widget.dataset.targets) : null; } catch (e) { quiet = null; }
    var keepInput = widget.dataset.select === "1";
    var clicking = false;
    var moves = [];
    try { moves = JSON.parse(widget.dataset.moves || "[]"); } catch (e) { moves = []; }
    var routes = [];
    moves.forEach(function (m) { m.routes.forEach(function (r) { routes.push(r); }); });
    var msg = function (name) { return widget.dataset["msg" + name] || ""; };
    var key = widget.dataset.variant || "board";
    var state = memory[key] || {};
    memory[key] = state;
    var els = {};
    svg.querySelectorAll("[data-square]").forEach(function (el) { els[Number(el.getAttribute("data-square"))] = el; });
    var path = (widget.dataset.path || "").split(",").filter(Boolean).map(Number).filter(function (sq) { return els[sq]; });
    var squares = Object.keys(els).map(Number);
    var overlay = document.createElementNS(SVGNS, "g");
    overlay.setAttribute("class", "board-overlay");
    overlay.setAttribute("aria-hidden", "true");
    svg.appendChild(overlay);

    function toSvg(x, y) {
      var ctm = svg.getScreenCTM();
      if (!ctm) return { x: x, y: y, scale: 1 };
      var p = svg.createSVGPoint();
      p.x = x; p.y = y;
      var q = p.matrixTransform(ctm.inverse());
      return { x: q.x, y: q.y, scale: ctm.a || 1 };
    }
    function geometry(sq) {
      var r = els[sq].getBoundingClientRect();
      var c = toSvg(r.left + r.width / 2, r.top + r.height / 2);
      return { x: c.x, y: c.y, size: r.width / c.scale, cx: r.left + r.width / 2, cy: r.top + r.height / 2, step: r.width || 1 };
    }
    function line(points, cls, width) {
      var shape = document.createElementNS(SVGNS, "polyline");
      shape.setAttribute("points", points.map(function (p) { return p.x + "," + p.y; }).join(" "));
      shape.setAttribute("class", cls);
      shape.setAttribute("stroke-width", width);
      overlay.appendChild(shape);
    }
    function cross(sq) {
      var g = geometry(sq), d = g.size * 0.22;
      var shape = document.createElementNS(SVGNS, "path");
      shape.setAttribute("d", "M" + (g.x - d) + "," + (g.y - d) + "L" + (g.x + d) + "," + (g.y + d) + "M" + (g.x - d) + "," + (g.y + d) + "L" + (g.x + d) + "," + (g.y - d));
      shape.setAttribute("class", "mark-jumped");
      shape.setAttribute("stroke-width", g.size * 0.1);
      overlay.appendChild(shape);
    }
    function mark(sq, cls, radius) {
      if (!els[sq]) return;
      var g = geometry(sq);
      var shape;
      if (radius) {
        shape = document.createElementNS(SVGNS, "circle");
        shape.setAttribute("cx", g.x); shape.setAttribute("cy", g.y); shape.setAttribute("r", g.size * radius);
      } else {
        shape = document.createElementNS(SVGNS, "rect");
        var inset = g.size * 0.06;
        shape.setAttribute("x", g.x - g.size / 2 + inset); shape.setAttribute("y", g.y - g.size / 2 + inset);
        shape.setAttribute("width", g.size - 2 * inset); shape.setAttribute("height", g.size - 2 * inset);
        shape.setAttribute("stroke-width", g.size * 0.07);
      }
      shape.setAttribute("class", cls);
      overlay.appendChild(shape);
    }
    function matching() {
      return routes.filter(function (r) {
        if (r.length < path.length) return false;
        for (var i = 0; i < path.length; i++) if (r[i] !== path[i]) return false;
        return true;
      });
    }
    function targets() {
      if (mode !== "free") return quiet && path.length === 1 ? (quiet[path[0]] || []) : [];
      var out = [];
      matching().forEach(function (r) { if (r.length > path.length && out.indexOf(r[path.length]) < 0) out.push(r[path.length]); });
      return out;
    }
    function pieceOn(sq) {
      var p = els[sq] && els[sq].querySelector("[data-piece]");
      return p ? p.getAttribute("data-piece") : "";
    }
    function starts() {
      if (mode !== "free") {
        var own = squares.filter(function (sq) { return pieceOn(sq).charAt(0) === (widget.dataset.turn || "w"); });
        return own.length ? own : squares;
      }
      var out = [];
      routes.forEach(function (r) { if (out.indexOf(r[0]) < 0) out.push(r[0]); });
      return out;
    }
    // the pieces a capture jumps from one landing to the next: the opponent's pieces on the
    // squares between them (the player entered the route: this gives nothing away)
    function jumpedOn(a, b, colour) {
      var ga = geometry(a), gb = geometry(b), out = [];
      var dx = gb.cx - ga.cx, dy = gb.cy - ga.cy, length = Math.sqrt(dx * dx + dy * dy);
      if (!length) return out;
      squares.forEach(function (sq) {
        if (sq === a || sq === b) return;
        var g = geometry(sq), px = g.cx - ga.cx, py = g.cy - ga.cy;
        var along = (px * dx + py * dy) / length, off = Math.abs(px * dy - py * dx) / length;
        var p = pieceOn(sq);
        if (along > 0 && along < length && off < ga.step * 0.25 && p && p.charAt(0) !== colour) out.push(sq);
      });
      return out;
    }
    var moved = null; // the piece drawn on its last landing, and where it came from
    function putBack() {
      if (moved) { moved.home.appendChild(moved.piece); moved = null; }
    }
    function draw() {
      putBack();
      while (overlay.firstChild) overlay.removeChild(overlay.firstChild);
      Object.keys(els).forEach(function (sq) { els[sq].classList.remove("is-selected", "is-target", "is-cursor", "is-jumped"); });
      if (path.length > 1 && mode !== "square") {
        // a capture under way: the route so far, the jumped pieces, the piece on its landing
        var piece = els[path[0]].querySelector("[data-piece]");
        var colour = piece ? piece.getAttribute("data-piece").charAt(0) : "";
        line(path.map(geometry), "mark-path", geometry(path[0]).size * 0.08);
        for (var i = 1; i < path.length; i++) {
          jumpedOn(path[i - 1], path[i], colour).forEach(function (sq) { cross(sq); els[sq].classList.add("is-jumped"); });
        }
        mark(path[0], "mark-origin");
        var last = path[path.length - 1];
        mark(last, "mark-selected"); els[last].classList.add("is-selected");
        if (piece && last !== path[0]) {
          moved = { piece: piece, home: els[path[0]] };
          els[last].appendChild(piece);
        }
      } else {
        path.forEach(function (sq) { mark(sq, "mark-selected"); els[sq].classList.add("is-selected"); });
      }
      if (path.length) targets().forEach(function (sq) { mark(sq, "mark-target", 0.18); els[sq].classList.add("is-target"); });
      // the keyboard cursor only for the keyboard: a click leaves no dashed outline behind
      if (state.cursor && els[state.cursor] && document.activeElement === holder && !state.pointer) {
        mark(state.cursor, "mark-cursor"); els[state.cursor].classList.add("is-cursor");
      }
    }
    function back() {
      // one landing back: the piece returns to the landing before (or is no longer picked)
      if (path.length > 1) {
        path.pop();
        say(msg("Back").replace("{square}", name(path[path.length - 1])));
      } else if (path.length) {
        path = [];
        say(msg("Cancelled"));
      }
      draw();
    }
    function say(text, isError) {
      if (!status) return;
      status.textContent = text;
      status.classList.toggle("error", !!isError);
    }
    function submit(route) {
      form.querySelector("[name=route]").value = route.join(",");
      var input = form.querySelector("[data-move-input]");
      if (input && !keepInput) input.value = "";
      state.focused = document.activeElement === holder;
      clicking = true;
      if (form.requestSubmit) form.requestSubmit(); else form.submit();
    }
    // the square trainer says where a square stands (data-square-words), never its name
    var words = null;
    try { words = widget.dataset.squareWords ? JSON.parse(widget.dataset.squareWords) : null; } catch (e) { words = null; }
    function name(sq) {
      if (words) return words[sq] || "";
      return els[sq].getAttribute("data-name") || String(sq);
    }
    function pick(sq) {
      var where = targets();
      if (where.length) say(msg("Targets").replace("{square}", name(sq)) + " " + where.map(name).join(", "));
      else say(msg("Pick").replace("{square}", name(sq)));
    }
    function chooseInLesson(sq) {
      // a click while the server is still answering the last one is replayed on the new board
      if (form.classList.contains("htmx-request")) {
        if (state.pendingFor !== form.action) state.pending = [];
        state.pendingFor = form.action;
        state.pending = (state.pending || []).concat([sq]);
        return;
      }
      if (mode === "square") { path = []; draw(); submit([sq]); return; }
      var own = pieceOn(sq).charAt(0) === (widget.dataset.turn || "w");
      if (!path.length || (quiet && path.length === 1 && own && sq !== path[0])) {
        if (pieceOn(sq)) { path = [sq]; pick(sq); }
        else say(msg("Empty").replace("{square}", name(sq)), true);
        draw();
        return;
      }
      if (path.length === 1 && sq === path[0]) { path = []; say(msg("Cancelled")); draw(); return; }
      if (path.length > 1 && sq === path[path.length - 1]) { back(); return; }
      var route = path.concat([sq]);
      path = route;
      draw();
      submit(route);
    }
    function choose(sq) {
      if (!els[sq]) return;
      state.cursor = sq;
      if (mode !== "free") { chooseInLesson(sq); return; }
      if (!path.length) {
        if (starts().indexOf(sq) >= 0) {
          path = [sq];
          say(msg("Selected").replace("{square}", name(sq)) + " " + targets().map(name).join(", "));
        } else {
          var capture = moves.some(function (m) { return m.captured && m.captured.length; });
          say(msg("NoMove").replace("{square}", name(sq)) + (capture ? " " + msg("CaptureCompulsory") : ""), true);
        }
        draw();
        return;
      }
      if (path.length === 1 && sq === path[0]) { path = []; say(msg("Cancelled")); draw(); return; }
      if (path.length > 1 && sq === path[path.length - 1]) { back(); return; }
      if (targets().indexOf(sq) >= 0) {
        path.push(sq);
        var done = matching().filter(function (r) { return r.length === path.length; });
        if (done.length) { var route = path.slice(); path = []; draw(); submit(route); return; }
        say(msg("Continue").replace("{square}", name(sq)) + " " + targets().map(name).join(", "));
        draw();
        return;
      }
      if (path.length === 1 && starts().indexOf(sq) >= 0) {
        path = [sq];
        say(msg("Selected").replace("{square}", name(sq)) + " " + targets().map(name).join(", "));
        draw();
        return;
      }
      if (path.length === 1) { var tried = [path[0], sq]; path = []; draw(); submit(tried); return; }
      say(msg("Continue").replace("{square}", name(path[path.length - 1])) + " " + targets().map(name).join(", "), true);
      draw();
    }
    function squareAt(x, y) {
      var best = null;
      squares.forEach(function (sq) {
        var r = els[sq].getBoundingClientRect();
        if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) best = sq;
      });
      return best;
    }
    svg.addEventListener("click", function (ev) {
      var el = ev.target.closest && ev.target.closest("[data-square]");
      var sq = el ? Number(el.getAttribute("data-square")) : squareAt(ev.clientX, ev.clientY);
      if (sq) choose(sq);
    });
    function neighbour(from, dx, dy) {
      var a = geometry(from), best = null, bestScore = Infinity;
      squares.forEach(function (sq) {
        if (sq === from) return;
        var b = geometry(sq), ddx = b.cx - a.cx, ddy = b.cy - a.cy, step = a.step;
        if (dy === 0) {
          if (Math.abs(ddy) > step * 0.5 || ddx * dx <= 0) return;
          var s1 = Math.abs(ddx);
          if (s1 < bestScore) { bestScore = s1; best = sq; }
        } else {
          if (ddy * dy <= 0 || Math.abs(ddy) > step * 1.5) return;
          var s2 = Math.abs(ddx);
          if (s2 < bestScore) { bestScore = s2; best = sq; }
        }
      });
      return best || from;
    }
    holder.addEventListener("pointerdown", function () { state.pointer = true; });
    holder.addEventListener("keydown", function (ev) {
      state.pointer = false;
      var dirs = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
      if (!state.cursor || !els[state.cursor]) state.cursor = starts()[0] || squares[0];
      if (dirs[ev.key]) {
        ev.preventDefault();
        state.cursor = neighbour(state.cursor, dirs[ev.key][0], dirs[ev.key][1]);
        say(name(state.cursor));
        draw();
      } else if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        choose(state.cursor);
      } else if (ev.key === "Backspace") {
        ev.preventDefault();
        back();
      } else if (ev.key === "Escape") {
        path = [];
        say(msg("Cancelled"));
        draw();
      }
    });
    holder.addEventListener("focus", function () {
      if (!state.cursor || !els[state.cursor]) state.cursor = starts()[0] || squares[0];
      draw();
    });
    holder.addEventListener("blur", draw);
    widget.addEventListener("submit", function () {
      // capture phase: runs before htmx reads the form, so typed notation wins over a stale route
      var input = form.querySelector("[data-move-input]");
      if (!clicking && input && input.value.trim()) form.querySelector("[name=route]").value = "";
      clicking = false;
      state.focused = state.focused || document.activeElement === holder;
    }, true);
    if (state.focused) { state.focused = false; holder.focus(); }
    draw();
    // clicks kept while the last answer was on its way (lesson mode) or while this board was
    // put in but not yet set up (any mode) are played on it now, in the order they came
    var kept = [];
    if (mode !== "free" && state.pending && state.pending.length && state.pendingFor === form.action) kept = state.pending;
    if (state.early && state.early.length && state.earlyFor === form.action) kept = kept.concat(state.early);
    state.pending = [];
    state.early = [];
    kept.forEach(choose);
  }

  // htmx puts a new board into the page and sets it up (htmx:load, where init runs) only when
  // it settles, 20 ms later: a click in between would reach a board without its listeners and
  // be lost, so it is kept for init to play
  document.addEventListener("click", function (ev) {
    var widget = ev.target.closest && ev.target.closest("[data-board]");
    if (!widget || widget.dataset.boardReady) return;
    var el = ev.target.closest("[data-square]");
    var form = widget.querySelector("form.move-form");
    if (!el || !form) return;
    var key = widget.dataset.variant || "board";
    var state = memory[key] || {};
    memory[key] = state;
    if (state.earlyFor !== form.action) state.early = [];
    state.earlyFor = form.action;
    state.early = (state.early || []).concat([Number(el.getAttribute("data-square"))]);
  }, true);

  function initView(widget) {
    if (widget.dataset.boardReady) return;
    widget.dataset.boardReady = "1";
    resizer(widget);
    flipper(widget);
  }

  function initAll(root) {
    (root || document).querySelectorAll("[data-board]").forEach(init);
    (root || document).querySelectorAll("[data-board-view]").forEach(initView);
    if (root && root.matches && root.matches("[data-board]")) init(root);
    if (root && root.matches && root.matches("[data-board-view]")) initView(root);
  }
  document.addEventListener("htmx:load", function (ev) { initAll(ev.detail.elt); });
  // a finished puzzle or step: focus goes to its next action (it is described by the result)
  document.addEventListener("htmx:afterSettle", function (ev) {
    var scope = ev.detail && ev.detail.elt;
    var next = scope && scope.querySelector && scope.querySelector("[data-focus-next]");
    if (!next && scope && scope.parentNode) next = scope.parentNode.querySelector("[data-focus-next]");
    if (next) next.focus();
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { initAll(document); });
  else initAll(document);
})();

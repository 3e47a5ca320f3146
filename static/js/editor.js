/* The classroom's board editor and set ordering.
 *
 * Position editor ([data-editor]): a click on a dark square posts the square with the chosen piece
 * (the server puts it there or empties the square, and answers the new editor); the side to move,
 * "clear", "start position" and "load FEN" post their action the same way. "Copy" puts the FEN on
 * the clipboard. The server builds every position: this file only says what was clicked.
 *
 * Set ordering ([data-sortable]): items are dragged with the mouse; the new order is posted and
 * the server answers the list. The up/down buttons (htmx) do the same without dragging.
 */
(function () {
  "use strict";

  function csrfHeaders() {
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}"); } catch (e) { return {}; }
  }

  function post(form, action, extra) {
    form.querySelector("[data-editor-action]").value = action;
    if (extra && extra.square !== undefined) form.querySelector("[data-editor-square]").value = extra.square;
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  }

  document.addEventListener("click", function (ev) {
    var target = ev.target;
    var editorBoard = target.closest && target.closest("[data-editor-board]");
    if (editorBoard) {
      var el = target.closest("[data-square]");
      if (!el) return;
      post(editorBoard.closest("form"), "place", { square: el.getAttribute("data-square") });
      return;
    }
    var doButton = target.closest && target.closest("[data-editor-do]");
    if (doButton) {
      post(doButton.closest("form"), doButton.getAttribute("data-editor-do"));
      return;
    }
    var copy = target.closest && target.closest("[data-copy-fen]");
    if (copy) {
      var input = copy.closest("form").querySelector("[data-fen-text]");
      var done = function () {
        var status = copy.closest("form").querySelector("[data-editor-error]");
        if (status) { status.textContent = copy.getAttribute("data-copied") || ""; status.classList.remove("error"); }
      };
      input.value = copy.closest("form").querySelector("[name=fen]").value;
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(input.value).then(done, function () { input.select(); done(); });
      } else {
        input.select();
        try { document.execCommand("copy"); } catch (e) { /* the text stays selected to copy by hand */ }
        done();
      }
    }
  });

  document.addEventListener("change", function (ev) {
    if (ev.target.matches && ev.target.matches("[data-editor-turn]")) post(ev.target.closest("form"), "turn");
  });

  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" && ev.target.matches && ev.target.matches("[data-fen-text]")) {
      ev.preventDefault();
      post(ev.target.closest("form"), "load");
    }
  });

  // -- dragging the items of a set ------------------------------------------------------------------
  var dragged = null;
  document.addEventListener("dragstart", function (ev) {
    var item = ev.target.closest && ev.target.closest("[data-sortable] > [data-item]");
    if (!item) return;
    dragged = item;
    item.classList.add("dragging");
    ev.dataTransfer.effectAllowed = "move";
    ev.dataTransfer.setData("text/plain", item.getAttribute("data-item"));
  });
  document.addEventListener("dragover", function (ev) {
    if (!dragged) return;
    var over = ev.target.closest && ev.target.closest("[data-sortable] > [data-item]");
    if (!over || over === dragged || over.parentNode !== dragged.parentNode) return;
    ev.preventDefault();
    var rect = over.getBoundingClientRect();
    var after = ev.clientY > rect.top + rect.height / 2;
    over.parentNode.insertBefore(dragged, after ? over.nextSibling : over);
  });
  document.addEventListener("drop", function (ev) { if (dragged) ev.preventDefault(); });
  document.addEventListener("dragend", function () {
    if (!dragged) return;
    var list = dragged.parentNode;
    dragged.classList.remove("dragging");
    dragged = null;
    var body = new URLSearchParams();
    list.querySelectorAll(":scope > [data-item]").forEach(function (li) { body.append("item", li.getAttribute("data-item")); });
    var headers = csrfHeaders();
    headers["HX-Request"] = "true";
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    fetch(list.getAttribute("data-sortable"), { method: "POST", headers: headers, body: body, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var holder = document.createElement("div");
        holder.innerHTML = html;
        var fresh = holder.firstElementChild;
        if (fresh) { list.replaceWith(fresh); if (window.htmx) window.htmx.process(fresh); }
      })
      .catch(function () { window.location.reload(); });
  });
})();

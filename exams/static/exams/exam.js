// The exam's clock: counts down the seconds the server gave (the server enforces the deadline;
// this only shows it). Read by screen readers on demand (aria-live off); at zero the page is
// loaded again and the server hands the exam in. While the computer thinks in the exam's
// endgame game the clock stands still (data-clock-stopped): it shows the time left without
// counting and asks the page again every few seconds for the time the server gives now.
// "Hand in the exam" asks first (the server's question, swapped in under the buttons by htmx);
// its "No, go on" link (or Escape) is a link to the sitting without JavaScript, and here it
// only takes the question away and gives the focus back to the button.
(function () {
  "use strict";
  var ASK_AGAIN_MS = 3000;

  function show(clock, s) {
    var text = clock.querySelector("[data-clock-text]");
    var m = Math.floor(s / 60);
    var r = s % 60;
    text.textContent = m + ":" + (r < 10 ? "0" : "") + r;
    clock.classList.toggle("hurry", s <= 60);
  }

  function askAgain(clock, url) {
    window.fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("[data-exam-clock]");
        if (!fresh) {
          window.location.assign(url); // the exam is over: its results
          return;
        }
        clock.replaceWith(document.adoptNode(fresh));
        start(fresh);
      })
      .catch(function () { window.setTimeout(function () { askAgain(clock, url); }, ASK_AGAIN_MS); });
  }

  function start(clock) {
    var left = parseInt(clock.getAttribute("data-seconds-left"), 10);
    var url = clock.getAttribute("data-reload-url");
    if (isNaN(left) || !clock.querySelector("[data-clock-text]")) return;
    if (clock.hasAttribute("data-clock-stopped")) {
      show(clock, left);
      window.setTimeout(function () { askAgain(clock, url); }, ASK_AGAIN_MS);
      return;
    }
    var ends = Date.now() + left * 1000;
    function tick() {
      var s = Math.max(0, Math.round((ends - Date.now()) / 1000));
      show(clock, s);
      if (s === 0) {
        window.clearInterval(timer);
        window.location.assign(url);
      }
    }
    var timer = window.setInterval(tick, 1000);
    tick();
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-exam-clock]").forEach(start);
  });
  function goOn(region, ev) {
    ev.preventDefault();
    region.innerHTML = "";
    var button = document.querySelector("[data-hand-in]");
    if (button) button.focus();
  }
  document.addEventListener("click", function (ev) {
    var cancel = ev.target.closest && ev.target.closest("[data-hand-in-cancel]");
    var region = cancel && cancel.closest("#hand-in-confirm");
    if (region) goOn(region, ev);
  });
  // Escape in the question is "No, go on"
  document.addEventListener("keydown", function (ev) {
    var region = ev.key === "Escape" && ev.target.closest && ev.target.closest("#hand-in-confirm");
    if (region && region.querySelector("[data-hand-in-cancel]")) goOn(region, ev);
  });
})();

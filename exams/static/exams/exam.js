// The exam's clock: counts down the seconds the server gave (the server enforces the deadline;
// this only shows it). Read by screen readers on demand (aria-live off); at zero the page is
// loaded again and the server hands the exam in.
(function () {
  "use strict";
  function start(clock) {
    var left = parseInt(clock.getAttribute("data-seconds-left"), 10);
    var text = clock.querySelector("[data-clock-text]");
    var url = clock.getAttribute("data-reload-url");
    if (isNaN(left) || !text) return;
    var ends = Date.now() + left * 1000;
    function tick() {
      var s = Math.max(0, Math.round((ends - Date.now()) / 1000));
      var m = Math.floor(s / 60);
      var r = s % 60;
      text.textContent = m + ":" + (r < 10 ? "0" : "") + r;
      if (s <= 60) clock.classList.add("hurry");
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
})();

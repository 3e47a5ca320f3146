/* Print buttons: a <button data-print> prints the page (login cards, worksheets).
 *
 * A click handler here rather than onclick="window.print()" in the template: the site's
 * Content-Security-Policy (script-src 'self') runs no inline event handler.
 */
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-print]");
    if (button) window.print();
  });
})();

// STE console: the few things a server-rendered page cannot do alone.
"use strict";

// Live sections: refetch their server-rendered HTML every data-every ms.
document.querySelectorAll("[data-refresh]").forEach(function (el) {
  var every = parseInt(el.dataset.every || "1000", 10);
  var failed = false;
  function tick() {
    if (document.hidden) { return setTimeout(tick, every); }
    fetch(el.dataset.refresh, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) {
        if (!r.ok) { throw new Error(r.status + " " + r.statusText); }
        return r.text();
      })
      .then(function (html) {
        el.innerHTML = html;
        failed = false;
        el.classList.remove("stale");
      })
      .catch(function (e) {
        if (!failed) {
          failed = true;
          el.classList.add("stale");
          var b = document.createElement("div");
          b.className = "banner bad";
          b.textContent = "The console does not answer (" + e.message + "): the figures below are stale.";
          el.prepend(b);
        }
      })
      .finally(function () { setTimeout(tick, every); });
  }
  setTimeout(tick, every);
});

// A checkbox in a table's head selects every row's.
document.querySelectorAll("[data-select-all]").forEach(function (box) {
  box.addEventListener("change", function () {
    box.closest("table").querySelectorAll("tbody input[type=checkbox]").forEach(function (c) {
      c.checked = box.checked;
    });
  });
});

// Acting on a whole filter's result asks first.
document.querySelectorAll("form[data-confirm-all]").forEach(function (form) {
  form.addEventListener("submit", function (ev) {
    var b = ev.submitter;
    if (b && b.hasAttribute("data-all") && !window.confirm(form.dataset.confirmAll)) {
      ev.preventDefault();
    }
  });
});

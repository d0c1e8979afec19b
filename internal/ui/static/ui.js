// ctxkeep ui: a little plain JavaScript over server-rendered pages. Every
// page works without it; with it, views load in place, pins apply without
// leaving the page, a recall opens under its search result, the chart has
// a readout, and a session page stays live over Server-Sent Events.
(function () {
  "use strict";
  var csrf = (document.querySelector('meta[name="csrf"]') || {}).content || "";

  function load(el) {
    if (!el || el.dataset.loaded) { return; }
    el.dataset.loaded = "1";
    // Only the server's templates (text/html, escaped) become markup; any
    // other answer (a refusal, a failure: text/plain) is shown as text.
    fetch(el.dataset.src, { credentials: "same-origin" }).then(function (r) {
      var html = (r.headers.get("Content-Type") || "").indexOf("text/html") === 0;
      return r.text().then(function (body) { if (html) { el.innerHTML = body; } else { el.textContent = body; } });
    }).catch(function () { el.textContent = "could not load it"; });
  }

  // Views of stored outputs: on opening their <details>, or at once when shown bare.
  document.addEventListener("toggle", function (ev) {
    var d = ev.target;
    if (d.matches && d.matches("details.output") && d.open) { load(d.querySelector(".view[data-src]")); }
  }, true);
  document.querySelectorAll(".view[data-src]").forEach(function (v) {
    if (!v.closest("details")) { load(v); }
  });

  // Pins: posted with the CSRF token, then the page is drawn again.
  document.addEventListener("submit", function (ev) {
    var f = ev.target;
    if (!f.matches("form.pin")) { return; }
    ev.preventDefault();
    var data = new FormData(f, ev.submitter);
    f.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    fetch(f.action, { method: "POST", body: new URLSearchParams(data), credentials: "same-origin",
      headers: { "X-CSRF-Token": csrf } })
      .then(function (r) { if (!r.ok) { throw new Error(r.status); } return r.json(); })
      .then(function () { location.reload(); })
      .catch(function (e) { f.querySelectorAll("button").forEach(function (b) { b.disabled = false; }); alert("The pin failed: " + e.message); });
  });
  document.querySelectorAll('form.pin input[name="back"]').forEach(function (i) { i.value = location.pathname + location.search; });

  // Recall a search result in place.
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("button.recall");
    if (!b) { return; }
    var slot = b.closest(".result").querySelector(".recall-slot");
    if (slot.dataset.loaded) { slot.hidden = !slot.hidden; return; }
    slot.dataset.src = b.dataset.src;
    b.textContent = "Recalled";
    load(slot);
  });

  // The chart's readout.
  function bindChart(root) {
    var svg = root && root.querySelector("svg.chart");
    if (!svg) { return; }
    var points = JSON.parse(svg.dataset.points || "[]");
    var hit = svg.querySelector(".hit"), cursor = svg.querySelector(".cursor"), dot = svg.querySelector(".dot");
    var line = svg.querySelector(".line"), readout = document.getElementById("readout");
    if (!points.length || !hit) { return; }
    var ys = (line.getAttribute("d") || "").split(/[ML]/).filter(Boolean).map(function (s) { return parseFloat(s.trim().split(" ")[1]); });
    hit.addEventListener("mousemove", function (ev) {
      var pt = svg.createSVGPoint();
      pt.x = ev.clientX; pt.y = ev.clientY;
      var p = pt.matrixTransform(svg.getScreenCTM().inverse());
      var best = 0;
      for (var i = 1; i < points.length; i++) {
        if (Math.abs(points[i][0] - p.x) < Math.abs(points[best][0] - p.x)) { best = i; }
      }
      cursor.setAttribute("x1", points[best][0]); cursor.setAttribute("x2", points[best][0]);
      cursor.style.opacity = 1;
      dot.setAttribute("cx", points[best][0]); dot.setAttribute("cy", ys[best] || 0); dot.style.opacity = 1;
      if (readout) { readout.textContent = points[best][2]; }
    });
    hit.addEventListener("mouseleave", function () { cursor.style.opacity = 0; dot.style.opacity = 0; });
    document.documentElement.setAttribute("data-chart", "ready");
  }
  bindChart(document.getElementById("chart"));

  // A session page, live: new steps, the gauge and the chart.
  var tl = document.getElementById("timeline");
  if (tl && tl.dataset.live && window.EventSource) {
    var es = new EventSource("/s/" + encodeURIComponent(tl.dataset.session) + "/live?after=" + encodeURIComponent(tl.dataset.last || "0.0"));
    var badge = document.getElementById("live");
    es.addEventListener("open", function () { if (badge) { badge.hidden = false; } });
    es.addEventListener("error", function () { if (badge) { badge.hidden = true; } });
    es.addEventListener("step", function (ev) {
      var m = JSON.parse(ev.data);
      var turns = document.getElementById("turns");
      var turn = turns.querySelector('.turn[data-turn="' + m.turn + '"]');
      if (!turn) {
        turn = document.createElement("div");
        turn.className = "turn";
        turn.dataset.turn = m.turn;
        var p = document.createElement("div");
        p.className = "prompt";
        var n = document.createElement("span"); n.className = "tn"; n.textContent = m.turn;
        var t = document.createElement("span"); t.className = "ptext"; t.textContent = m.prompt || "(turn continued)";
        p.appendChild(n); p.appendChild(t);
        var ol = document.createElement("ol"); ol.className = "steps";
        turn.appendChild(p); turn.appendChild(ol);
        turns.appendChild(turn);
      }
      var tmp = document.createElement("ol");
      tmp.innerHTML = m.html; // rendered and escaped by the server's templates
      var li = tmp.firstElementChild;
      var old = li && document.getElementById(li.id);
      if (old) { old.replaceWith(li); } else if (li) { turn.querySelector("ol.steps").appendChild(li); }
      if (li) {
        li.classList.add("fresh");
        li.querySelectorAll('form.pin input[name="back"]').forEach(function (i) { i.value = location.pathname; });
      }
      tl.dataset.last = m.turn + "." + m.step;
    });
    es.addEventListener("usage", function (ev) {
      var m = JSON.parse(ev.data);
      var g = document.getElementById("gauge");
      if (g && m.html) { g.outerHTML = m.html; }
      var c = document.getElementById("chart");
      if (c && m.chart) { c.innerHTML = m.chart; bindChart(c); }
    });
  }
})();

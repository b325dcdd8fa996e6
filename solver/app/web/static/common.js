// Shared by the pages (board, trainer, explorer, play): the JSON API and the board drawing.
// Boards are drawn as the puzzle book draws them (puzzles/book.py): the server sends each
// board's SVG <defs> (the empty board, a stone of each colour, a mark, a dead cross, a
// last-move dot) and the points' coordinates once; a position is a few <use> elements.
var Meridians = (function () {
  "use strict";
  var boards = {};

  // signal: an AbortController's, to drop a request whose answer is no longer wanted (the
  // server then stops its search)
  function api(method, url, body, signal) {
    var opts = { method: method, headers: {}, signal: signal };
    if (body !== undefined) { opts.body = JSON.stringify(body); opts.headers["Content-Type"] = "application/json"; }
    return fetch(url, opts).then(function (r) {
      return r.json().then(function (data) { return { ok: r.ok, status: r.status, data: data }; },
                           function () { return { ok: false, status: r.status, data: { error: "the server answered " + r.status } }; });
    }, function (e) {
      if (e && e.name === "AbortError") { return { ok: false, status: 0, aborted: true, data: { error: "stopped" } }; }
      return { ok: false, status: 0, data: { error: "no answer from the server (" + e + ")" } };
    });
  }

  function board(name) {  // a promise of the board's geometry; its defs are put in the page once
    if (boards[name]) { return boards[name]; }
    boards[name] = api("GET", "/api/board?board=" + encodeURIComponent(name)).then(function (r) {
      if (!r.ok) { delete boards[name]; throw new Error(r.data.error); }
      var defs = document.getElementById("board-defs");
      defs.insertAdjacentHTML("beforeend", r.data.defs);
      // the page draws the coordinates itself, over the stones and sized to the board shown
      Array.prototype.forEach.call(defs.querySelectorAll("#lattice-" + r.data.m + " .coordinates"),
                                   function (e) { e.remove(); });
      var g = r.data.geometry, index = {};
      g.names.forEach(function (n, i) { index[n] = i; });
      return { m: r.data.m, name: r.data.board, w: g.w, h: g.h, xy: g.xy, names: g.names, hit: g.hit, index: index };
    });
    return boards[name];
  }

  function use(id, cls, b, p) {
    return '<use href="#' + id + '" class="' + cls + '" data-point="' + b.names[p] + '" x="' + b.xy[2 * p] +
      '" y="' + b.xy[2 * p + 1] + '"/>';
  }

  // The value markers of the analysis board: a shape as well as a colour, and a word
  // in the point's tooltip (the marker itself is readable without colour).
  var R = 9;
  // A move that is neither proven nor estimated (too few visits) gets no marker: an empty
  // point says "not searched", where a number would read as a verdict.
  function marker(b, p, mv, best) {
    var x = b.xy[2 * p], y = b.xy[2 * p + 1], name = b.names[p], out = [];
    var proven = mv.value !== "unknown", est = mv.estimate;
    if (!proven && !est) { return ""; }
    var value = proven ? mv.value : shownRate(est);
    var kind = proven ? mv.value : "estimate";
    var title = name + ": " + (proven ? mv.value + " (" + mv.source + ")" : estimateText(est));
    out.push('<g class="mv ' + kind + (best ? " best" : "") + '" data-x="' + x + '" data-y="' + y + '" data-point="' + name + '" data-value="' +
             value + '" data-source="' + mv.source + '" data-visits="' + mv.visits + '"><title>' + title + "</title>");
    if (kind === "win") {  // a triangle pointing up
      out.push('<polygon points="' + x + "," + (y - R) + " " + (x + R) + "," + (y + R * 0.75) + " " + (x - R) + "," +
               (y + R * 0.75) + '" fill="#0072b2" stroke="#fff" stroke-width="1.5"/>');
    } else if (kind === "loss") {  // a cross
      out.push('<path d="M' + (x - 7) + " " + (y - 7) + "L" + (x + 7) + " " + (y + 7) + "M" + (x + 7) + " " + (y - 7) +
               "L" + (x - 7) + " " + (y + 7) + '" stroke="#d55e00" stroke-width="4" stroke-linecap="round"/>');
    } else if (kind === "draw") {  // a square
      out.push('<rect x="' + (x - 7) + '" y="' + (y - 7) + '" width="14" height="14" fill="#6b6b6b"/>');
    } else {  // an estimate: a circle with the percentage, shaded from loss to win
      var t = Math.max(0, Math.min(1, value));
      var col = "rgb(" + Math.round(213 + (0 - 213) * t) + "," + Math.round(94 + (114 - 94) * t) + "," + Math.round(0 + 178 * t) + ")";
      out.push('<circle cx="' + x + '" cy="' + y + '" r="' + (R + 2) + '" fill="#fff" stroke="' + col + '" stroke-width="3"/>');
      out.push('<text x="' + x + '" y="' + y + '" fill="#222">' + Math.round(100 * value) + "</text>");
    }
    if (best) {
      out.push('<circle cx="' + x + '" cy="' + y + '" r="' + (R + 7) + '" fill="none" stroke="#222" stroke-width="2" stroke-dasharray="4 3"/>');
    }
    out.push("</g>");
    return out.join("");
  }

  // draw(el, b, {stones: {point: "L"|"D"}, dead: [points], last: point, marks: [points], threats: [points],
  //              moves: [the analysis's moves], best: point})
  function draw(el, b, s) {
    var out = ['<svg xmlns="http://www.w3.org/2000/svg" class="meridians position" viewBox="0 0 ' + b.w + " " + b.h + '">'];
    var k = b.m;
    out.push('<use href="#lattice-' + k + '"/>');
    Object.keys(s.stones || {}).forEach(function (n) {
      var c = s.stones[n];
      out.push(use("stone-" + c + "-" + k, c === "L" ? "stone light" : "stone dark", b, b.index[n]));
    });
    (s.marks || []).forEach(function (n) { out.push(use("mark-" + k, "mark", b, b.index[n])); });
    (s.dead || []).forEach(function (n) { out.push(use("dead-" + k, "dead", b, b.index[n])); });
    if (s.last) { out.push(use("last-" + k, "last", b, b.index[s.last])); }
    (s.threats || []).forEach(function (n) {  // a dotted ring around a stone the mover can kill
      var p = b.index[n];
      out.push('<circle class="threat" data-point="' + n + '" cx="' + b.xy[2 * p] + '" cy="' + b.xy[2 * p + 1] +
               '" r="' + (b.hit * 1.0) + '" fill="none" stroke="#cc79a7" stroke-width="3" stroke-dasharray="2 4"/>');
    });
    (s.moves || []).forEach(function (mv) { out.push(marker(b, b.index[mv.move], mv, mv.move === s.best)); });
    out.push(coordinates(b));
    for (var p = 0; p < b.names.length; p++) {
      out.push('<circle class="hit" data-point="' + b.names[p] + '" cx="' + b.xy[2 * p] + '" cy="' + b.xy[2 * p + 1] +
               '" r="' + b.hit + '"><title>' + b.names[p] + "</title></circle>");
    }
    out.push("</svg>");
    el.innerHTML = out.join("");
    fit(el.querySelector("svg"));
  }

  // The coordinates (coords.js), and the value markers sized to the board's scale.
  function coordinates(b) { return MeridiansCoords.coordinates(b); }
  function fit(svg) {
    var scale = MeridiansCoords.fit(svg);
    if (scale) { fitMarks(svg, scale); }
  }
  // the value markers grow where the board is drawn small, up to what the points' spacing leaves
  var MARK_PX = 10, MARK_MAX = 1.4;
  function fitMarks(svg, scale) {
    var k = Math.min(MARK_MAX, Math.max(1, MARK_PX / (12 * scale)));
    Array.prototype.forEach.call(svg.querySelectorAll(".mv"), function (g) {
      var x = g.getAttribute("data-x"), y = g.getAttribute("data-y");
      if (k === 1) { g.removeAttribute("transform"); return; }
      g.setAttribute("transform", "translate(" + x + " " + y + ") scale(" + Math.round(100 * k) / 100 + ") translate(" + -x + " " + -y + ")");
    });
  }
  window.addEventListener("resize", function () {
    Array.prototype.forEach.call(document.querySelectorAll(".board-view svg"), fit);
  });

  function say(el, text, cls) {
    el.textContent = text;
    el.className = (el.className.indexOf("status") >= 0 || el.id === "status" ? "status" : "") + (cls ? " " + cls : "");
  }

  // The calibrated probability where the board has a calibration map, else the win rate.
  function shownRate(e) { return e.calibrated === null || e.calibrated === undefined ? e.win_rate : e.calibrated; }

  function estimateText(e) {
    var range = Math.round(100 * e.low) + "-" + Math.round(100 * e.high) + "%, " + e.visits + " visits";
    if (e.calibrated === null || e.calibrated === undefined) {
      return "estimate " + Math.round(100 * e.win_rate) + "% (" + range + ")";
    }
    return "estimate " + Math.round(100 * e.calibrated) + "% calibrated (win rate " + Math.round(100 * e.win_rate) +
      "%, " + range + ")";
  }

  // An analysis's value in words: proven with its source, or the engine's labelled estimate.
  function valueText(a) {
    if (a.value !== "unknown") { return a.value + " (" + a.source + ")"; }
    if (a.estimate) { return estimateText(a.estimate) + " (engine)"; }
    return "unknown";
  }

  // a file for the user to keep: a link to the blob, clicked, and the blob let go later
  function download(name, blob) {
    var a = document.createElement("a"), url = URL.createObjectURL(blob);
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
  }

  return { api: api, board: board, draw: draw, say: say, valueText: valueText, download: download,
           NAME: { L: "Light", D: "Dark" } };
})();

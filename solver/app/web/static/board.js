// The analysis board: a game as a list of positions (strings) and a cursor; undo and
// redo move the cursor, a new move starts a new line there (the line left is kept as a
// variation, which a click makes the game's line again).  Every position comes from the
// server (/api/play), which applies the rules; this script applies none, except that a
// position repeating an earlier one of the game is a draw (the API sees one position).
(function () {
  "use strict";
  var M = Meridians;
  var $ = function (id) { return document.getElementById(id); };
  var game = { infos: [], moves: [], cursor: 0, lines: [] };
  var geo = null, analysis = null, token = 0, busy = false, running = null, flipped = false;
  var seen = {};  // position -> the latest analysis fetched of it: the graph's values

  function current() { return game.infos[game.cursor]; }
  function repeated(i) {  // the position at i repeats an earlier one of the game
    for (var j = 0; j < i; j++) { if (game.infos[j].position === game.infos[i].position) { return true; } }
    return false;
  }
  function over(i) {
    var info = game.infos[i];
    if (info.outcome) { return M.NAME[info.outcome] + " wins: " + info.reason; }
    if (repeated(i)) { return "Draw: the position repeated."; }
    return null;
  }

  function render() {
    var info = current();
    var stones = {};
    info.light.forEach(function (n) { stones[n] = "L"; });
    info.dark.forEach(function (n) { stones[n] = "D"; });
    var s = { stones: stones, dead: info.dead, last: info.last_move, threats: over(game.cursor) ? [] : info.threatened };
    if (analysis && analysis.position === info.position && !over(game.cursor)) {
      s.moves = $("all-marks").checked ? analysis.moves : worthShowing(analysis); s.best = analysis.best;
    }
    M.draw($("board"), flipped ? turned(geo) : geo, s);
    orient();
    var end = over(game.cursor);
    $("to-move").textContent = end ? "Game over. " + end : M.NAME[info.to_move] + " to move (" + info.board + ", move " + (game.cursor + 1) + ")";
    $("current-position").textContent = info.position;
    showValue();
    graph();
    showHeaders();
    showLines();
    var here = link();
    if (here !== location.pathname + location.search) { history.replaceState(null, "", here); }
    $("undo").disabled = game.cursor === 0;
    $("redo").disabled = game.cursor >= game.moves.length;
    $("engine-move").disabled = !!end;
    var ol = $("moves"), currentEl = null;
    ol.innerHTML = "";
    for (var k = 0; k < game.moves.length; k += 2) {
      var li = document.createElement("li");
      [k, k + 1].forEach(function (j) {
        if (j >= game.moves.length) { return; }
        var sp = document.createElement("button");
        sp.type = "button";
        sp.className = "ply";
        sp.textContent = game.moves[j];
        sp.setAttribute("data-ply", j + 1);
        sp.setAttribute("aria-label", "move " + (j + 1) + ", " + M.NAME[game.infos[j].to_move] + " " + game.moves[j]);
        if (j + 1 === game.cursor) { sp.className = "ply current"; sp.setAttribute("aria-current", "step"); currentEl = sp; }
        li.appendChild(sp);
        li.appendChild(document.createTextNode(" "));
      });
      ol.appendChild(li);
    }
    // the move shown stays in sight in the list (the list scrolls, not the page)
    if (currentEl) {
      var top = currentEl.offsetTop - ol.offsetTop, bottom = top + currentEl.offsetHeight;
      if (top < ol.scrollTop) { ol.scrollTop = top; } else if (bottom > ol.scrollTop + ol.clientHeight) { ol.scrollTop = bottom - ol.clientHeight; }
    } else if (game.cursor === 0) { ol.scrollTop = 0; }
    if (!analysis || analysis.position !== info.position) {
      $("value").textContent = end ? end : ($("analyse-on").checked ? "analysing..." : "-");
      $("top-moves").innerHTML = "";
    } else {
      $("value").textContent = M.NAME[info.to_move] + " to move: " + M.valueText(analysis);
      topLines(analysis);
    }
  }

  // on the board: every proven move, the best move and the engine's three most searched
  // estimates (the rest with "All marks")
  function worthShowing(a) {
    var est = a.moves.filter(function (mv) { return mv.value === "unknown" && mv.estimate; });
    est.sort(function (x, y) { return y.visits - x.visits; });
    var keep = {};
    est.slice(0, 3).forEach(function (mv) { keep[mv.move] = true; });
    return a.moves.filter(function (mv) { return mv.value !== "unknown" || mv.move === a.best || keep[mv.move]; });
  }
  // the analysis's top lines (best first, as the analyst ranks them), each with its first
  // move's value and visits: a click on the first move plays it, on a later one the line up to it
  function topLines(a) {
    var ol = $("top-moves");
    ol.innerHTML = "";
    (a.lines || []).forEach(function (ln, n) {
      var visits = ln.visits ? ln.visits.toLocaleString("en") + " visits" : "";
      var words = ln.value !== "unknown" ? ln.value + " (" + ln.source + (visits ? ", " + visits : "") + ")" :
        ln.estimate ? Math.round(100 * rate(ln.estimate)) + "% (estimate, " + visits + ")" : "not searched" + (visits ? " (" + visits + ")" : "");
      var li = document.createElement("li"), b = document.createElement("button");
      b.type = "button";
      b.className = "top-move";
      b.setAttribute("data-move", ln.move);
      b.setAttribute("aria-label", "Play " + ln.move + ": " + words);
      b.textContent = ln.move;
      li.appendChild(b);
      li.appendChild(document.createTextNode(" " + words));
      if (ln.line.length > 1) {
        var pv = document.createElement("span");
        pv.className = "pv";
        li.appendChild(document.createTextNode(" then "));
        ln.line.slice(1).forEach(function (m, j) {
          var p = document.createElement("button");
          p.type = "button";
          p.className = "ply";
          p.textContent = m;
          p.setAttribute("data-pv", n);
          p.setAttribute("data-pv-ply", j + 2);
          p.setAttribute("aria-label", "line " + (n + 1) + ": play it up to move " + (j + 2) + ", " + m);
          pv.appendChild(p);
          pv.appendChild(document.createTextNode(" "));
        });
        li.appendChild(pv);
      }
      ol.appendChild(li);
    });
  }

  // The position on the board changed: analyse it, let the engine move (not when only
  // browsing the game: stepping back to the engine's turn would make it play there).
  // -- flipping: the board turned half a turn (the points' places turned; the lattice
  // drawn turned, its letters and numbers kept upright) --------------------------------
  var turnedGeo = {};
  function turned(b) {
    if (!turnedGeo[b.name]) {
      var t = {};
      Object.keys(b).forEach(function (k) { t[k] = b[k]; });
      t.xy = b.xy.map(function (v, i) { return Math.round(100 * ((i % 2 ? b.h : b.w) - v)) / 100; });
      turnedGeo[b.name] = t;
    }
    return turnedGeo[b.name];
  }
  function orient() {
    var svg = $("board").querySelector("svg");
    svg.setAttribute("data-flipped", flipped ? "1" : "0");
    $("flip").setAttribute("aria-pressed", flipped ? "true" : "false");
    if (!flipped) { return; }
    var use = svg.querySelector('use[href="#lattice-' + geo.m + '"]'), src = document.getElementById("lattice-" + geo.m);
    var g = document.createElementNS("http://www.w3.org/2000/svg", "g");
    g.setAttribute("class", "lattice turned");
    g.setAttribute("transform", "rotate(180 " + geo.w / 2 + " " + geo.h / 2 + ")");
    Array.prototype.forEach.call(src.childNodes, function (c) { g.appendChild(c.cloneNode(true)); });
    Array.prototype.forEach.call(g.querySelectorAll("text"), function (t) {
      var x = parseFloat(t.getAttribute("x")), y = parseFloat(t.getAttribute("y"));
      var fs = parseFloat(t.getAttribute("font-size")) || 12;  // about the middle of the letters
      t.setAttribute("transform", "rotate(180 " + x + " " + Math.round(100 * (y - 0.35 * fs)) / 100 + ")");
    });
    use.parentNode.replaceChild(g, use);
  }
  function flip() { flipped = !flipped; render(); }

  // -- the value along the game: Light's chances at each move, from the analyses fetched ---
  function rate(e) { return e.calibrated === null || e.calibrated === undefined ? e.win_rate : e.calibrated; }
  // {p: Light's chance, proven, text} of the position after i moves, or null when not analysed
  function lightChance(i) {
    var info = game.infos[i];
    if (info.outcome) { return { p: info.outcome === "L" ? 1 : 0, proven: true, text: M.NAME[info.outcome] + " has won" }; }
    if (repeated(i)) { return { p: 0.5, proven: true, text: "a draw: the position repeated" }; }
    var a = seen[info.position], light = info.to_move === "L";
    if (!a) { return null; }
    if (a.value === "win" || a.value === "loss") {
      var lightWins = (a.value === "win") === light;
      return { p: lightWins ? 1 : 0, proven: true, text: (lightWins ? "Light" : "Dark") + " wins (proven: " + a.source + ")" };
    }
    if (a.value === "draw") { return { p: 0.5, proven: true, text: "a draw (proven: " + a.source + ")" }; }
    if (!a.estimate) { return null; }
    var r = light ? rate(a.estimate) : 1 - rate(a.estimate);
    return { p: r, proven: false, text: "Light " + Math.round(100 * r) + "% (engine estimate, not proven)" };
  }

  function showValue() {  // the bar beside the board: Light's part from the bottom
    var v = lightChance(game.cursor), bar = $("eval-bar");
    bar.className = v ? (v.proven ? "proven" : "estimate") : "none";
    $("eval-light").style.height = (v ? 100 * v.p : 50) + "%";
    var words = v ? v.text : ($("analyse-on").checked ? "not analysed yet" : "not analysed");
    bar.setAttribute("aria-label", "value bar: " + words);
    bar.setAttribute("title", words);
    $("eval-text").textContent = v ? v.text : "";
  }

  var GW = 400, GH = 120, GX = 30, GY = 10;  // the graph's drawing: size and margins
  function graph() {
    var n = game.moves.length, out = [], path = "", pen = false;
    var x = function (i) { return GX + (GW - GX - 10) * (n ? i / n : 0.5); };
    var y = function (p) { return GY + (1 - p) * (GH - 2 * GY); };
    out.push('<rect x="' + GX + '" y="' + GY + '" width="' + (GW - GX - 10) + '" height="' + (GH - 2 * GY) + '" fill="#fffdf8" stroke="#d8c9a8"/>');
    out.push('<line x1="' + GX + '" x2="' + (GW - 10) + '" y1="' + y(0.5) + '" y2="' + y(0.5) + '" stroke="#b9a988" stroke-dasharray="4 4"/>');
    out.push('<text x="' + (GX - 4) + '" y="' + (y(1) + 4) + '" text-anchor="end">L</text><text x="' + (GX - 4) + '" y="' + (y(0) + 4) +
             '" text-anchor="end">D</text><text x="' + (GX - 4) + '" y="' + (y(0.5) + 4) + '" text-anchor="end">50</text>');
    var pts = [];
    for (var i = 0; i <= n; i++) {
      var v = lightChance(i);
      // a column a move wide: a click anywhere in it goes to that move
      out.push('<rect class="gcol" data-ply="' + i + '" x="' + (x(i) - (GW - GX - 10) / Math.max(1, n) / 2) + '" y="0" width="' +
               ((GW - GX - 10) / Math.max(1, n)) + '" height="' + GH + '" fill="transparent"><title>' +
               (i ? "move " + i + " (" + game.moves[i - 1] + ")" : "the start") + ": " + (v ? v.text : "not analysed") + "</title></rect>");
      if (!v) { pen = false; continue; }
      path += (pen ? "L" : "M") + x(i).toFixed(1) + " " + y(v.p).toFixed(1);
      pen = true;
      pts.push('<circle class="gp ' + (v.proven ? "proven" : "estimate") + '" data-ply="' + i + '" data-value="' + v.p.toFixed(3) +
               '" cx="' + x(i).toFixed(1) + '" cy="' + y(v.p).toFixed(1) + '" r="4.5" stroke="#3b2f20" stroke-width="1.6" fill="' +
               (v.proven ? "#3b2f20" : "#fffdf8") + '"><title>' + (i ? "move " + i : "the start") + ": " + v.text + "</title></circle>");
    }
    out.push('<line class="now" x1="' + x(game.cursor) + '" x2="' + x(game.cursor) + '" y1="' + GY + '" y2="' + (GH - GY) +
             '" stroke="#0072b2" stroke-width="2"/>');
    if (path) { out.push('<path d="' + path + '" fill="none" stroke="#3b2f20" stroke-width="1.5" pointer-events="none"/>'); }
    $("graph").innerHTML = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + GW + " " + GH + '">' + out.join("") + pts.join("") + "</svg>";
  }

  // -- a loaded record's headers: who played, the result, the rest as written ------------
  var RESULT = { L: "Light won", D: "Dark won", draw: "a draw" };
  function showHeaders() {
    var rec = game.record, dl = $("headers");
    // (a game from a link, or a record of moves alone, has nothing to show)
    $("game-panel").hidden = !rec || (!Object.keys(rec.headers).length && !rec.result && !rec.swap);
    if ($("game-panel").hidden) { return; }
    var h = rec.headers, rows = [["Light", h.Light || "not named"], ["Dark", h.Dark || "not named"],
                                 ["Result", rec.result ? RESULT[rec.result] : "not stated"]];
    Object.keys(h).forEach(function (k) { if (k !== "Light" && k !== "Dark") { rows.push([k, h[k]]); } });
    if (rec.swap) { rows.push(["Pie", "the second player took Light"]); }
    if (rec.moves.join() !== game.moves.join()) { rows.push(["Note", "the moves are no longer the record's"]); }
    dl.innerHTML = "";
    rows.forEach(function (r) {
      var dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = r[0];
      dd.textContent = r[1];
      dl.appendChild(dt);
      dl.appendChild(dd);
    });
  }

  // -- export: the record in our format, the board as SVG and PNG ------------------------
  var download = Meridians.download;
  function fileStem() {
    return "meridians-" + geo.name.replace("/", "-") + "-move-" + game.cursor;
  }

  function exportRecord() {
    var rec = game.record, moves = game.moves;
    var starts = function (n) { return rec && rec.moves.length >= n && moves.length >= n && rec.moves.slice(0, n).join() === moves.slice(0, n).join(); };
    var body = { start: game.infos[0].position, moves: moves, headers: rec ? rec.headers : null,
                 variations: (game.lines || []).map(movesOf),  // each whole from the start: the server makes the tree
                 // a loaded record's stated result stands while its moves do; its colour choice while its first two do
                 result: rec && rec.moves.length === moves.length && starts(moves.length) ? rec.result : null,
                 swap: !!(rec && rec.swap && starts(2)) };
    M.api("POST", "/api/record-text", body).then(function (r) {
      if (!r.ok) { M.say($("status"), "Export: " + r.data.error, "error"); return; }
      download(r.data.filename, new Blob([r.data.text], { type: "text/plain;charset=utf-8" }));
      var n = (game.lines || []).length;
      M.say($("status"), "Exported the record (" + moves.length + " moves" + (n ? ", " + n + " variation" + (n > 1 ? "s" : "") : "") +
            ") as " + r.data.filename + ".", "");
    });
  }

  // The board as drawn, standing alone: the drawings it uses copied in, the click targets
  // left out, the markers' lettering given its style.
  function boardSvg() {
    var svg = $("board").querySelector("svg").cloneNode(true);
    Array.prototype.forEach.call(svg.querySelectorAll(".hit"), function (e) { e.remove(); });
    var defs = document.createElementNS("http://www.w3.org/2000/svg", "defs"), seen = {};
    Array.prototype.forEach.call(svg.querySelectorAll("use"), function (u) {
      var id = (u.getAttribute("href") || "").slice(1);
      if (id && !seen[id]) { seen[id] = true; defs.appendChild(document.getElementById(id).cloneNode(true)); }
    });
    var style = document.createElementNS("http://www.w3.org/2000/svg", "style");
    style.textContent = ".mv text { font: bold 12px Helvetica, Arial, sans-serif; text-anchor: middle; dominant-baseline: central; }";
    var title = document.createElementNS("http://www.w3.org/2000/svg", "title");
    title.textContent = "Meridians " + geo.name + ": " + current().position;
    svg.insertBefore(defs, svg.firstChild);
    svg.insertBefore(style, defs);
    svg.insertBefore(title, style);
    svg.setAttribute("width", geo.w);
    svg.setAttribute("height", geo.h);
    svg.removeAttribute("class");
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(svg) + "\n";
  }
  function exportSvg() {
    var name = fileStem() + ".svg";
    download(name, new Blob([boardSvg()], { type: "image/svg+xml" }));
    M.say($("status"), "Exported the board as " + name + ".", "");
  }
  // The SVG drawn on a canvas (through a data: address, which the page's policy allows
  // for images), 1,200 pixels wide.
  function exportPng() {
    var img = new Image(), name = fileStem() + ".png";
    img.onload = function () {
      var c = document.createElement("canvas"), scale = 1200 / geo.w;
      c.width = Math.round(geo.w * scale);
      c.height = Math.round(geo.h * scale);
      c.getContext("2d").drawImage(img, 0, 0, c.width, c.height);
      c.toBlob(function (blob) {
        if (!blob) { M.say($("status"), "Export: the picture could not be made.", "error"); return; }
        download(name, blob);
        M.say($("status"), "Exported the board as " + name + " (" + c.width + " x " + c.height + " pixels).", "");
      }, "image/png");
    };
    img.onerror = function () { M.say($("status"), "Export: the picture could not be drawn.", "error"); };
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(boardSvg());
  }

  // -- moving through the game ---------------------------------------------------------
  function go(ply) {
    ply = Math.max(0, Math.min(game.moves.length, ply));
    if (!game.infos.length || ply === game.cursor) { return; }
    game.cursor = ply;
    changed(true);
  }

  function changed(browse) {
    if (running) { running.abort(); running = null; }  // the server stops the old position's search
    var info = current(), mine = ++token;
    analysis = $("analyse-on").checked ? seen[info.position] || null : null;  // shown at once, if fetched before
    render();
    if (over(game.cursor)) { return; }
    if (browse !== true && $("engine-side").value === info.to_move) { engineMove(); return; }
    if (!$("analyse-on").checked) { return; }
    if (analysis && analysis.value !== "unknown") { return; }  // proven: a new search adds nothing
    analyse(info, mine);
  }

  function analyse(info, mine) {
    running = new AbortController();
    M.api("GET", "/api/analyse?position=" + encodeURIComponent(info.position) + "&time=" + $("time").value,
          undefined, running.signal).then(function (r) {
      if (mine !== token || r.aborted) { return; }  // the board moved on meanwhile
      running = null;
      if (r.status === 503 && r.data.compiling) {  // a board's first use: say so, ask again
        $("value").textContent = r.data.error;
        setTimeout(function () { if (mine === token) { analyse(info, mine); } }, 2000);
        return;
      }
      if (!r.ok) { M.say($("status"), "Analysis: " + r.data.error, "error"); return; }
      analysis = seen[info.position] = r.data;
      render();
    });
  }

  // A move played at the cursor: the game's next move again just steps forward; another
  // move starts a new line there, and the line it leaves is kept as a variation.
  function push(info) {
    if (game.cursor < game.moves.length && game.moves[game.cursor] === info.last_move) { game.cursor += 1; return; }
    if (game.cursor < game.moves.length) { keep(game.infos); }
    game.infos = game.infos.slice(0, game.cursor + 1);
    game.moves = game.moves.slice(0, game.cursor);
    game.infos.push(info);
    game.moves.push(info.last_move);
    game.cursor += 1;
    adopt();
  }

  // -- variations: the other lines of the game, each whole from the start ---------------
  function movesOf(line) { return line.slice(1).map(function (i) { return i.last_move; }); }
  function isPrefix(a, b) { return a.length <= b.length && a.every(function (m, i) { return m === b[i]; }); }
  function keep(line) {  // a line is kept unless another already holds it (and holds those it continues)
    var ms = movesOf(line);
    game.lines = (game.lines || []).filter(function (l) { return !isPrefix(movesOf(l), ms); });
    if (!game.lines.some(function (l) { return isPrefix(ms, movesOf(l)); })) { game.lines.push(line); }
  }
  // The lines as a tree: no line holds another (as its beginning), the game's line included;
  // a line that goes on where the game's line ends becomes the game's line (the move played
  // was one of the tree's: its continuation is shown), the cursor staying where it is.
  function adopt() {
    game.lines = game.lines.filter(function (l) { return !isPrefix(movesOf(l), game.moves); });
    for (var n = 0; n < game.lines.length; n++) {
      if (isPrefix(game.moves, movesOf(game.lines[n]))) {
        game.infos = game.lines.splice(n, 1)[0];
        game.moves = movesOf(game.infos);
        return;
      }
    }
  }
  function diverge(ms) {  // the number of moves a line shares with the game's
    var k = 0;
    while (k < ms.length && k < game.moves.length && ms[k] === game.moves[k]) { k++; }
    return k;
  }
  function toLine(n, ply) {  // the variation n becomes the game's line, shown after ply moves
    var line = game.lines[n];
    game.lines.splice(n, 1);
    keep(game.infos);
    game.infos = line;
    game.moves = movesOf(line);
    game.cursor = ply;
    changed(true);
  }
  function showLines() {
    var box = $("variations");
    box.innerHTML = "";
    (game.lines || []).map(function (line, n) { return { n: n, ms: movesOf(line) }; })
      .sort(function (a, b) { return diverge(a.ms) - diverge(b.ms); })
      .forEach(function (v) {
        var k = diverge(v.ms), li = document.createElement("li");
        li.appendChild(document.createTextNode((k ? "after " + k + " (" + game.moves[k - 1] + "):" : "from the start:") + " "));
        v.ms.slice(k).forEach(function (m, j) {
          var b = document.createElement("button");
          b.type = "button";
          b.className = "ply";
          b.textContent = m;
          b.setAttribute("data-line", v.n);
          b.setAttribute("data-line-ply", k + j + 1);
          b.setAttribute("aria-label", "variation, move " + (k + j + 1) + ", " + m);
          li.appendChild(b);
          li.appendChild(document.createTextNode(" "));
        });
        box.appendChild(li);
      });
    $("variations-head").hidden = !(game.lines && game.lines.length);
  }

  function play(point) {
    if (busy) { return; }
    var end = over(game.cursor);
    if (end) { M.say($("status"), point + " cannot be played: " + end, "error"); return; }
    var info = current();
    if (info.legal_moves.indexOf(point) < 0) {  // refused: the server names the rule it breaks
      M.api("GET", "/api/explain?position=" + encodeURIComponent(info.position) + "&move=" + encodeURIComponent(point)).then(function (r) {
        M.say($("status"), "Refused: " + (r.ok ? r.data.reason : r.data.error), "error");
      });
      return;
    }
    busy = true;
    M.api("POST", "/api/play", { position: info.position, move: point }).then(function (r) {
      busy = false;
      if (!r.ok) { M.say($("status"), "Refused: " + r.data.error, "error"); return; }
      push(r.data);
      var removed = r.data.removed.length ? " (" + r.data.removed.length + " stone" + (r.data.removed.length > 1 ? "s" : "") + " removed)" : "";
      M.say($("status"), M.NAME[r.data.to_move === "L" ? "D" : "L"] + " played " + point + removed + ".", "");
      changed();
    });
  }

  // The moves of a line from the position shown, one after another through the server's
  // rules (the game's own next moves just step forward), the analysis of the last only.
  function playLine(moves) {
    if (busy || !moves.length) { return; }
    var end = over(game.cursor);
    if (end) { M.say($("status"), moves[0] + " cannot be played: " + end, "error"); return; }
    busy = true;
    (function step(i) {
      if (i === moves.length || over(game.cursor)) {
        busy = false;
        M.say($("status"), "Played the line " + moves.slice(0, i).join(" ") + ".", "");
        changed();
        return;
      }
      M.api("POST", "/api/play", { position: current().position, move: moves[i] }).then(function (r) {
        if (!r.ok) { busy = false; M.say($("status"), "Refused: " + r.data.error, "error"); changed(true); return; }
        push(r.data);
        step(i + 1);
      });
    })(0);
  }

  function engineMove() {
    var info = current(), mine = token;
    M.say($("status"), "The engine is thinking...", "");
    busy = true;
    M.api("GET", "/api/move?position=" + encodeURIComponent(info.position) + "&time=" + $("time").value).then(function (r) {
      busy = false;
      if (mine !== token) { return; }
      if (r.status === 503 && r.data.compiling) {  // a board's first use: say so, ask again
        M.say($("status"), r.data.error, "");
        setTimeout(function () { if (mine === token) { engineMove(); } }, 2000);
        return;
      }
      if (!r.ok) { M.say($("status"), "Engine: " + r.data.error, "error"); return; }
      if (r.data.position === info.position) { seen[info.position] = r.data; }  // its analysis of the position it left
      push(r.data.after);
      M.say($("status"), "The engine played " + r.data.move + ": " + M.valueText(r.data) + " for the engine.", "");
      changed();
    });
  }

  // cursor: the move to show (default: the last); record: a loaded record's headers,
  // result and swap, kept for its export while its moves stand; others: the variations'
  // lines (infos, each whole from the start)
  function start(infos, moves, cursor, record, others) {
    return M.board(infos[0].board).then(function (b) {
      geo = b;
      var at = cursor === undefined || cursor === null || isNaN(cursor) ? moves.length : Math.max(0, Math.min(moves.length, cursor));
      game = { infos: infos, moves: moves, cursor: at, record: record || null, lines: [] };
      (others || []).forEach(keep);
      adopt();
      $("board-size").value = b.name;
      changed(!!record);  // a new game lets the engine open; a loaded one is looked at first
    });
  }

  function newGame(text) {
    return M.api("GET", "/api/position?position=" + encodeURIComponent(text)).then(function (r) {
      if (!r.ok) { M.say($("status"), "Not loaded: " + r.data.error, "error"); return false; }
      M.say($("status"), "", "");
      return start([r.data], []).then(function () { return true; });
    });
  }

  // The infos of a line's positions (each position asked of the server once: cache), with
  // the moves that reached them; a promise, rejected with the server's error.
  function infosOf(line, cache) {
    return Promise.all(line.positions.map(function (p) {
      if (!cache[p]) { cache[p] = M.api("GET", "/api/position?position=" + encodeURIComponent(p)); }
      return cache[p];
    })).then(function (rs) {
      var bad = rs.filter(function (x) { return !x.ok; });
      if (bad.length) { throw new Error(bad[0].data.error); }
      var infos = rs.map(function (x) { var c = {}; Object.keys(x.data).forEach(function (k) { c[k] = x.data[k]; }); return c; });
      line.moves.forEach(function (m, i) { infos[i + 1].last_move = m; });
      return infos;
    });
  }
  // lines: {moves, positions} of the game's line, then of the variations (whole from the start)
  function startLines(lines, cursor, record) {
    var cache = {};
    return Promise.all(lines.map(function (l) { return infosOf(l, cache); })).then(function (all) {
      return start(all[0], lines[0].moves, cursor, record, all.slice(1)).then(function () { return true; });
    }, function (e) { M.say($("status"), "Not loaded: " + e.message, "error"); return false; });
  }
  function recordOf(data) {
    return { headers: data.headers || {}, result: data.result, swap: !!data.swap, moves: data.moves.slice() };
  }

  // A game record (either format) replayed by the server; a promise of whether it loaded.
  function loadRecord(text, cursor) {
    return M.api("POST", "/api/record", { text: text, board: $("board-size").value }).then(function (r) {
      if (!r.ok) { M.say($("status"), "Not loaded: " + r.data.error, "error"); return false; }
      var vs = r.data.variations || [];
      // said once the game is on the board: its positions are fetched first, and a test
      // (or a player) that reads "Loaded" must find the moves there
      return startLines([{ moves: r.data.moves, positions: r.data.positions }].concat(vs), cursor, recordOf(r.data)).then(function (ok) {
        if (ok) {
          M.say($("status"), "Loaded a game of " + r.data.moves.length + " moves" +
                (vs.length ? " and " + vs.length + " variation" + (vs.length > 1 ? "s" : "") : "") + ".", "");
        }
        return ok;
      });
    });
  }

  function load() {
    var text = $("paste").value.trim();
    if (!text) { M.say($("status"), "Paste a position, a board or a game record first.", "error"); return; }
    var lines = text.split("\n").filter(function (l) { return l.trim(); });
    if (text.charAt(0) !== "{" && lines.length === 1 && text.indexOf(",") < 0 && text.split(/\s+/).length <= 2) {
      newGame(text);
      return;
    }
    loadRecord(text);
  }

  // -- the link: the start, the moves and the move shown, in the page's address ----------
  function emptyOf(board) {  // the empty board's notation: rows of m, m+1, ..., 2m, ..., m points
    var m = parseInt(board, 10), rows = [];
    for (var i = 0; i <= 2 * m; i++) { rows.push(m + Math.min(i, 2 * m - i)); }
    return rows.join("/") + " L";
  }
  function enc(s) { return encodeURIComponent(s).replace(/%2F/g, "/").replace(/%20/g, "+"); }
  function link() {
    var first = game.infos[0];
    var q = "?position=" + enc(first.position === emptyOf(first.board) ? first.board : first.position);
    if (game.moves.length) { q += "&moves=" + game.moves.map(enc).join(","); }
    // each variation: the number of the game's moves it shares, then its own moves
    (game.lines || []).forEach(function (l) {
      var ms = movesOf(l), k = diverge(ms);
      q += "&var=" + k + ":" + ms.slice(k).map(enc).join(",");
    });
    if (game.cursor < game.moves.length) { q += "&ply=" + game.cursor; }
    if (flipped) { q += "&flip=1"; }
    return location.pathname + q;
  }
  function fromLink() {
    var q = new URLSearchParams(location.search);
    var first = (q.get("position") || "").trim() || $("board-size").value;
    var moves = (q.get("moves") || "").split(/[\s,]+/).filter(Boolean);
    var ply = q.get("ply");
    flipped = q.get("flip") === "1";
    var shown = newGame, at = ply === null ? null : parseInt(ply, 10);
    if (moves.length) {
      shown = function () { return linked(first, moves, q.getAll("var"), at); };
    }
    return shown(first).then(function (ok) {
      if (ok) { return; }
      var why = $("status").textContent;  // the link's fault, said again over the board that replaces it
      return (moves.length ? newGame(first) : Promise.resolve(false)).then(function (ok2) {
        return ok2 ? true : newGame($("board-size").value);
      }).then(function () { M.say($("status"), "The link was not loaded: " + why.replace(/^Not loaded: /, ""), "error"); });
    });
  }

  // A link's game: its line and its variations ("K:m1,m2": the game's first K moves, then
  // those), each replayed by the server; a variation that does not replay is left out, and said.
  function linked(first, moves, vars, at) {
    var lines = [moves], wrong = [];
    vars.forEach(function (v) {
      var m = /^(\d+):(.+)$/.exec(v), k = m ? parseInt(m[1], 10) : -1;
      var own = m ? m[2].split(/[\s,]+/).filter(Boolean) : [];
      if (!m || k >= moves.length || !own.length) { wrong.push("var=" + v + ": give K:moves, K fewer than the game's " + moves.length + " moves"); return; }
      lines.push(moves.slice(0, k).concat(own));
    });
    return Promise.all(lines.map(function (ms) {
      return M.api("POST", "/api/record", { text: first + "\n" + ms.join(" "), board: $("board-size").value });
    })).then(function (rs) {
      if (!rs[0].ok) { M.say($("status"), "Not loaded: " + rs[0].data.error, "error"); return false; }
      rs.slice(1).forEach(function (r) { if (!r.ok) { wrong.push("a variation: " + r.data.error); } });
      var ok = rs.filter(function (r) { return r.ok; }).map(function (r) { return { moves: r.data.moves, positions: r.data.positions }; });
      M.say($("status"), "", "");
      return startLines(ok, at, recordOf(rs[0].data)).then(function (done) {
        if (done && wrong.length) { M.say($("status"), "Not all of the link was loaded: " + wrong[0], "error"); }
        return done;
      });
    });
  }

  $("board").addEventListener("click", function (ev) {
    var t = ev.target.closest && ev.target.closest(".hit");
    if (t) { play(t.getAttribute("data-point")); }
  });
  $("moves").addEventListener("click", function (ev) {
    var ply = ev.target.getAttribute && ev.target.getAttribute("data-ply");
    if (ply) { go(parseInt(ply, 10)); }
  });
  $("undo").addEventListener("click", function () {
    if (game.cursor === 0) { return; }
    game.cursor -= 1;
    // against the engine, take back its reply and your move together (else it would
    // play its reply again at once)
    if (game.cursor > 0 && $("engine-side").value === current().to_move) { game.cursor -= 1; }
    changed();
  });
  $("redo").addEventListener("click", function () { if (game.cursor < game.moves.length) { game.cursor += 1; changed(); } });
  $("new-game").addEventListener("click", function () { newGame($("board-size").value); });
  $("board-size").addEventListener("change", function () { newGame($("board-size").value); });
  $("analyse-on").addEventListener("change", changed);
  $("engine-side").addEventListener("change", changed);
  $("engine-move").addEventListener("click", function () { if (!over(game.cursor)) { token++; engineMove(); } });
  $("load").addEventListener("click", load);
  $("flip").addEventListener("click", flip);
  $("variations").addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("[data-line]");
    if (b) { toLine(parseInt(b.getAttribute("data-line"), 10), parseInt(b.getAttribute("data-line-ply"), 10)); }
  });
  $("all-marks").addEventListener("change", render);
  $("top-moves").addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("[data-move]");
    if (b) { play(b.getAttribute("data-move")); return; }
    var p = ev.target.closest && ev.target.closest("[data-pv]");
    var ln = p && analysis && analysis.lines && analysis.lines[parseInt(p.getAttribute("data-pv"), 10)];
    if (ln) { playLine(ln.line.slice(0, parseInt(p.getAttribute("data-pv-ply"), 10))); }
  });
  $("play-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var name = $("move-input").value.trim().toLowerCase();
    if (!name) { M.say($("status"), "Write a point's name, such as c3, to play it.", "error"); return; }
    if (!geo || geo.index[name] === undefined) { M.say($("status"), name + " is not a point of the " + (geo ? geo.name : "") + " board.", "error"); return; }
    $("move-input").value = "";
    play(name);
  });
  $("graph").addEventListener("click", function (ev) {
    var t = ev.target.closest && ev.target.closest("[data-ply]");
    if (t) { go(parseInt(t.getAttribute("data-ply"), 10)); }
  });
  $("export-record").addEventListener("click", exportRecord);
  $("export-svg").addEventListener("click", exportSvg);
  $("export-png").addEventListener("click", exportPng);
  // the keys (listed on the page), unless typing in a field or choosing in a list
  var KEYS = { ArrowLeft: function () { go(game.cursor - 1); }, ArrowRight: function () { go(game.cursor + 1); },
               Home: function () { go(0); }, End: function () { go(game.moves.length); }, f: flip,
               m: function () { $("all-marks").checked = !$("all-marks").checked; render(); } };
  document.addEventListener("keydown", function (ev) {
    var t = ev.target, tag = t && t.tagName, key = ev.key && ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
    if (ev.altKey || ev.ctrlKey || ev.metaKey || !KEYS[key] || !game.infos.length) { return; }
    if (tag === "TEXTAREA" || tag === "SELECT" || (t && t.isContentEditable) ||
        (tag === "INPUT" && ["checkbox", "radio", "button", "submit"].indexOf(t.type) < 0)) { return; }
    ev.preventDefault();
    KEYS[key]();
  });
  fromLink();
})();

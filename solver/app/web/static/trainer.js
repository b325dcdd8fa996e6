// The puzzle trainer: a puzzle's start and line as the puzzle book computes them
// (puzzles/book.py puzzle_data: for each move the point, the stones it removed, the dead
// stones, the target's group and the attacker's legal points), so no rules run here.
// The player's rating (Glicko-2), the streak and timed runs and the progress live in this
// browser's localStorage.
(function () {
  "use strict";
  var M = Meridians;
  var $ = function (id) { return document.getElementById(id); };
  var KEY = "meridians-trainer-progress", RATING_KEY = "meridians-trainer-rating", BEST_KEY = "meridians-trainer-best";
  var OTHER = { L: "D", D: "L" };
  var list = [], at = -1, P = null, geo = null, st = null, timer = null, advance = null, legendFor = null, note = "";
  var filters = ["board", "n", "theme", "rating"];
  var firstId = new URLSearchParams(location.search).get("id");

  // -- the player's rating: Glicko-2 -------------------------------------------------------
  // Glickman, "Example of the Glicko-2 system" (2012): one rating period with the games
  // [{r, rd, s}] (the opponents' ratings and deviations, the player's scores 0..1);
  // tau: the system constant.  A pure function of its arguments.
  var SCALE = 173.7178;
  function glicko2(p, games, tau) {
    var mu = (p.r - 1500) / SCALE, phi = p.rd / SCALE, sigma = p.vol;
    if (!games.length) { return { r: p.r, rd: SCALE * Math.sqrt(phi * phi + sigma * sigma), vol: sigma }; }
    var g = function (ph) { return 1 / Math.sqrt(1 + 3 * ph * ph / (Math.PI * Math.PI)); };
    var vinv = 0, sum = 0;
    games.forEach(function (o) {
      var muj = (o.r - 1500) / SCALE, gj = g(o.rd / SCALE), e = 1 / (1 + Math.exp(-gj * (mu - muj)));
      vinv += gj * gj * e * (1 - e);
      sum += gj * (o.s - e);
    });
    var v = 1 / vinv, delta = v * sum, a = Math.log(sigma * sigma), phi2 = phi * phi;
    var f = function (x) {
      var ex = Math.exp(x), d = phi2 + v + ex;
      return ex * (delta * delta - phi2 - v - ex) / (2 * d * d) - (x - a) / (tau * tau);
    };
    // the new volatility: Illinois's regula falsi on f, to within eps
    var A = a, B, k = 1, eps = 1e-6;
    if (delta * delta > phi2 + v) { B = Math.log(delta * delta - phi2 - v); }
    else { while (f(a - k * tau) < 0) { k++; } B = a - k * tau; }
    var fA = f(A), fB = f(B);
    while (Math.abs(B - A) > eps) {
      var C = A + (A - B) * fA / (fB - fA), fC = f(C);
      if (fC * fB <= 0) { A = B; fA = fB; } else { fA = fA / 2; }
      B = C; fB = fC;
    }
    var vol = Math.exp(A / 2), star = Math.sqrt(phi2 + vol * vol);
    var phiNew = 1 / Math.sqrt(1 / (star * star) + 1 / v);
    return { r: SCALE * (mu + phiNew * phiNew * sum) + 1500, rd: SCALE * phiNew, vol: vol };
  }
  // A puzzle as an opponent: its rating from solvers' attempts (puzzles/attempts.py, the record's
  // rating) when it has one, else a fixed scale from its N and its difficulty 1..5 within that N
  // (puzzles/rating.py), 200 points an N and 60 a difficulty step; neither measured on players.
  function puzzleRating(n, difficulty, measured) {
    if (measured !== null && measured !== undefined) { return measured; }
    return 1000 + 200 * n + 60 * ((difficulty === null || difficulty === undefined ? 3 : difficulty) - 3);
  }
  var TAU = 0.5, PUZZLE_RD = 100, MAX_RD = 350, PROVISIONAL_RD = 110;
  var START = { r: 1500, rd: 350, vol: 0.06, games: 0 };
  function player() {
    try {
      var p = JSON.parse(localStorage.getItem(RATING_KEY) || "null");
      if (p && isFinite(p.r) && isFinite(p.rd) && p.rd > 0 && isFinite(p.vol) && p.vol > 0) { return p; }
    } catch (e) { /* unreadable: start again */ }
    return { r: START.r, rd: START.rd, vol: START.vol, games: 0 };
  }
  function showRating(change) {
    var p = player();
    $("rating").textContent = Math.round(p.r) + (p.rd > PROVISIONAL_RD ? "?" : "");
    $("rating-detail").textContent = "deviation " + Math.round(p.rd) + ", volatility " + p.vol.toFixed(4) + "; " +
      p.games + " rated puzzle" + (p.games === 1 ? "" : "s") + (p.rd > PROVISIONAL_RD ? " (provisional)" : "");
    $("rating-change").textContent = change === undefined ? "" : (change >= 0 ? "+" : "") + Math.round(change);
    $("rating-change").className = change === undefined ? "" : change >= 0 ? "up" : "down";
  }
  function strength(r) { return puzzleRating(r.n, r.rating, r.puzzle_rating); }
  // A rated puzzle's result, once: 1 solved, 0.5 solved after a hint, 0 missed.
  function rate(score) {
    if (!st || !st.rateable || st.rated) { return; }
    st.rated = true;
    var before = player(), after = glicko2(before, [{ r: strength(P), rd: PUZZLE_RD, s: score }], TAU);
    after.rd = Math.min(after.rd, MAX_RD);
    after.games = (before.games || 0) + 1;
    try { localStorage.setItem(RATING_KEY, JSON.stringify(after)); } catch (e) { /* private mode: not kept */ }
    showRating(after.r - before.r);
  }

  // -- progress ------------------------------------------------------------------------------
  function progress() {
    try { return JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch (e) { return {}; }
  }
  function remember(id, result) {
    var p = progress();
    if (p[id] === "solved" && result !== "solved") { return; }
    if (p[id] === "failed" && result === "solved") { result = "solved after a mistake"; }
    p[id] = result;
    try { localStorage.setItem(KEY, JSON.stringify(p)); } catch (e) { /* private mode: not kept */ }
    showProgress();
  }
  function showProgress() {
    var p = progress(), solved = 0, failed = 0;
    list.forEach(function (r) {
      if (p[r.id] && p[r.id].indexOf("solved") === 0) { solved++; } else if (p[r.id] === "failed") { failed++; }
    });
    $("progress").textContent = list.length ? "puzzle " + (at + 1) + " of " + list.length + "; solved " + solved +
      ", missed " + failed : "no puzzle matches";
  }

  // -- streak and timed runs -------------------------------------------------------------------
  var run = null;  // {kind, count, missed, seen: {id: true}, over, ends, tick}
  var RUN_STEP = 25, RUN_BELOW = 300;
  var setup = { seconds: 180 };  // the timed run's length (tests shorten it)
  function best() { try { return JSON.parse(localStorage.getItem(BEST_KEY) || "{}") || {}; } catch (e) { return {}; } }
  function live() { return run !== null && !run.over; }
  function startRun(kind) {
    stopRun();
    clearTimeout(advance);
    if (kind === "rated") { showRun(); controls(); nextPuzzle(); return; }
    run = { kind: kind, count: 0, missed: 0, seen: {}, over: false, start: player().r - RUN_BELOW };
    if (kind === "timed") {
      run.ends = Date.now() + setup.seconds * 1000;
      run.tick = setInterval(function () {
        if (Date.now() >= run.ends) { endRun("Time is up"); } else { showRun(); }
      }, 250);
    }
    showRun();
    controls();
    nextPuzzle();
  }
  function stopRun() { if (run && run.tick) { clearInterval(run.tick); } run = null; }
  function endRun(why) {
    if (!live()) { return; }
    run.over = true;
    clearInterval(run.tick);
    clearTimeout(advance);
    var b = best();
    run.record = run.count > (b[run.kind] || 0);
    if (run.record) { b[run.kind] = run.count; try { localStorage.setItem(BEST_KEY, JSON.stringify(b)); } catch (e) { /* not kept */ } }
    run.why = why;
    showRun();
    controls();
  }
  function showRun() {
    var el = $("run");
    $("run-start").hidden = $("mode").value === "rated";
    if (!run) { el.textContent = ""; el.removeAttribute("data-count"); return; }
    el.setAttribute("data-count", String(run.count));
    el.setAttribute("data-over", run.over ? "1" : "0");
    var b = best()[run.kind] || 0, t;
    if (run.kind === "streak") {
      t = run.over ? "Streak over: " + run.count + " solved (best " + b + (run.record ? ", a new best" : "") + ")." :
        "Streak: " + run.count + " solved (best " + b + "). It ends at the first miss.";
    } else {
      var left = Math.max(0, Math.ceil((run.ends - Date.now()) / 1000));
      t = run.over ? run.why + ": " + run.count + " solved, " + run.missed + " missed (best " + b +
        (run.record ? ", a new best" : "") + ")." :
        "Time left " + Math.floor(left / 60) + ":" + ("0" + left % 60).slice(-2) + "; solved " + run.count +
        ", missed " + run.missed + " (best " + b + ").";
    }
    if (run.over) { t += " Choose Start for another run."; }
    el.textContent = t;
  }
  function runSolved() {
    if (!live()) { return; }
    run.count++;
    showRun();
    advance = setTimeout(nextPuzzle, 700);
  }
  function runMissed() {
    if (!live()) { return; }
    if (run.kind === "streak") { endRun("Missed"); return; }
    run.missed++;
    showRun();
    advance = setTimeout(nextPuzzle, 1200);
  }
  function controls() {  // a live run moves on by itself: no browsing, no hint
    var busy = live();
    ["prev", "next", "next-puzzle", "hint"].forEach(function (id) { $(id).disabled = busy; });
  }

  // -- choosing the next puzzle: near the player's rating, among the filters' matches ---------
  function pickNear(target) {
    var p = progress(), cur = at >= 0 && list[at] ? list[at].id : null, all = [];
    for (var i = 0; i < list.length; i++) { if (list[i].id !== cur) { all.push(i); } }
    var fresh = function (i) { return !p[list[i].id] && !(run && run.seen[list[i].id]); };
    var unseen = function (i) { return !(run && run.seen[list[i].id]); };
    var pool = all.filter(fresh);
    if (!pool.length) { pool = all.filter(unseen); }
    if (!pool.length) { pool = all.length ? all : (at >= 0 ? [at] : []); }
    if (!pool.length) { return -1; }
    var d = pool.map(function (i) { return Math.abs(strength(list[i]) - target); });
    var least = Math.min.apply(null, d);
    var near = pool.filter(function (i, k) { return d[k] === least; });
    return near[Math.floor(Math.random() * near.length)];
  }
  function nextPuzzle() {
    if (!list.length) { return; }
    var target = live() ? run.start + RUN_STEP * run.count : player().r;
    var i = pickNear(target);
    if (i >= 0) { open(i); }
  }

  // -- the puzzle on the board ---------------------------------------------------------------------
  function isLegal(hex, p) { return hex && ((parseInt(hex.charAt(p >> 2), 16) >> (p & 3)) & 1) === 1; }
  // the line played: the recorded one, or its end after another move that captures at the
  // attacker's last turn (P.data.alt: each such move and a defender reply, as line entries)
  function lineOf() { return (st && st.line) || P.data.line; }
  function positions() {  // the stones after j moves of the line
    var cur = P.data.s.split(""), out = [cur.slice()], side = P.data.x;
    lineOf().forEach(function (mv) {
      cur[mv[0]] = side;
      mv[2].forEach(function (r) { cur[r] = "."; });
      out.push(cur.slice());
      side = OTHER[side];
    });
    return out;
  }
  function info(j) {
    var q = P.data;
    if (j === 0) { return { dead: q.dead, g: q.g, legal: q.legal }; }
    var mv = lineOf()[j - 1];
    return { dead: mv[3], g: mv[4], legal: mv[5] };
  }
  function names(ps) { return ps.map(function (p) { return geo.names[p]; }); }
  var SVGNS = "http://www.w3.org/2000/svg";
  function shape(tag, attrs) {
    var el = document.createElementNS(SVGNS, tag);
    Object.keys(attrs).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    return el;
  }
  function pathMark(x, y, h) {  // a hint's point on the target's paths: a green diamond
    var s = 0.5 * h;
    return shape("polygon", { points: x + "," + (y - s) + " " + (x + s) + "," + y + " " + x + "," + (y + s) + " " + (x - s) + "," + y,
                              fill: "#009e73", stroke: "#3b2f20", "stroke-width": 0.1 * h });
  }
  function keyMark(x, y, h) {  // the hint's move: an orange ring edged in dark, seen on the board and on stones
    var g = shape("g", {});
    g.appendChild(shape("circle", { cx: x, cy: y, r: 0.85 * h, fill: "none", stroke: "#3b2f20", "stroke-width": 0.34 * h }));
    g.appendChild(shape("circle", { cx: x, cy: y, r: 0.85 * h, fill: "none", stroke: "#e69f00", "stroke-width": 0.18 * h }));
    return g;
  }
  function draw() {
    var j = st.view, stones = {}, f = info(j);
    st.pos[j].forEach(function (c, p) { if (c !== ".") { stones[geo.names[p]] = c; } });
    M.draw($("board"), geo, { stones: stones, marks: names(f.g), dead: names(f.dead),
                               last: j > 0 ? geo.names[lineOf()[j - 1][0]] : null });
    if (st.hint && st.hintAt === j && !st.solved && !st.open) {  // drawn under the points' click targets
      var svg = $("board").querySelector("svg"), under = svg.querySelector(".hit"), h = geo.hit;
      var g = shape("g", { "class": "hints" });
      (P.paths[j] || []).forEach(function (p) {
        var el = pathMark(geo.xy[2 * p], geo.xy[2 * p + 1], h);
        el.setAttribute("class", "hint-path");
        el.setAttribute("data-point", geo.names[p]);
        g.appendChild(el);
      });
      if (st.hint >= 2 && j < P.data.line.length) {
        var k = P.data.line[j][0], ring = keyMark(geo.xy[2 * k], geo.xy[2 * k + 1], h);
        ring.setAttribute("class", "hint-key");
        ring.setAttribute("data-point", geo.names[k]);
        g.appendChild(ring);
      }
      svg.insertBefore(g, under);
    }
    var n = lineOf().length, show = st.solved || st.open;
    $("stepper").hidden = !show || n === 0;
    $("ply").textContent = j === 0 ? "start (0 of " + n + ")" :
      (Math.floor((j - 1) / 2) + 1) + (j % 2 ? ". " : "... ") + moveText(j - 1) + " (" + j + " of " + n + ")";
  }
  function legend() {  // the marks, drawn with the board's own pictures
    var y = OTHER[P.data.x];  // the target's colour
    if (legendFor === geo.m + y) { return; }
    legendFor = geo.m + y;
    var k = geo.m, h = geo.hit, box = '<svg xmlns="' + SVGNS + '" width="26" height="26" viewBox="' + (-1.1 * h) + " " +
      (-1.1 * h) + " " + (2.2 * h) + " " + (2.2 * h) + '" aria-hidden="true">';
    var rows = [
      ['<use href="#stone-' + y + "-" + k + '"/><use href="#mark-' + k + '"/>', "the target: the group to capture"],
      ['<use href="#stone-L-' + k + '"/><use href="#dead-' + k + '"/>', "a dead group (no path left): it is removed"],
      ['<use href="#stone-L-' + k + '"/><use href="#last-' + k + '"/>', "the last move"],
      [pathMark(0, 0, h).outerHTML, "hint: an empty point on one of the target's paths"],
      [keyMark(0, 0, h).outerHTML, "second hint: the move to play"]];
    $("legend").innerHTML = rows.map(function (r) { return "<li>" + box + r[0] + "</svg> " + r[1] + "</li>"; }).join("");
  }
  function moveText(j, verb) {
    var q = P.data, mv = lineOf()[j], who = M.NAME[j % 2 === 0 ? q.x : OTHER[q.x]], name = geo.names[mv[0]];
    var t = who + " " + (mv[1] ? (verb || "plays") + " any move (" + name + " shown)" : (verb ? verb + " " : "") + name);
    if (mv[2].indexOf(q.t) >= 0) { t += ": the group at " + geo.names[q.t] + " is captured"; }
    else if (mv[2].length) { t += ": " + mv[2].length + " stone" + (mv[2].length > 1 ? "s" : "") + " removed"; }
    return t;
  }
  function say(text, cls) { M.say($("status"), text, cls); }

  function click(point) {
    var q = P.data, p = geo.index[point], j = st.done;
    if (st.busy || st.solved || st.open || q.k < 0 || st.view !== j || j >= q.line.length) { return; }
    if (run && run.over && run.kind === "timed") { return; }
    if (st.pos[j][p] !== ".") { say(point + " is taken: click an empty point.", "wrong"); return; }
    if (!isLegal(info(j).legal, p)) { say(point + " is not a legal move here.", "wrong"); return; }
    var other = null;
    if (p !== q.line[j][0] && j === q.fin) {
      q.alt.forEach(function (a) { if (a[0][0] === p) { other = a; } });
    }
    if (p !== q.line[j][0] && !other) {
      if (j === 0) { say("Wrong: " + point + " is not the key.", "wrong"); }
      else if (q.df) { say("Wrong: " + point + " does not capture in time.", "wrong"); }
      else { say("Not the recorded line: " + point + " may win too (this puzzle has duals), but the trainer follows its line.", "wrong"); }
      if (!st.missed) { st.missed = true; remember(P.id, "failed"); rate(0); runMissed(); }
      return;
    }
    if (other) { st.line = q.line.slice(0, j).concat(other); st.pos = positions(); }
    st.done = st.view = j + 1;
    var right = j === 0 ? "Right: " + point + " is the key." :
      other ? "Right: " + point + " captures too (at the last move any move that captures counts; the line plays " +
              geo.names[q.line[j][0]] + ")." : "Right: " + point + ".";
    var ln = lineOf();
    if (st.done >= ln.length) { finish(right + " Solved."); return; }
    say(right, "right");
    draw();
    st.busy = true;
    var mine = st;
    timer = setTimeout(function () {
      if (mine !== st) { return; }
      st.busy = false;
      st.done = st.view = j + 2;
      var t = right + " " + moveText(j + 1, "answers") + ".";
      if (st.done >= ln.length) { finish(t + " Solved."); } else { say(t + " Your move.", "right"); draw(); }
    }, 350);
  }
  function finish(text) {
    st.solved = true;
    say(text, "right");
    remember(P.id, "solved");
    if (!st.missed) { rate(st.hinted ? 0.5 : 1); runSolved(); }
    draw();
  }

  function hint() {
    if (!P || !st || st.solved || st.open || st.busy || P.data.k < 0 || live()) { return; }
    var j = st.done;
    if (j >= P.data.line.length) { return; }
    st.view = j;
    st.hint = st.hintAt === j ? Math.min(2, st.hint + 1) : 1;
    st.hintAt = j;
    st.hinted = true;
    draw();
    if (st.hint === 1) {
      say("Hint: the target's group lives by its paths; the green diamonds are the empty points on them.", "");
    } else {
      say("Hint: play the ringed point, " + geo.names[P.data.line[j][0]] + ".", "");
    }
  }
  function reveal() {
    if (!P) { return; }
    st.open = $("solution").hidden;
    $("solution").hidden = !st.open;
    $("reveal").textContent = st.open ? "Hide solution" : "Show solution";
    if (st.open) {
      if (!st.solved) { remember(P.id, "failed"); rate(0); if (!st.missed) { st.missed = true; runMissed(); } }
      st.view = P.data.line.length ? 1 : 0;
      say(P.data.line.length ? "Solution shown: step through it with the buttons below the board or the arrow keys."
        : "No line recorded for this puzzle.", "");
    } else if (!st.solved) {
      st.view = st.done = 0; st.busy = false; st.line = null; st.pos = positions(); say("Click the key.", "");
    }
    draw();
  }
  function step(how) {
    if (!P || $("stepper").hidden) { return; }
    var n = lineOf().length;
    st.view = how === "first" ? 0 : how === "last" ? n : Math.max(0, Math.min(n, st.view + (how === "fwd" ? 1 : -1)));
    draw();
  }

  function open(i) {
    if (i < 0 || i >= list.length) { return; }
    at = i;
    clearTimeout(timer);
    clearTimeout(advance);
    showProgress();
    var id = list[i].id;
    if (run) { run.seen[id] = true; }
    M.api("GET", "/api/puzzle?id=" + encodeURIComponent(id)).then(function (r) {
      if (!r.ok) { say(r.data.error, "error"); return; }
      return M.board(r.data.board).then(function (b) {
        if (list[at] && list[at].id !== id) { return; }
        geo = b; P = r.data;
        var was = progress()[P.id];
        st = { view: 0, done: 0, busy: false, solved: false, open: false, missed: false, pos: null, line: null, hint: 0, hintAt: -1,
               hinted: false, rated: false, rateable: !run && !was && P.data.k >= 0 };
        st.pos = positions();
        $("puzzle-id").textContent = P.id;
        $("task").textContent = P.task;
        var facts = [P.board, "capture in " + P.n];
        if (P.rating !== null) { facts.push("difficulty " + P.rating + "/5"); }
        facts.push("puzzle rating " + strength(P));
        facts.push(P.dual_free ? "dual-free" : "with duals");
        if (P.last_moves.length > 1) { facts.push("last move: any that captures (" + P.last_moves.join(", ") + ")"); }
        if (P.themes.length) { facts.push("themes: " + P.themes.join(", ")); }
        if (was) { facts.push("your earlier result: " + was + " (not rated again)"); }
        else if (run) { facts.push("not rated (" + run.kind + " mode)"); }
        $("facts").textContent = facts.join("; ");
        $("solution").hidden = true;
        $("reveal").textContent = "Show solution";
        $("solution").textContent = "Line: " + P.data.line.map(function (mv, j) {
          return (j % 2 === 0 ? (j / 2 + 1) + ". " : "") + (mv[1] ? "any" : geo.names[mv[0]]);
        }).join(" ");
        say(note + (P.data.k < 0 ? "No key recorded: nothing to solve." : "Click the key."), note ? "error" : "");
        note = "";
        legend();
        draw();
      });
    }).catch(function (e) { say(String(e && e.message || e), "error"); });
  }

  function load() {
    var q = filters.map(function (f) { return f + "=" + encodeURIComponent($("filter-" + f).value); }).join("&");
    return M.api("GET", "/api/puzzles?" + q).then(function (r) {
      if (!r.ok) { say(r.data.error, "error"); return; }
      filters.forEach(function (f) {
        var sel = $("filter-" + f);
        if (sel.options.length > 1) { return; }
        r.data.options[f].forEach(function (v) {
          var o = document.createElement("option");
          o.value = String(v);
          o.textContent = f === "n" ? "capture in " + v : f === "rating" ? "difficulty " + v : String(v);
          sel.appendChild(o);
        });
      });
      list = r.data.puzzles;
      at = -1;
      if (!list.length) { showProgress(); say("No puzzle matches these filters.", ""); return; }
      if (firstId) {  // a link to one puzzle: /trainer?id=...
        var wanted = firstId;
        firstId = null;
        for (var i = 0; i < list.length; i++) { if (list[i].id === wanted) { open(i); return; } }
        note = "No puzzle with id " + wanted + " among these: here is another. ";
      }
      nextPuzzle();
    });
  }

  $("board").addEventListener("click", function (ev) {
    var t = ev.target.closest && ev.target.closest(".hit");
    if (t && P) { click(t.getAttribute("data-point")); }
  });
  $("play-form").addEventListener("submit", function (ev) {  // a move typed by name: the board by keyboard
    ev.preventDefault();
    var point = $("play-point").value.trim().toLowerCase();
    if (!P || !point) { return; }
    if (!(point in geo.index)) { say(point + " is not a point of this board.", "wrong"); return; }
    $("play-point").value = "";
    click(point);
  });
  $("stepper").addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("[data-step]");
    if (b) { step(b.getAttribute("data-step")); }
  });
  $("reveal").addEventListener("click", reveal);
  $("hint").addEventListener("click", hint);
  filters.forEach(function (f) { $("filter-" + f).addEventListener("change", load); });
  $("prev").addEventListener("click", function () { if (list.length) { open((at - 1 + list.length) % list.length); } });
  $("next").addEventListener("click", function () { if (list.length) { open((at + 1) % list.length); } });
  $("next-puzzle").addEventListener("click", nextPuzzle);
  $("mode").addEventListener("change", function () { startRun($("mode").value); });
  $("run-start").addEventListener("click", function () { startRun($("mode").value); });
  $("reset").addEventListener("click", function () {
    [KEY, RATING_KEY, BEST_KEY].forEach(function (k) { localStorage.removeItem(k); });
    showProgress();
    showRating();
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) { return; }
    var tag = ev.target && ev.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
      if (ev.key === "Escape") { ev.target.blur(); }  // back to the page's keys
      return;
    }
    var key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
    var act = { h: hint, s: reveal, n: function () { if (!live()) { nextPuzzle(); } },
                ArrowLeft: function () { step("back"); }, ArrowRight: function () { step("fwd"); },
                Home: function () { step("first"); }, End: function () { step("last"); } }[key];
    if (act) { ev.preventDefault(); act(); }
  });
  window.MeridiansTrainer = { glicko2: glicko2, puzzleRating: puzzleRating, setup: setup,
                              TAU: TAU, PUZZLE_RD: PUZZLE_RD, MAX_RD: MAX_RD };
  showRating();
  showRun();
  load();
})();

// The puzzle trainer: a puzzle's start and line as the puzzle book computes them
// (puzzles/book.py puzzle_data: for each move the point, the stones it removed, the dead
// stones, the target's group and the attacker's legal points), so no rules run here.
(function () {
  "use strict";
  var M = Meridians;
  var $ = function (id) { return document.getElementById(id); };
  var KEY = "meridians-trainer-progress", OTHER = { L: "D", D: "L" };
  var list = [], at = -1, P = null, geo = null, st = null, timer = null;
  var filters = ["board", "n", "theme", "rating"];

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

  function isLegal(hex, p) { return hex && ((parseInt(hex.charAt(p >> 2), 16) >> (p & 3)) & 1) === 1; }
  function positions() {  // the stones after j moves of the line
    var cur = P.data.s.split(""), out = [cur.slice()], side = P.data.x;
    P.data.line.forEach(function (mv) {
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
    var mv = q.line[j - 1];
    return { dead: mv[3], g: mv[4], legal: mv[5] };
  }
  function names(ps) { return ps.map(function (p) { return geo.names[p]; }); }
  function draw() {
    var j = st.view, stones = {}, f = info(j);
    st.pos[j].forEach(function (c, p) { if (c !== ".") { stones[geo.names[p]] = c; } });
    M.draw($("board"), geo, { stones: stones, marks: names(f.g), dead: names(f.dead),
                               last: j > 0 ? geo.names[P.data.line[j - 1][0]] : null });
    var n = P.data.line.length, show = st.solved || st.open;
    $("stepper").hidden = !show || n === 0;
    $("ply").textContent = j === 0 ? "start (0 of " + n + ")" :
      (Math.floor((j - 1) / 2) + 1) + (j % 2 ? ". " : "... ") + moveText(j - 1) + " (" + j + " of " + n + ")";
  }
  function moveText(j, verb) {
    var q = P.data, mv = q.line[j], who = M.NAME[j % 2 === 0 ? q.x : OTHER[q.x]], name = geo.names[mv[0]];
    var t = who + " " + (mv[1] ? (verb || "plays") + " any move (" + name + " shown)" : (verb ? verb + " " : "") + name);
    if (mv[2].indexOf(q.t) >= 0) { t += ": the group at " + geo.names[q.t] + " is captured"; }
    else if (mv[2].length) { t += ": " + mv[2].length + " stone" + (mv[2].length > 1 ? "s" : "") + " removed"; }
    return t;
  }
  function say(text, cls) { M.say($("status"), text, cls); }

  function click(point) {
    var q = P.data, p = geo.index[point], j = st.done;
    if (st.busy || st.solved || st.open || q.k < 0 || st.view !== j || j >= q.line.length) { return; }
    if (st.pos[j][p] !== ".") { say(point + " is taken: click an empty point.", "wrong"); return; }
    if (!isLegal(info(j).legal, p)) { say(point + " is not a legal move here.", "wrong"); return; }
    if (p !== q.line[j][0]) {
      if (j === 0) { say("Wrong: " + point + " is not the key.", "wrong"); }
      else if (q.df) { say("Wrong: " + point + " does not capture in time.", "wrong"); }
      else { say("Not the recorded line: " + point + " may win too (this puzzle has duals), but the trainer follows its line.", "wrong"); }
      if (!st.missed) { st.missed = true; remember(P.id, "failed"); }
      return;
    }
    st.done = st.view = j + 1;
    var right = j === 0 ? "Right: " + point + " is the key." : "Right: " + point + ".";
    if (st.done >= q.line.length) { finish(right + " Solved."); return; }
    say(right, "right");
    draw();
    st.busy = true;
    var mine = st;
    timer = setTimeout(function () {
      if (mine !== st) { return; }
      st.busy = false;
      st.done = st.view = j + 2;
      var t = right + " " + moveText(j + 1, "answers") + ".";
      if (st.done >= q.line.length) { finish(t + " Solved."); } else { say(t + " Your move.", "right"); draw(); }
    }, 350);
  }
  function finish(text) {
    st.solved = true;
    say(text, "right");
    remember(P.id, "solved");
    draw();
  }

  function open(i) {
    if (i < 0 || i >= list.length) { return; }
    at = i;
    clearTimeout(timer);
    showProgress();
    var id = list[i].id;
    M.api("GET", "/api/puzzle?id=" + encodeURIComponent(id)).then(function (r) {
      if (!r.ok) { say(r.data.error, "error"); return; }
      return M.board(r.data.board).then(function (b) {
        if (list[at] && list[at].id !== id) { return; }
        geo = b; P = r.data;
        st = { view: 0, done: 0, busy: false, solved: false, open: false, missed: false, pos: null };
        st.pos = positions();
        $("puzzle-id").textContent = P.id;
        $("task").textContent = P.task;
        var facts = [P.board, "capture in " + P.n];
        if (P.rating !== null) { facts.push("rating " + P.rating + "/5"); }
        facts.push(P.dual_free ? "dual-free" : "with duals");
        if (P.themes.length) { facts.push("themes: " + P.themes.join(", ")); }
        var was = progress()[P.id];
        if (was) { facts.push("your earlier result: " + was); }
        $("facts").textContent = facts.join("; ");
        $("solution").hidden = true;
        $("reveal").textContent = "Show solution";
        $("solution").textContent = "Line: " + P.data.line.map(function (mv, j) {
          return (j % 2 === 0 ? (j / 2 + 1) + ". " : "") + (mv[1] ? "any" : geo.names[mv[0]]);
        }).join(" ");
        say(P.data.k < 0 ? "No key recorded: nothing to solve." : "Click the key.", "");
        draw();
      });
    });
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
          o.textContent = f === "n" ? "capture in " + v : f === "rating" ? "rating " + v : String(v);
          sel.appendChild(o);
        });
      });
      list = r.data.puzzles;
      if (!list.length) { at = -1; showProgress(); say("No puzzle matches these filters.", ""); return; }
      nextUnsolved(-1);
    });
  }
  function nextUnsolved(from) {
    var p = progress();
    for (var k = 1; k <= list.length; k++) {
      var i = (from + k) % list.length;
      if (!p[list[i].id] || p[list[i].id].indexOf("solved") !== 0) { open(i); return; }
    }
    open((from + 1) % list.length);
  }

  $("board").addEventListener("click", function (ev) {
    var t = ev.target.closest && ev.target.closest(".hit");
    if (t && P) { click(t.getAttribute("data-point")); }
  });
  $("stepper").addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("[data-step]");
    if (!b) { return; }
    var how = b.getAttribute("data-step"), n = P.data.line.length;
    st.view = how === "first" ? 0 : how === "last" ? n : Math.max(0, Math.min(n, st.view + (how === "fwd" ? 1 : -1)));
    draw();
  });
  $("reveal").addEventListener("click", function () {
    if (!P) { return; }
    st.open = $("solution").hidden;
    $("solution").hidden = !st.open;
    $("reveal").textContent = st.open ? "Hide solution" : "Show solution";
    if (st.open) { if (!st.solved) { remember(P.id, "failed"); } st.view = P.data.line.length ? 1 : 0; }
    else if (!st.solved) { st.view = st.done = 0; say("Click the key.", ""); }
    draw();
  });
  filters.forEach(function (f) { $("filter-" + f).addEventListener("change", load); });
  $("prev").addEventListener("click", function () { open(Math.max(0, at - 1)); });
  $("next").addEventListener("click", function () { open(Math.min(list.length - 1, at + 1)); });
  $("next-unsolved").addEventListener("click", function () { nextUnsolved(at); });
  $("reset").addEventListener("click", function () { localStorage.removeItem(KEY); showProgress(); });
  load();
})();

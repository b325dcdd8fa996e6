// The opening explorer: the moves of a position with their proven values and lengths
// (/api/explore: the opening database and the rules, no search), best first, as a table
// and as marks on the board; a click on a move goes deeper, Back and the breadcrumb go
// back.  The page's address holds the start and the moves, so a link restores it.  Where
// the database ends, a live proof (/api/analyse) can be asked for.
(function () {
  "use strict";
  var M = Meridians;
  var $ = function (id) { return document.getElementById(id); };
  var state = { start: "3/4", moves: [] };
  var data = null, geo = null, live = null, token = 0, running = null, boardsShown = "";

  function isBoard(s) { return /^\d+\/\d+$/.test(s); }
  function enc(s) { return encodeURIComponent(s).replace(/%2F/g, "/").replace(/%2C/g, ","); }
  function query(start, moves) {
    return (isBoard(start) ? "board=" : "position=") + enc(start) + (moves.length ? "&moves=" + enc(moves.join(",")) : "");
  }
  function lengthText(n) { return n === "unknown" ? "unknown" : n + (n === 1 ? " ply" : " plies"); }

  function fromAddress() {
    var q = new URLSearchParams(location.search);
    var start = q.get("position") || q.get("board") || "3/4";
    var moves = (q.get("moves") || "").split(/[\s,]+/).filter(function (m) { return m; });
    return { start: start, moves: moves };
  }

  // how: "push" (a new step: the browser's Back returns), "replace" or "none" (from the address)
  function go(start, moves, how) {
    var mine = ++token;
    if (running) { running.abort(); running = null; }  // the server stops the old position's proof
    M.say($("status"), "", "");
    return M.api("GET", "/api/explore?position=" + encodeURIComponent(start) + "&moves=" +
                 encodeURIComponent(moves.join(","))).then(function (r) {
      if (mine !== token) { return; }
      if (!r.ok) {
        if (!data && moves.length) {  // a link whose moves are not legal: its start, and why
          return go(start, [], "replace").then(function () { M.say($("status"), "Not shown: " + r.data.error, "error"); });
        }
        M.say($("status"), "Not shown: " + r.data.error, "error");
        return;
      }
      return M.board(r.data.board).then(function (b) {
        if (mine !== token) { return; }
        geo = b; data = r.data; live = null;
        state = { start: start, moves: moves.slice() };
        var url = "/explorer?" + query(start, moves);
        if (how === "push") { history.pushState(null, "", url); }
        else if (how === "replace") { history.replaceState(null, "", url); }
        render();
      });
    }).catch(function (e) { M.say($("status"), "Not shown: " + e.message, "error"); });
  }

  function deeper(move) { if (data) { go(state.start, state.moves.concat([move]), "push"); } }
  function back(to) {
    if (!data || to < 0 || to >= state.moves.length) { return; }
    go(state.start, state.moves.slice(0, to), "push");
  }

  function liveMove(move) {
    if (!live) { return null; }
    for (var i = 0; i < live.moves.length; i++) { if (live.moves[i].move === move) { return live.moves[i]; } }
    return null;
  }
  function liveText(mv) {
    if (!mv) { return "-"; }
    if (mv.value !== "unknown") { return mv.value + " (" + mv.source + ")"; }
    if (mv.estimate) { return "estimate " + Math.round(100 * (mv.estimate.calibrated === null || mv.estimate.calibrated === undefined ? mv.estimate.win_rate : mv.estimate.calibrated)) + "%"; }
    return "not searched";
  }

  function renderBoards() {
    var key = data.boards.join(" ") + "|" + data.board;
    if (key === boardsShown) { return; }
    boardsShown = key;
    var sel = $("ex-board");
    sel.innerHTML = "";
    var names = data.boards.slice();
    if (names.indexOf(data.board) < 0) { names.push(data.board); }  // a start given on another board
    names.forEach(function (n) {
      var o = document.createElement("option");
      o.value = n;
      o.textContent = n + (data.boards.indexOf(n) < 0 ? " (no database)" : "");
      sel.appendChild(o);
    });
    sel.value = data.board;
  }

  function renderCrumbs() {
    var ol = $("ex-crumbs");
    ol.innerHTML = "";
    var items = [{ text: "Start", ply: 0 }].concat(state.moves.map(function (m, i) { return { text: m, ply: i + 1 }; }));
    items.forEach(function (it) {
      var li = document.createElement("li"), b = document.createElement("button");
      b.type = "button";
      b.textContent = it.text;
      b.setAttribute("data-ply", it.ply);
      b.setAttribute("aria-label", it.ply === 0 ? "back to the start" : "back to after move " + it.ply + ", " + it.text);
      if (it.ply === state.moves.length) { b.setAttribute("aria-current", "step"); }
      li.appendChild(b);
      ol.appendChild(li);
    });
  }

  function renderTable() {
    var tbody = $("ex-moves").querySelector("tbody");
    tbody.innerHTML = "";
    $("ex-live-head").hidden = !live;
    data.moves.forEach(function (mv) {
      var tr = document.createElement("tr");
      tr.setAttribute("data-move", mv.move);
      tr.setAttribute("data-value", mv.value);
      tr.setAttribute("data-length", mv.length);
      tr.className = "mv-row " + mv.value + (mv.move === data.best ? " best" : "");
      var td = document.createElement("td"), b = document.createElement("button");
      b.type = "button";
      b.className = "go";
      b.textContent = mv.move;
      b.setAttribute("data-move", mv.move);
      b.setAttribute("aria-label", "play " + mv.move + ": " + mv.value + ", length " + lengthText(mv.length));
      td.appendChild(b);
      tr.appendChild(td);
      var val = document.createElement("td");
      val.className = "value";
      val.textContent = mv.value + (mv.value !== "unknown" ? " (" + mv.source + ")" : "");
      tr.appendChild(val);
      var len = document.createElement("td");
      len.className = "length";
      len.textContent = lengthText(mv.length);
      tr.appendChild(len);
      if (live) {
        var lv = document.createElement("td");
        lv.className = "live";
        lv.textContent = liveText(liveMove(mv.move));
        tr.appendChild(lv);
      }
      tbody.appendChild(tr);
    });
    if (!data.moves.length) {
      var tr0 = document.createElement("tr"), td0 = document.createElement("td");
      td0.colSpan = live ? 4 : 3;
      td0.textContent = data.outcome ? "The game is over: no moves." : "No legal moves.";
      tr0.appendChild(td0);
      tbody.appendChild(tr0);
    }
  }

  function renderBoard() {
    var stones = {};
    data.light.forEach(function (n) { stones[n] = "L"; });
    data.dark.forEach(function (n) { stones[n] = "D"; });
    var marks = data.moves.map(function (mv) {
      var l = mv.value === "unknown" ? liveMove(mv.move) : null;
      return l ? l : { move: mv.move, value: mv.value, source: mv.source, estimate: null, visits: 0 };
    });
    var best = data.best || (live && live.best) || null;
    M.draw($("board"), geo, { stones: stones, dead: data.dead, last: data.last_move, moves: marks, best: best });
  }

  function render() {
    // a keyboard user who went deeper or back from the table or the breadcrumb keeps the
    // focus there: on the new position's best move, else on the breadcrumb's last step
    var active = document.activeElement;
    var refocus = active && ($("ex-moves").contains(active) || $("ex-crumbs").contains(active));
    renderBoards();
    renderCrumbs();
    renderTable();
    if (refocus) {
      var target = document.querySelector("#ex-moves button.go") || document.querySelector("#ex-crumbs button[aria-current]");
      if (target) { target.focus(); }
    }
    renderBoard();
    var who = M.NAME[data.to_move];
    $("ex-to-move").textContent = data.outcome ? "Game over: " + (M.NAME[data.outcome] || "draw") + (data.outcome === "draw" ? "" : " wins") + " (" + data.reason + ")"
      : who + " to move (" + data.board + ", ply " + state.moves.length + ")";
    var v = data.value === "unknown" ? "unknown" :
      data.value + " (" + data.source + (data.inferred ? ": the move into it " + (data.value === "win" ? "loses" : "wins") : "") + ")";
    $("ex-value").textContent = who + " to move: " + v + ", length " + lengthText(data.length) +
      (data.in_database ? "" : (data.outcome ? "" : ". Not in the opening database."));
    $("ex-back").disabled = state.moves.length === 0;
    $("ex-start").disabled = state.moves.length === 0;
    $("ex-analyse").href = "/?position=" + encodeURIComponent(data.position);
    $("ex-prove").disabled = !!running;
    var ends = data.ends;
    $("ex-ends").hidden = !ends;
    if (ends) {
      $("ex-ends-text").textContent = !data.database ? "The " + data.board + " board has no opening database: ask for a live proof." :
        (data.in_database ? "The database ends here: it holds this position but not every move's." :
         "The database ends here: it has no entry for this position.");
      if (!live) { $("ex-live").textContent = ""; }
    }
  }

  function prove() {
    if (!data || running) { return; }
    var mine = token, position = data.position, seconds = $("ex-time").value;
    running = new AbortController();
    $("ex-prove").disabled = true;
    $("ex-live").textContent = "Proving for up to " + seconds + " s...";
    M.api("GET", "/api/analyse?position=" + encodeURIComponent(position) + "&time=" + seconds, undefined,
          running.signal).then(function (r) {
      if (r.aborted || mine !== token) { return; }
      running = null;
      $("ex-prove").disabled = false;
      if (r.status === 503 && r.data.compiling) {  // a board's first use: say so, ask again
        $("ex-live").textContent = r.data.error;
        setTimeout(function () { if (mine === token) { prove(); } }, 2000);
        return;
      }
      if (!r.ok) { $("ex-live").textContent = "Live proof: " + r.data.error; return; }
      live = r.data;
      render();
      $("ex-live").textContent = "Live (" + seconds + " s): " + M.NAME[live.to_move] + " to move: " + M.valueText(live) +
        (live.proven ? " (proven)" : " (an estimate, not a proof)");
      $("ex-live").setAttribute("data-proven", live.proven ? "true" : "false");
    });
  }

  $("ex-moves").addEventListener("click", function (ev) {
    var tr = ev.target.closest && ev.target.closest("tr[data-move]");
    if (tr) { deeper(tr.getAttribute("data-move")); }
  });
  $("board").addEventListener("click", function (ev) {
    var t = ev.target.closest && ev.target.closest(".hit");
    if (!t || !data) { return; }
    var p = t.getAttribute("data-point");
    if (data.legal_moves.indexOf(p) >= 0) { deeper(p); return; }
    M.api("GET", "/api/explain?position=" + encodeURIComponent(data.position) + "&move=" + encodeURIComponent(p)).then(function (r) {
      M.say($("status"), p + " cannot be played: " + (r.ok ? (r.data.reason || "the game is over") : r.data.error), "error");
    });
  });
  $("ex-crumbs").addEventListener("click", function (ev) {
    var ply = ev.target.getAttribute && ev.target.getAttribute("data-ply");
    if (ply !== null && ply !== undefined) { back(parseInt(ply, 10)); }
  });
  $("ex-back").addEventListener("click", function () { back(state.moves.length - 1); });
  $("ex-start").addEventListener("click", function () { back(0); });
  $("ex-board").addEventListener("change", function () { go($("ex-board").value, [], "push"); });
  $("ex-prove").addEventListener("click", prove);
  document.addEventListener("keydown", function (ev) {
    var tag = ev.target && ev.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA" || ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    if (ev.key === "ArrowLeft") { back(state.moves.length - 1); ev.preventDefault(); }
    else if (ev.key === "Home") { back(0); ev.preventDefault(); }
  });
  window.addEventListener("popstate", function () { var a = fromAddress(); go(a.start, a.moves, "none"); });
  var first = fromAddress();
  go(first.start, first.moves, "replace");
})();

// Play the engine: a game against one of the levels of /api/levels (a player and a time a
// move, named by their measured Elo), kept in localStorage so that a reload continues it.
(function () {
  "use strict";
  var M = Meridians, KEY = "meridians-play";
  function $(id) { return document.getElementById(id); }

  var levels = [], geo = null;
  // the game: {board, colour, level, spec, seconds, player, moves: [], infos: [position infos]}
  var game = null, thinking = null, retry = null;

  function save() {
    try { localStorage.setItem(KEY, JSON.stringify(game)); } catch (e) { /* storage full or off */ }
  }
  function load() {
    try {
      var g = JSON.parse(localStorage.getItem(KEY) || "null");
      if (g && Array.isArray(g.moves) && Array.isArray(g.infos) && g.infos.length === g.moves.length + 1) { return g; }
    } catch (e) { /* a damaged entry: a new game */ }
    return null;
  }

  function level(n) { return levels.filter(function (l) { return l.level === n; })[0]; }
  function current() { return game.infos[game.infos.length - 1]; }
  function over() { return current().outcome !== null; }
  function engineSide() { return game.colour === "L" ? "D" : "L"; }
  function who(side) { return side === game.colour ? "You" : "The engine"; }
  function engineName() { var l = level(game.level); return l ? l.name : "level " + game.level; }

  // -- drawing ---------------------------------------------------------------------------
  function render() {
    var info = current(), stones = {};
    info.light.forEach(function (p) { stones[p] = "L"; });
    info.dark.forEach(function (p) { stones[p] = "D"; });
    M.draw($("board"), geo, { stones: stones, dead: info.dead, last: info.last_move });
    var turn;
    if (info.outcome !== null) { turn = M.NAME[info.outcome] + " won."; }
    else if (info.to_move === game.colour) { turn = "Your move (" + M.NAME[game.colour] + ")."; }
    else { turn = "The engine's move (" + M.NAME[engineSide()] + ")."; }
    $("pl-turn").textContent = game.board + ": " + turn;
    $("pl-players").textContent = "Light: " + (game.colour === "L" ? "you" : engineName()) + ". Dark: " +
      (game.colour === "D" ? "you" : engineName()) + ".";
    var ol = $("moves");
    ol.innerHTML = "";
    game.moves.forEach(function (m, i) {
      var li = document.createElement("li"), side = i % 2 === 0 ? "L" : "D";
      li.textContent = m + (side === game.colour ? "" : " (engine)");
      ol.appendChild(li);
    });
    ol.scrollTop = ol.scrollHeight;
    $("pl-takeback").disabled = !game.moves.some(function (_, i) { return (i % 2 === 0 ? "L" : "D") === game.colour; });
    Array.prototype.forEach.call($("pl-levels").children, function (li) {
      li.classList.toggle("chosen", +li.getAttribute("data-level") === game.level);
    });
    showResult();
  }

  function analyseUrl() {
    return "/?position=" + encodeURIComponent(game.board) + "&moves=" + encodeURIComponent(game.moves.join(","));
  }

  function showResult() {
    var box = $("pl-result"), info = current();
    if (info.outcome === null) { box.hidden = true; return; }
    var wasHidden = box.hidden;
    box.hidden = false;
    $("pl-winner").textContent = (info.outcome === game.colour ? "You won" : "The engine won") + ": " +
      M.NAME[info.outcome] + " wins" + (info.reason ? " (" + info.reason + ")" : "") + ".";
    $("pl-summary").textContent = game.moves.length + " moves on " + game.board + ", you played " +
      M.NAME[game.colour] + " against " + engineName() + ".";
    $("pl-analyse").href = analyseUrl();
    if (wasHidden) { box.focus(); }
  }

  // -- the game --------------------------------------------------------------------------
  function stopThinking() {
    if (thinking) { thinking.abort(); thinking = null; }
    if (retry) { clearTimeout(retry); retry = null; }
  }

  function push(info, move) {
    game.moves.push(move);
    game.infos.push(info);
    save();
    render();
  }

  function engineTurn() {
    if (!game || over() || current().to_move === game.colour || thinking) { return; }
    var at = game.moves.length, ctl = new AbortController();
    thinking = ctl;
    M.say($("status"), "The engine is thinking (" + game.seconds + " s a move)...", "");
    var url = "/api/move?position=" + encodeURIComponent(current().position) + "&time=" + game.seconds +
      (game.player && game.player !== "engine" ? "&player=" + encodeURIComponent(game.player) : "");
    M.api("GET", url, undefined, ctl.signal).then(function (r) {
      if (thinking !== ctl) { return; }  // taken back or a new game meanwhile
      thinking = null;
      if (r.aborted || game.moves.length !== at) { return; }
      if (!r.ok) {
        if (r.status === 503) {  // kernels compiling or the server busy: ask again
          M.say($("status"), r.data.error + " (asking again)", "");
          retry = setTimeout(function () { retry = null; engineTurn(); }, 2000);
        } else {
          M.say($("status"), "The engine: " + r.data.error, "error");
        }
        return;
      }
      push(r.data.after, r.data.move);
      M.say($("status"), "The engine played " + r.data.move + "." + (over() ? "" : " Your move."), "");
    });
  }

  function play(point) {
    if (!game || over()) { return; }
    if (current().to_move !== game.colour || thinking) { M.say($("status"), "Wait for the engine's move.", "error"); return; }
    var at = game.moves.length;
    M.api("POST", "/api/play", { position: current().position, move: point }).then(function (r) {
      if (game.moves.length !== at) { return; }
      if (!r.ok) { M.say($("status"), point + ": " + r.data.error, "error"); return; }
      push(r.data, r.data.last_move || point);
      M.say($("status"), "You played " + game.moves[game.moves.length - 1] + ".", "");
      engineTurn();
    });
  }

  // Undo your last move and everything after it (the engine's reply, or its pending search).
  function takeback() {
    if (!game) { return; }
    var last = -1;
    game.moves.forEach(function (_, i) { if ((i % 2 === 0 ? "L" : "D") === game.colour) { last = i; } });
    if (last < 0) { M.say($("status"), "You have no move to take back.", "error"); return; }
    stopThinking();
    var undone = game.moves.slice(last);
    game.moves = game.moves.slice(0, last);
    game.infos = game.infos.slice(0, last + 1);
    save();
    render();
    M.say($("status"), "Took back " + undone.join(", ") + ". Your move.", "");
  }

  var starts = 0;  // a new game asked for while another is being set up wins over it
  function start(board, colour, n) {
    stopThinking();
    var l = level(n), mine = ++starts;
    return Promise.all([M.board(board), M.api("GET", "/api/position?position=" + encodeURIComponent(board))])
      .then(function (got) {
        if (mine !== starts) { return; }
        if (!got[1].ok) { throw new Error(got[1].data.error); }
        geo = got[0];
        game = { board: board, colour: colour, level: n, spec: l.spec, seconds: l.seconds,
                 player: l.spec.split(":")[0], moves: [], infos: [got[1].data] };
        save();
        render();
        M.say($("status"), colour === "L" ? "A new game: your move." : "A new game: the engine moves first.", "");
        engineTurn();
      });
  }

  function resume(g) {
    var mine = ++starts;
    return M.board(g.board).then(function (b) {
      if (mine !== starts) { return; }
      geo = b;
      game = g;
      render();
      M.say($("status"), "Your game goes on (" + g.moves.length + " moves).", "");
      engineTurn();
    });
  }

  // -- the record ------------------------------------------------------------------------

  function exportRecord() {
    if (!game) { return; }
    var d = new Date(), pad = function (x) { return (x < 10 ? "0" : "") + x; };
    var engine = "meridians " + game.spec + " (level " + game.level + ")";
    var headers = { Light: game.colour === "L" ? "You" : engine, Dark: game.colour === "D" ? "You" : engine,
                    Source: "meridians serve, play the engine",
                    Date: d.getFullYear() + "." + pad(d.getMonth() + 1) + "." + pad(d.getDate()) };
    M.api("POST", "/api/record-text", { start: game.infos[0].position, moves: game.moves, headers: headers,
                                        result: null, swap: false }).then(function (r) {
      if (!r.ok) { M.say($("status"), "Record: " + r.data.error, "error"); return; }
      M.download(r.data.filename, new Blob([r.data.text], { type: "text/plain;charset=utf-8" }));
      M.say($("status"), "Downloaded the record (" + game.moves.length + " moves) as " + r.data.filename + ".", "");
    });
  }

  // -- the levels ------------------------------------------------------------------------
  function showLevels(data) {
    levels = data.levels;
    var sel = $("pl-level"), keep = sel.value, ol = $("pl-levels");
    sel.innerHTML = "";
    ol.innerHTML = "";
    levels.forEach(function (l) {
      var o = document.createElement("option");
      o.value = l.level;
      o.textContent = l.name;
      sel.appendChild(o);
      var li = document.createElement("li");
      li.setAttribute("data-level", l.level);
      li.appendChild(document.createTextNode(l.name));
      var src = document.createElement("span");
      src.className = "src";
      src.textContent = l.measured.length ? "From " + l.measured.map(function (m) {
        return m.a + " vs " + m.b + ": " + (m.elo >= 0 ? "+" : "") + m.elo + " [" + m.low + ", " + m.high + "], " +
          m.games + " games (" + m.file + ")";
      }).join("; ") : (l.elo === null ? "No match of this level against another level was measured." :
                       "The base: the others of its group are rated against it.");
      li.appendChild(src);
      ol.appendChild(li);
    });
    sel.value = keep && level(+keep) ? keep : String(levels[Math.min(2, levels.length - 1)].level);
    var b = data.levels.length ? data.levels[0].board : data.board;
    $("pl-ladder-note").textContent = "Elo differences from matches of 200 games on " + b +
      (b === data.board ? "" : " (no ladder was measured on " + data.board + ")") +
      ", 95% intervals in brackets; a level is rated only against the levels it was measured with. " +
      "On 2/3 and 3/4 the opening database answers for the engine at every level but flat Monte Carlo: it plays perfectly there.";
  }

  function fetchLevels(board) {
    return M.api("GET", "/api/levels?board=" + encodeURIComponent(board)).then(function (r) {
      if (!r.ok) { throw new Error(r.data.error); }
      showLevels(r.data);
    });
  }

  // -- events ----------------------------------------------------------------------------
  $("board").addEventListener("click", function (e) {
    var t = e.target.closest ? e.target.closest(".hit") : null;
    if (t) { play(t.getAttribute("data-point")); }
  });
  $("pl-form").addEventListener("submit", function (e) {
    e.preventDefault();
    var v = $("pl-move").value.trim();
    if (v) { play(v); $("pl-move").value = ""; }
  });
  $("setup").addEventListener("submit", function (e) {
    e.preventDefault();
    start($("pl-board").value, $("pl-colour").value, +$("pl-level").value).catch(function (err) {
      M.say($("status"), String(err.message || err), "error");
    });
  });
  $("pl-board").addEventListener("change", function () {
    fetchLevels($("pl-board").value).catch(function (err) { M.say($("status"), String(err.message || err), "error"); });
  });
  $("pl-again").addEventListener("click", function () {
    start(game.board, game.colour, game.level).catch(function (err) { M.say($("status"), String(err.message || err), "error"); });
  });
  $("pl-takeback").addEventListener("click", takeback);
  $("pl-record").addEventListener("click", exportRecord);
  document.addEventListener("keydown", function (e) {
    var tag = (e.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "select" || tag === "textarea" || e.ctrlKey || e.metaKey || e.altKey) { return; }
    if (e.key === "t") { e.preventDefault(); takeback(); }
  });

  var saved = load();
  if (saved) {
    $("pl-board").value = saved.board;
    $("pl-colour").value = saved.colour;
  }
  fetchLevels(saved ? saved.board : $("pl-board").value).then(function () {
    if (saved && level(saved.level)) {
      $("pl-level").value = String(saved.level);
      return resume(saved);
    }
    return start($("pl-board").value, $("pl-colour").value, +$("pl-level").value);
  }).catch(function (err) { M.say($("status"), String(err.message || err), "error"); });
})();

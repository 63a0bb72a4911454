/**
 * The page's script, plain browser JavaScript kept as a string so that the single
 * executable carries it (no file is read at run time, nothing comes from elsewhere).
 *
 * Watching: `/watch` (Server-Sent Events) sends the map once, then frames: who stands
 * where, the piles left, the roster, the watchers, the summary at the end. Playing: a
 * WebSocket to `/play` carries the protocol's own messages (PLAY, KEY; OK, GRID, GOLD,
 * DISPLAY, QUIT, GAMEOVER, NO), and the page shows the player's own view and status line.
 * A replay sends every frame at once and the page plays them with its own controls.
 *
 * Text from the server reaches the page as text (textContent); only the grid is built as
 * markup, from escaped characters.
 */
export const pageScript = String.raw`
"use strict";
(function () {
  var byId = function (id) { return document.getElementById(id); };
  var gridEl = byId("grid"), boardEl = byId("board"), statusEl = byId("status"), noteEl = byId("note");
  var leftEl = byId("left"), watchersEl = byId("watchers"), connEl = byId("conn");
  var rosterBody = byId("roster").tBodies[0], summaryEl = byId("summary"), summaryText = byId("summary-text");
  var joinForm = byId("join"), nameInput = byId("name"), joinNote = byId("join-note");
  var replayEl = byId("replay"), pauseButton = byId("pause"), speedSelect = byId("speed"), seekInput = byId("seek"), whereEl = byId("where");
  var decoder = new TextDecoder();

  var mode = "connecting";   // watching | playing | replay
  var map = null;            // { rows, cols, lines }
  var lastFrame = null;
  var over = false;
  function setMode(next) {
    mode = next;
    document.body.dataset.mode = next;
    joinForm.hidden = next === "replay" || next === "playing" || over;
    replayEl.hidden = next !== "replay";
    watchersEl.hidden = next === "replay";
    fit(gridSize.rows, gridSize.cols);
  }

  // ---- The grid: a row per element, only changed rows redrawn ----
  var classes = { "+": "w", "-": "w", "|": "w", ".": "f", "#": "p", "*": "g", "@": "me" };
  var escapes = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };
  function classOf(ch) { return ch >= "A" && ch <= "Z" ? "o" : classes[ch] || ""; }
  function rowHtml(text) {
    var html = "", run = "", runClass = "";
    for (var i = 0; i < text.length; i++) {
      var ch = text[i], c = classOf(ch);
      if (c !== runClass && run !== "") { html += runClass ? '<span class="' + runClass + '">' + run + "</span>" : run; run = ""; }
      runClass = c;
      run += escapes[ch] || ch;
    }
    if (run !== "") html += runClass ? '<span class="' + runClass + '">' + run + "</span>" : run;
    return html;
  }
  var shown = [];
  function draw(rows) {
    var cols = rows.length > 0 ? rows[0].length : 0;
    if (rows.length !== shown.length || cols !== (shown.length > 0 && shown[0] !== null ? shown[0].length : -1)) {
      gridEl.textContent = "";
      shown = [];
      for (var r = 0; r < rows.length; r++) { gridEl.appendChild(document.createElement("div")); shown.push(null); }
      fit(rows.length, cols);
    }
    for (var i = 0; i < rows.length; i++) {
      if (rows[i] !== shown[i]) { gridEl.children[i].innerHTML = rowHtml(rows[i]); shown[i] = rows[i]; }
    }
  }

  // ---- Size: the whole map if the window allows a readable font, else scroll (following
  // the player, whose own view is mostly dark: it may stay larger) ----
  var charWidth = 0.6, lineHeight = 1.2;
  (function measure() {
    var probe = document.createElement("span");
    probe.style.fontSize = "100px";
    probe.textContent = "0000000000";
    gridEl.appendChild(probe);
    var width = probe.getBoundingClientRect().width;
    if (width > 0) charWidth = width / 1000;
    gridEl.removeChild(probe);
  })();
  var gridSize = { rows: 0, cols: 0 };
  function fit(rows, cols) {
    gridSize = { rows: rows, cols: cols };
    if (rows === 0 || cols === 0) return;
    var size = Math.min((boardEl.clientWidth - 2) / (cols * charWidth), (boardEl.clientHeight - 2) / (rows * lineHeight));
    size = Math.max(mode === "playing" ? 14 : 9, Math.min(24, Math.floor(size * 10) / 10));
    gridEl.style.fontSize = size + "px";
  }
  window.addEventListener("resize", function () { fit(gridSize.rows, gridSize.cols); });
  /** On a map larger than the window, keeps the player near the middle of what shows. */
  function keepInView(row, col) {
    var size = parseFloat(gridEl.style.fontSize) || 16;
    var x = col * size * charWidth, y = row * size * lineHeight;
    var b = boardEl;
    if (x < b.scrollLeft + b.clientWidth / 4 || x > b.scrollLeft + b.clientWidth * 3 / 4) b.scrollLeft = x - b.clientWidth / 2;
    if (y < b.scrollTop + b.clientHeight / 4 || y > b.scrollTop + b.clientHeight * 3 / 4) b.scrollTop = y - b.clientHeight / 2;
  }

  // ---- Watching ----
  function spectatorRows(frame) {
    var lines = map.lines.slice(), changed = {};
    function put(cell, ch) {
      var row = Math.floor(cell / map.cols);
      if (row < 0 || row >= map.rows) return;
      var chars = changed[row] || (changed[row] = lines[row].split(""));
      chars[cell % map.cols] = ch;
    }
    frame.gold.forEach(function (cell) { put(cell, "*"); });
    frame.players.forEach(function (p) { if (p.cell >= 0) put(p.cell, p.letter); });
    Object.keys(changed).forEach(function (row) { lines[row] = changed[row].join(""); });
    return lines;
  }
  var rosterKey = "";
  function showRoster(players) {
    var you = me && me.letter;
    var key = (you || "") + JSON.stringify(players.map(function (p) { return [p.letter, p.name, p.purse, p.cell < 0]; }));
    if (key === rosterKey) return;
    rosterKey = key;
    rosterBody.textContent = "";
    players.forEach(function (p) {
      var tr = document.createElement("tr");
      if (p.cell < 0) tr.className = "quit";
      if (p.letter === you) tr.className += " you";
      [["letter", p.letter], ["name", p.name], ["purse", String(p.purse)], ["state", p.cell < 0 ? "quit" : "playing"]].forEach(function (c) {
        var td = document.createElement("td");
        td.className = c[0];
        td.textContent = c[1];
        if (c[0] === "name") td.title = c[1];
        tr.appendChild(td);
      });
      rosterBody.appendChild(tr);
    });
  }
  function showSummary(summary) {
    summaryEl.hidden = summary === undefined;
    if (summary !== undefined) summaryText.textContent = summary;
  }
  function showFrame(frame) {
    lastFrame = frame;
    showRoster(frame.players);
    leftEl.textContent = frame.remaining + " nuggets unclaimed";
    if (frame.watchers !== undefined) watchersEl.textContent = frame.watchers + " watching";
    showSummary(frame.summary);
    if (mode !== "playing") {
      draw(spectatorRows(frame));
      statusEl.textContent = (mode === "replay" ? "Replay: " : "Watching: ") + frame.remaining + " nuggets unclaimed.";
    }
  }

  var source = new EventSource("/watch");
  source.addEventListener("hello", function (event) {
    var hello = JSON.parse(event.data);
    map = { rows: hello.rows, cols: hello.cols, lines: hello.map.split("\n") };
    connEl.textContent = "";
    if (hello.mode === "replay") { source.close(); startReplay(hello); return; }
    if (mode === "connecting") setMode("watching");
    draw(map.lines);
  });
  source.addEventListener("frame", function (event) {
    var frame = JSON.parse(event.data);
    if (frame.summary !== undefined) {
      over = true;
      source.close();  // the game is over: nothing more will come
      if (mode === "watching") setMode("watching");
    }
    showFrame(frame);
  });
  source.onerror = function () {
    if (over) return;
    connEl.textContent = source.readyState === EventSource.CLOSED
      ? "cannot watch: the server is gone or has too many watchers"
      : "lost the game's server; trying again…";
  };
  source.onopen = function () { connEl.textContent = ""; };

  // ---- Playing ----
  var ws = null, me = null;
  function status() {
    if (mode === "playing" && me) {
      statusEl.textContent = "Player " + (me.letter || "?") + " has " + me.purse + " nuggets (" +
        (me.remaining === null ? "?" : me.remaining) + " nuggets unclaimed).";
    }
    noteEl.textContent = me ? me.note : "";
  }
  joinForm.addEventListener("submit", function (event) {
    event.preventDefault();
    if (ws || over) return;
    var name = Array.from(nameInput.value).slice(0, 50).join("");
    var socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/play");
    socket.binaryType = "arraybuffer";
    ws = socket;
    me = { letter: null, purse: 0, remaining: null, joined: false, note: "" };
    joinNote.textContent = "joining…";
    socket.onopen = function () { socket.send("PLAY " + name); };
    socket.onmessage = function (event) {
      if (ws === socket) hear(typeof event.data === "string" ? event.data : decoder.decode(event.data));
    };
    socket.onclose = function () {
      if (ws === socket) leave(me && me.joined ? "The connection to the game was lost." : "Could not reach the game.");
    };
  });
  function reasonOf(text) { var space = text.indexOf(" "); return space < 0 ? "" : text.slice(space + 1); }
  function hear(text) {
    if (text.indexOf("DISPLAY\n") === 0) {
      var rows = text.slice(8).split("\n");
      rows.pop();
      joined();
      draw(rows);
      for (var r = 0; r < rows.length; r++) {
        var c = rows[r].indexOf("@");
        if (c >= 0) { keepInView(r, c); break; }
      }
    } else if (text.indexOf("GAMEOVER") === 0 || text.indexOf("QUIT GAME OVER:") === 0) {
      over = true;
      showSummary(text.slice(text.indexOf("\n") + 1));
      leave("Game over.");
    } else if (text.indexOf("QUIT") === 0) {
      leave(reasonOf(text) || "The server ended the game for you.");
    } else if (text.indexOf("OK ") === 0) {
      me.letter = text.slice(3, 4);
      joined();
    } else if (text.indexOf("GRID ") === 0) {
      joined();
    } else if (text.indexOf("GOLD ") === 0) {
      var n = text.slice(5).split(" ").map(Number);
      joined();
      if (n[0] > 0) me.note = "GOLD received: " + n[0];
      else if (n[1] < me.purse) me.note = (me.purse - n[1]) + " nuggets taken from you";
      me.purse = n[1];
      me.remaining = n[2];
    } else if (text.indexOf("NO") === 0 || text.indexOf("ERROR") === 0) {
      if (!me.joined) return leave(reasonOf(text) || "The game refused you.");
      me.note = reasonOf(text) || text;
    } else {
      me.note = "unreadable message from the server";
    }
    status();
  }
  function joined() {
    if (me.joined) return;
    me.joined = true;
    joinNote.textContent = "";
    if (document.activeElement) document.activeElement.blur();
    setMode("playing");
    rosterKey = "";
  }
  /** Back to watching: the player quit, the game ended, or the connection went. */
  function leave(message) {
    var socket = ws;
    ws = null;
    me = null;
    if (socket && socket.readyState <= 1) socket.close(1000);
    joinNote.textContent = message;
    setMode("watching");
    rosterKey = "";
    noteEl.textContent = "";
    if (lastFrame) showFrame(lastFrame);
    else if (map) draw(map.lines);
  }
  var arrows = { ArrowLeft: "h", ArrowRight: "l", ArrowUp: "k", ArrowDown: "j" };
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target && event.target.tagName;
    if (target === "INPUT" || target === "SELECT" || target === "BUTTON" || target === "TEXTAREA") return;
    if (mode === "replay") return replayKey(event);
    if (mode !== "playing" || !ws || ws.readyState !== 1) return;
    var key = arrows[event.key] || (event.key.length === 1 ? event.key : null);
    if (key === null) return;
    event.preventDefault();
    me.note = "";
    status();
    ws.send("KEY " + key);
  });

  // ---- Replay: every frame is here; the page plays them at the recorded pace ----
  var replay = null;
  function startReplay(hello) {
    setMode("replay");
    var gold = [], purses = [], remaining = 0;
    var frames = hello.frames.map(function (c) {
      if (c.g) gold = c.g;
      if (c.$) purses = c.$;
      if (c.r !== undefined) remaining = c.r;
      return { t: c.t, move: c.m, cells: c.p, gold: gold, purses: purses, remaining: remaining, summary: c.s };
    });
    replay = { names: hello.names, frames: frames, moves: hello.moves, index: 0, playing: frames.length > 1, speed: 1, timer: 0 };
    seekInput.max = String(Math.max(0, frames.length - 1));
    if (frames.length === 0) { draw(map.lines); statusEl.textContent = "The recording has no moves."; return; }
    showMove(0);
    schedule();
  }
  function clock(ms) { var s = Math.floor(ms / 1000); return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0"); }
  function showMove(index) {
    var f = replay.frames[index];
    replay.index = index;
    showFrame({
      players: f.cells.map(function (cell, i) {
        return { letter: replay.names[i].letter, name: replay.names[i].name, purse: f.purses[i] || 0, cell: cell };
      }),
      gold: f.gold, remaining: f.remaining, summary: f.summary
    });
    seekInput.value = String(index);
    whereEl.textContent = "[move " + f.move + "/" + replay.moves + " " + clock(f.t) +
      (replay.speed === 1 ? "" : " x" + replay.speed) + (replay.playing ? "" : " paused") + "]";
    pauseButton.textContent = replay.playing ? "Pause" : "Play";
  }
  function schedule() {
    clearTimeout(replay.timer);
    var i = replay.index, frames = replay.frames;
    if (i >= frames.length - 1) replay.playing = false;
    showMove(i);
    if (!replay.playing) return;
    var gap = Math.min(2000, Math.max(0, frames[i + 1].t - frames[i].t)) / replay.speed;
    replay.timer = setTimeout(function () { replay.index = i + 1; schedule(); }, gap);
  }
  function togglePause() {
    if (!replay || replay.frames.length === 0) return;
    replay.playing = !replay.playing;
    if (replay.playing && replay.index >= replay.frames.length - 1) replay.index = 0;
    schedule();
  }
  var speeds = [0.25, 0.5, 1, 2, 4, 8, 16];
  function setSpeed(speed) { replay.speed = speed; speedSelect.value = String(speed); schedule(); }
  function step(by) {
    replay.playing = false;
    replay.index = Math.max(0, Math.min(replay.frames.length - 1, replay.index + by));
    schedule();
  }
  function replayKey(event) {
    if (!replay || replay.frames.length === 0) return;
    var at = speeds.indexOf(replay.speed);
    if (event.key === " " || event.key === "p") togglePause();
    else if (event.key === "+" || event.key === "=") setSpeed(speeds[Math.min(speeds.length - 1, at + 1)]);
    else if (event.key === "-") setSpeed(speeds[Math.max(0, at - 1)]);
    else if (event.key === "ArrowRight" || event.key === "l") step(1);
    else if (event.key === "ArrowLeft" || event.key === "h") step(-1);
    else return;
    event.preventDefault();
  }
  // Each control gives the keyboard back at once: space, + and the arrows then work as keys again.
  pauseButton.addEventListener("click", function () { pauseButton.blur(); togglePause(); });
  speedSelect.addEventListener("change", function () { speedSelect.blur(); setSpeed(Number(speedSelect.value)); });
  seekInput.addEventListener("input", function () { replay.index = Number(seekInput.value); schedule(); });
})();
`

// The table page (player and GM): state from GET /api/table, writes as POSTs with the
// session's CSRF token, and the live feed (/api/feed): its `state` event carries the part
// of the table every seat sees alike (characters, missing board, void requests, latest
// entries) after each new entry, applied without a fetch; a `calls` event (a call made,
// rolled, cancelled: calls are rows, not entries) makes the page fetch its own calls.
// The latest entries are kept by seq: each `entry` event carries its item, a state's
// latest entries refresh the ones it holds, and a gap in the seqs is fetched
// (/api/table/entries), so a burst of rolls skips none on any open page.
// Text is always set with textContent, never parsed as HTML. No build step.
// A live update changes only what changed: each list's items are keyed (a call's id, an
// entry's seq, a character's name) and an item is rebuilt only when its data differ, so
// focus, scroll, an open fold and a form's choices stay where the player left them.
// New calls for this seat and others' new entries are announced in a polite live region.
(function () {
  "use strict";
  var root, csrf = null, me = null, pending = null, tableState = null;
  var SHOWN = 50;  // entries the latest list keeps, newest first
  var items = {}, newest = 0;  // seq -> the entry as the list shows it; the newest seq held
  var HOLD = 600;  // ms a tapped button stays locked at least: a double tap is one tap
  var locked = {};  // a button's data-focus key -> true while its write is on its way
  var seenCalls = null;  // call ids already shown (null until the first render: nothing to announce)

  // The page's words (static/messages.js, from the server's catalog, in the page's language).
  function text(message, values) { return window.campaignText(message, values); }
  function word(kind, code) { return window.campaignWord(kind, code); }
  function list(items) { return window.campaignList(items); }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === "text") node.textContent = attrs[name];
      else if (name === "cls") node.className = attrs[name];
      else node.setAttribute(name, attrs[name]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function newKey() {  // getRandomValues works on plain http:// LAN pages too (randomUUID does not)
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  // The player's share of a provably fair roll (docs/fair-dice.md): 256 bits from this
  // browser, mixed into the server's committed seed, so neither side picks the dice alone.
  function newShare() { return newKey() + newKey(); }

  function post(path, body) {
    return fetch(campaignUrl(path), {
      method: "POST", credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": csrf || "" },
      body: JSON.stringify(body || {})
    }).then(function (response) {
      return response.json().catch(function () { return { error: text("unreadable answer") }; })
        .then(function (data) { if (!response.ok) throw data; return data; });
    });
  }

  // The result of this page's own tap, in the panel held at the foot of the screen (a
  // phone shows it where the thumb is, without scrolling): the line, who rolled when the
  // entry's actor is another (a reunion is the GM's act), then what changed, filled in
  // from the entries the tap wrote as their items arrive (their consequences).
  var resultSeqs = [];
  function say(line, outcome, seqs, by) {
    var out = document.getElementById("roll-result");
    out.textContent = line;
    out.dataset.outcome = outcome || "";
    if (by) out.appendChild(el("span", { cls: "by", text: by }));
    resultSeqs = seqs || [];
    changed();
  }

  function changed() {
    var out = document.getElementById("roll-result");
    Array.prototype.slice.call(out.querySelectorAll(".consequence")).forEach(function (node) {
      out.removeChild(node); });
    resultSeqs.forEach(function (seq) {
      (items[seq] ? items[seq].consequences : []).forEach(function (line) {
        out.appendChild(el("span", { cls: "consequence", text: line })); });
    });
  }

  function rolled(entry) {
    var seqs = (entry.entries || []).map(function (e) { return e.seq; });
    var by = entry.rolled_by && entry.rolled_by !== entry.actor
      ? text("rolled by {player} on behalf of {actor}", { player: entry.rolled_by, actor: entry.actor }) : null;
    say(rollText(entry), entry.outcome, seqs.length ? seqs : [entry.seq], by);
  }

  function announce(words) {  // the polite live region: read out after what the reader is saying
    var out = document.getElementById("announce");
    if (!out) return;
    var line = el("p", { text: words });
    out.appendChild(line);
    while (out.childNodes.length > 5) out.removeChild(out.firstChild);
  }

  // One tap, one write, for every button: the tap locks the button (disabled, aria-busy)
  // until the answer and at least HOLD ms, and `work` gets one idempotency key made at the
  // tap, so a double tap or a burst writes once. A button rebuilt meanwhile (a live update)
  // is made locked too: the lock follows its data-focus key, not the node.
  function buttonsFor(key) {
    return Array.prototype.filter.call(document.querySelectorAll("[data-focus]"), function (node) {
      return node.dataset.focus === key; });
  }

  function lockLook(button, on) {
    button.disabled = on;
    if (on) button.setAttribute("aria-busy", "true");
    else button.removeAttribute("aria-busy");
  }

  function tap(key, work) {
    if (locked[key]) return;  // a second tap while the first is on its way
    locked[key] = true;
    var had = document.activeElement && document.activeElement.dataset &&
              document.activeElement.dataset.focus === key;
    buttonsFor(key).forEach(function (button) { lockLook(button, true); });
    var began = Date.now();
    function free() {
      setTimeout(function () {
        delete locked[key];
        var buttons = buttonsFor(key);
        buttons.forEach(function (button) { lockLook(button, false); });
        // a disabled button loses focus: give it back to a keyboard user
        if (had && buttons.length && (!document.activeElement || document.activeElement === document.body)) {
          buttons[0].focus();
        }
      }, Math.max(0, HOLD - (Date.now() - began)));
    }
    var done;
    try { done = work(newKey()); } catch (error) { free(); throw error; }
    Promise.resolve(done).then(free, free);
  }

  // A button that writes: its text, its accessible name (what it acts on), its lock key.
  function action(key, label, name, cls, work) {
    var button = el("button", { type: "button", cls: cls || "", text: label, "data-focus": key });
    if (name && name !== label) button.setAttribute("aria-label", name);
    if (locked[key]) lockLook(button, true);
    button.addEventListener("click", function () { tap(key, work); });
    return button;
  }


  // A refusal's own line; a request that never got an answer (fetch's TypeError) in words.
  function failed(error) { say((error && error.error) || text("cannot reach the server"), "error"); }

  function rollText(entry) {
    var line = "#" + entry.seq + " " + (entry.character || entry.actor) + ": " + (entry.expression || entry.kind);
    if (entry.sheet) line += " (" + entry.sheet + ")";  // a skill button's roll: 3D6<=12 (聞き耳 12)
    if (entry.dice) line += " [" + entry.dice.join(",") + "]";
    if (entry.total !== null && entry.total !== undefined) line += " = " + entry.total;
    if (entry.target !== null && entry.target !== undefined && !/[<>]/.test(entry.expression || "")) {
      line += " " + text("(target {target})", { target: entry.target });  // a reunion's 1d6 against its chance
    }
    if (entry.outcome) line += " " + word("outcome", entry.outcome);
    if (entry.secret) line += " " + text("(secret)");
    if (entry.fairness === "provable") line += " " + text("(provably fair)");
    if (entry.reason) line += " " + text("“{text}”", { text: entry.reason });
    return line;
  }

  // This device's receipt of a write with a share (static/receipts.js): kept before the POST.
  function sent(path, body, command, character) {
    return window.fairReceipts ? window.fairReceipts.sent(path, body, command, character) : null;
  }

  function answered(receipt, entry) { if (window.fairReceipts) window.fairReceipts.answered(receipt, entry); }

  function refusedReceipt(receipt, error) {
    if (window.fairReceipts && error && error.error) window.fairReceipts.refused(receipt, error);
  }

  function roll(command, character, key) {
    var body = { command: command, character: character || null, idempotency_key: key || newKey(), share: newShare() };
    var receipt = sent("/api/rolls", body, command, character);
    return post("/api/rolls", body)
      .then(function (entry) { answered(receipt, entry); rolled(entry); refresh(); },
            function (error) { refusedReceipt(receipt, error); failed(error); });
  }

  function meter(label, pool) {
    if (!pool) return null;
    var id = "m" + newKey().slice(0, 12);
    return el("div", { cls: "pool" }, [
      el("label", { "for": id, text: label + " " + pool.current + " / " + pool.max }),
      el("meter", { id: id, min: "0", max: String(Math.max(pool.max, 1)), value: String(Math.max(pool.current, 0)),
                    low: String(Math.ceil(pool.max / 3)), optimum: String(pool.max) })
    ]);
  }

  function sheet(c) {
    var box = el("article", { cls: "sheet" + (c.mine ? " mine" : "") }, [
      el("h3", { text: c.player ? text("{name} ({player})", { name: c.name, player: c.player }) : c.name },
         [c.status === "active" ? null : el("span", { cls: "status status-" + c.status,
           text: c.status_label || word("status", c.status) })]),
      meter("HP", c.hp), meter("FP", c.fp)
    ]);
    if (c.conditions.length) {
      box.appendChild(el("p", { cls: "conditions", text: text("Conditions: {conditions}", { conditions: list(
        c.conditions.map(function (k) { return k.label + (k.duration ? " (" + k.duration + ")" : ""); })) }) }));
    }
    box.appendChild(el("p", { cls: "cp", text: "CP " + c.cp_total }));
    if (c.traits.length) {
      box.appendChild(el("ul", { cls: "traits" }, c.traits.map(function (t) {
        return el("li", { text: t.name + " [" + t.category + "] " + t.cp + " CP" }); })));
    }
    if (c.skills && c.skills.length) {  // the sheet's skills, one tap rolls 3D6 against the level
      if (c.mine || (me && me.gm)) {
        box.appendChild(el("div", { cls: "skills" }, c.skills.map(function (k) {
          var label = k.name + " " + k.level;
          return action("skill\u0000" + c.name + "\u0000" + k.name, label, text("{label}, for {name}", { label: label, name: c.name }),
                        "skill", function (key) { return roll(k.name, c.name, key); });
        })));
      } else {
        box.appendChild(el("p", { cls: "skills-text", text: text("Skills: {skills}", { skills: list(
          c.skills.map(function (k) { return k.name + " " + k.level; })) }) }));
      }
    }
    if (c.palette.length && (c.mine || (me && me.gm))) {
      var palette = el("div", { cls: "palette" }, c.palette.map(function (line, index) {
        return action("palette\u0000" + c.name + "\u0000" + index, line, text("{label}, for {name}", { label: line, name: c.name }),
                      "", function (key) { return roll(line, c.name, key); });
      }));
      // the player's own palette is open; the GM's page folds every character's away
      var fold = text("Palette ({count})", { count: c.palette.length });
      box.appendChild(c.mine ? palette : el("details", { cls: "palette-fold", "data-keep": "palette\u0000" + c.name },
        [el("summary", { text: fold, "aria-label": text("{label}, for {name}", { label: fold, name: c.name }) }), palette]));
    }
    if (me && me.gm && c.status === "active") {
      var label = text("Call a fright check");
      box.appendChild(action("fright\u0000" + c.name, label, text("{label}, for {name}", { label: label, name: c.name }), "gm",
        function () { return post("/api/calls", { kind: "fright", character: c.name }).then(function () { refresh(); }, failed); }));
    }
    return box;
  }

  function callItem(call) {
    var item = el("li", { cls: "call" }, [el("strong", { text: call.prompt })]);
    if (call.reason) item.appendChild(el("span", { cls: "reason", text: " — " + call.reason }));
    var mineToRoll = me && (call.player === me.player || me.gm);
    if (mineToRoll) {
      var key = newKey(), share = newShare();  // one key per call shown: a double tap or a retry rolls once
      var forThem = me.gm && call.player !== me.player;
      item.appendChild(action("call\u0000" + call.call_id, forThem ? text("Roll for them") : text("Roll"),
        forThem ? text("Roll call #{call} for {character}", { call: call.call_id, character: call.character || call.player })
                : text("Roll call #{call}: {prompt}", { call: call.call_id, prompt: call.prompt }),
        "roll-call", function () {
          var body = { idempotency_key: key, share: share };
          var receipt = sent("/api/calls/" + call.call_id + "/roll", body, call.prompt, call.character);
          return post("/api/calls/" + call.call_id + "/roll", body)
            .then(function (entry) { answered(receipt, entry); rolled(entry); refresh(); },
                  function (error) { refusedReceipt(receipt, error); failed(error); });
        }));
    }
    if (me && me.gm) {
      item.appendChild(action("cancel\u0000" + call.call_id, text("Cancel"), text("Cancel call #{call}", { call: call.call_id }),
        "gm", function () {
          return post("/api/calls/" + call.call_id + "/cancel", {}).then(function () { refresh(); }, failed);
        }));
    }
    return item;
  }

  function requestItem(request) {
    var item = el("li", { cls: "call" }, [
      el("strong", { text: text("void of #{seq}", { seq: request.requested_void }) }),
      el("span", { cls: "reason", text: " — " + (request.on_behalf_of || request.actor) + " " +
                                        text("“{text}”", { text: request.reason || "" }) })
    ]);
    item.appendChild(action("approve\u0000" + request.seq, text("Approve"),
      text("Approve the void of #{seq}", { seq: request.requested_void }), "gm", function () {
        return post("/api/void-requests/" + request.seq + "/approve", {}).then(function () { refresh(); }, failed);
      }));
    item.appendChild(action("refuse\u0000" + request.seq, text("Refuse"),
      text("Refuse the void of #{seq}", { seq: request.requested_void }), "gm", function () {
        var reason = window.prompt(text("Reason for refusing"));
        if (!reason) return null;
        return post("/api/void-requests/" + request.seq + "/refuse", { reason: reason })
          .then(function () { refresh(); }, failed);
      }));
    return item;
  }

  function latestItem(entry) {
    var item = el("li", { cls: "entry", "data-outcome": entry.outcome || "" }, [
      el("a", { href: campaignUrl("/entries/" + entry.seq), text: "#" + entry.seq }),
      el("span", { text: " " + entry.kind_label + " " + (entry.character || "") + " " + entry.text +
                         (entry.reason ? " " + text("“{text}”", { text: entry.reason }) : "") + " — " + entry.actor }),
      entry.fairness === "provable" ? el("span", { cls: "fair-mark", text: " " + text("(provably fair)") }) : null
    ]);
    if (entry.voided) item.classList.add("voided");
    entry.consequences.forEach(function (line) { item.appendChild(el("p", { cls: "consequence", text: line })); });
    if (entry.record && Object.keys(entry.record).length) {  // the raw record, folded away
      item.appendChild(el("details", { cls: "record", "data-keep": "record\u0000" + entry.seq }, [
        el("summary", { text: text("Record"), "aria-label": text("Record of #{seq}", { seq: entry.seq }) }),
        el("pre", { cls: "record", text: JSON.stringify(entry.record, null, 1) })]));
    } else if (entry.record_on_entry_page) {  // a big roll: its total above, its dice on its page
      item.appendChild(el("a", { cls: "record", href: campaignUrl("/entries/" + entry.seq), text: text("Record: on the entry page") }));
    }
    if (me && !me.gm && entry.actor === me.player && !entry.voided && entry.voidable) {
      item.appendChild(action("ask\u0000" + entry.seq, text("Ask to void"), text("Ask to void #{seq}", { seq: entry.seq }),
        "small", function (key) {
          var reason = window.prompt(text("Reason for the void"));
          if (!reason) return null;
          return post("/api/void-requests", { seq: entry.seq, reason: reason, idempotency_key: key })
            .then(function (asked) {
              say(text("asked the GM to void #{seq}: “{reason}” (request #{request})",
                       { seq: entry.seq, reason: reason, request: asked.seq }), "", []);
              refresh();
            }, failed);
        }));
    }
    return item;
  }

  // A keyed list brought up to date in place: an item whose data are unchanged keeps its
  // node; a changed one is rebuilt, keeping its open folds and, when it held the focus,
  // handing the focus to the same control in the new node; nodes never move, so the
  // reader's place and the scroll stay.
  function patch(id, list, keyOf, make, empty) {
    var holder = document.getElementById(id);
    var old = {}, open = {}, focusKey = null, active = document.activeElement;
    Array.prototype.forEach.call(holder.children, function (node) { old[node.dataset.key] = node; });
    if (active && holder.contains(active)) focusKey = active.dataset.focus || null;
    Array.prototype.forEach.call(holder.querySelectorAll("details[data-keep]"), function (fold) {
      open[fold.dataset.keep] = fold.open; });
    var wanted = list.map(function (data) {
      var key = String(keyOf(data)), sig = JSON.stringify(data), node = old[key];
      if (node && node.dataset.sig === sig) return node;
      node = make(data);
      node.dataset.key = key;
      node.dataset.sig = sig;
      Array.prototype.forEach.call(node.querySelectorAll("details[data-keep]"), function (fold) {
        if (Object.prototype.hasOwnProperty.call(open, fold.dataset.keep)) fold.open = open[fold.dataset.keep]; });
      return node;
    });
    if (!wanted.length && empty !== null) {
      wanted = [old["\u0000none"] || el("li", { cls: "none", text: empty })];
      wanted[0].dataset.key = "\u0000none";
    }
    Array.prototype.slice.call(holder.children).forEach(function (node) {
      if (wanted.indexOf(node) < 0) holder.removeChild(node); });
    var at = holder.firstChild;
    wanted.forEach(function (node) {
      if (node === at) at = at.nextSibling;
      else holder.insertBefore(node, at);
    });
    if (focusKey && (!document.activeElement || document.activeElement === document.body)) {
      var again = buttonsFor(focusKey)[0];
      if (again) again.focus();
    }
  }

  // A select's options, rebuilt only when the names change; the choice stays as it was.
  function options(select, first, names) {
    var want = [first].concat(names), have = Array.prototype.map.call(select.options, function (o) { return o.value; });
    if (want.join("\u0000") === have.join("\u0000")) return false;
    var was = select.value;
    while (select.firstChild) select.removeChild(select.firstChild);
    want.forEach(function (name, index) {
      select.appendChild(el("option", { value: name, text: index ? name : select.dataset.none })); });
    select.value = want.indexOf(was) >= 0 ? was : "";
    return true;
  }

  function announceCalls(calls) {
    var mine = calls.filter(function (call) { return me && call.player === me.player; });
    if (seenCalls) {
      mine.forEach(function (call) {
        if (!seenCalls[call.call_id]) announce(text("New call: {prompt}", { prompt: call.prompt })); });
    }
    seenCalls = {};
    calls.forEach(function (call) { seenCalls[call.call_id] = true; });
  }

  function render(state) {
    tableState = state;
    state.characters.forEach(function (c) { c.mine = !!me && c.player === me.player; });
    state.characters.sort(function (a, b) { return (b.mine - a.mine) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0); });
    // a player's own characters first, then the rest of the table (no buttons on those)
    var shown = state.characters.filter(function (c) { return me && (me.gm || c.mine); });
    var sheets = state.characters.filter(function (c) { return c.mine || c.status === "active" || (me && me.gm); });
    announceCalls(state.calls);
    patch("call-list", state.calls, function (call) { return call.call_id; }, callItem, text("No calls"));
    if (document.getElementById("request-list")) {
      patch("request-list", state.void_requests, function (request) { return request.seq; }, requestItem,
            text("No requests"));
    }
    patch("sheets", sheets, function (c) { return c.name; }, sheet, null);
    var callChar = document.getElementById("call-char");
    if (callChar) {
      callChar.dataset.none = callChar.dataset.everyone;
      options(callChar, "", state.characters.filter(function (c) { return c.status === "active"; }).map(function (c) {
        return c.name; }));
    }
    var select = document.getElementById("roll-char");
    select.dataset.none = text("(none)");
    var first = !select.options.length;  // the first fill picks the player's own character; later, the player's choice stays
    options(select, "", shown.map(function (c) { return c.name; }));
    if (first && shown.length && !me.gm) select.value = shown[0].name;
    patch("missing-list", state.missing, function (m) { return m.character; }, function (m) {
      var about = [text("reunion {chance}", { chance: m.chance })];
      if (m.searchers.length) about.push(text("searching: {names}", { names: list(m.searchers) }));
      return el("li", { text: m.character + " (" + list(about) + ")" }); }, text("Nobody"));
    keep(state.latest);
    drawLatest();
    var reunion = document.getElementById("reunion-form");
    if (reunion) reunion.closest("section").hidden = !state.missing.length;
    root.dataset.head = String(state.head);
    root.dataset.calls = String(state.calls.length);
  }

  function keep(list) {  // entries into the list by seq (a later copy of one replaces it)
    list.forEach(function (item) { items[item.seq] = item; newest = Math.max(newest, item.seq); });
    var seqs = Object.keys(items).map(Number).sort(function (a, b) { return b - a; });
    seqs.slice(SHOWN).forEach(function (seq) { delete items[seq]; });
  }

  function drawLatest() {
    var seqs = Object.keys(items).map(Number).sort(function (a, b) { return b - a; });
    patch("latest-list", seqs.map(function (seq) { return items[seq]; }), function (entry) { return entry.seq; },
          latestItem, null);
    if (resultSeqs.length) changed();
  }

  function arrived(item) {  // an entry event: fetch what lies between the newest held and it
    var gap = newest && item.seq > newest + 1 ? [newest, item.seq] : null;
    if (tableState && item.seq > newest && !(me && item.actor === me.player)) {  // another's new entry, spoken once
      announce(text("New entry: {line}", { line: "#" + item.seq + " " + item.kind_label + " " + (item.character || "") +
                                                 " " + item.text + " — " + item.actor }));
    }
    keep([item]);
    drawLatest();
    if (!gap) return;
    fetch(campaignUrl("/api/table/entries?after=" + gap[0] + "&before=" + gap[1]), { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (data) { keep(data.entries || []); drawLatest(); }, function () {});
  }

  function refresh() {  // several events in a burst: one fetch
    if (pending) return;
    pending = setTimeout(function () {
      pending = null;
      fetch(campaignUrl("/api/table"), { credentials: "same-origin" }).then(function (r) { return r.json(); })
        .then(render, function () {});
    }, 30);
  }

  function connect() {
    var conn = document.getElementById("conn");
    var source = new EventSource(root.dataset.feed);
    function status(state, words) {  // a status line speaks only when it changes
      conn.dataset.state = state;
      if (conn.textContent !== words) conn.textContent = words;
    }
    source.addEventListener("open", function () { status("connected", text("live")); refresh(); });
    source.addEventListener("error", function () { status("disconnected", text("disconnected: reconnecting…")); });
    source.addEventListener("state", function (event) {  // the shared part, as every seat sees it
      var data;
      try { data = JSON.parse(event.data); } catch (e) { return; }
      if (!data.table || !tableState || data.seq < (tableState.head || 0)) return;
      var next = Object.assign({}, tableState, data.table);
      if (!(me && me.gm)) next.void_requests = [];
      render(next);
    });
    source.addEventListener("entry", function (event) {
      var data;
      try { data = JSON.parse(event.data); } catch (e) { return; }
      if (data.item) arrived(data.item);
    });
    source.addEventListener("calls", refresh);
  }

  function number(id) {
    var text = document.getElementById(id).value.trim();
    return text === "" ? null : parseInt(text, 10);
  }

  function callFromForm() {  // the GM's form: the same call as `campaign call ...`
    var kind = document.getElementById("call-kind").value;
    var who = document.getElementById("call-char").value;
    var body = { kind: kind === "fright" ? "fright" : "check",
                 reason: document.getElementById("call-reason").value.trim() || null };
    if (who) body.character = who;
    else body.characters = [];  // everyone taking part: one call each
    var params = { modifier: number("call-mod") || 0 };
    if (kind === "success") {
      params.check = kind;
      params.roll = document.getElementById("call-roll").value.trim() || null;
    } else if (kind !== "fright") {
      params.check = kind;
      params.stat = document.getElementById("call-stat").value.trim() || null;
      params[kind === "danger" ? "difficulty" : "target"] = number("call-target");
      if (kind === "skill") params.skill = number("call-skill");
    }
    body.params = params;
    return post("/api/calls", body).then(function (made) {
      say((made.calls || [made]).map(function (call) {
        return text("called #{call}: {prompt}", { call: call.call_id, prompt: call.prompt }); }).join(" / "));
      refresh();
    }, failed);
  }

  function callFields() {  // the call form shows the fields the chosen check uses
    var kind = document.getElementById("call-kind").value;
    var twoD6 = kind === "ability" || kind === "skill" || kind === "danger";
    var uses = { "call-stat": twoD6, "call-target": twoD6, "call-skill": kind === "skill", "call-roll": kind === "success" };
    Object.keys(uses).forEach(function (id) {
      var input = document.getElementById(id);
      input.hidden = !uses[id];
      document.querySelector('label[for="' + id + '"]').hidden = !uses[id];
    });
  }

  function reunionFromForm() {  // `scenario end --call`: the missing characters' player rolls the reunion
    var params = { award: number("reunion-award") };
    var elapsed = document.getElementById("reunion-elapsed").value.trim();
    if (elapsed) params.elapsed = elapsed;
    return post("/api/calls", { kind: "reunion", character: "", params: params })
      .then(function (call) { say(text("called #{call}: {prompt}", { call: call.call_id, prompt: call.prompt })); refresh(); }, failed);
  }

  function submits(form, work) {  // a form's submit (a tap or Enter) as one tap of its button
    var button = form.querySelector("button[type=submit]");
    button.dataset.focus = "form\u0000" + form.id;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      tap(button.dataset.focus, work);
    });
  }

  /** The receipts panel, once receipts.js has run: the session can answer before that deferred
   *  script executes, and every deferred script runs before DOMContentLoaded. */
  function startReceipts(of) {
    if (window.fairReceipts) window.fairReceipts.start(of);
    else if (document.readyState !== "complete") {
      document.addEventListener("DOMContentLoaded", function () { if (window.fairReceipts) window.fairReceipts.start(of); });
    }
  }

  function start() {
    root = document.getElementById("table");
    if (!root) return;
    var callForm = document.getElementById("call-form");
    if (callForm) {
      submits(callForm, callFromForm);
      document.getElementById("call-kind").addEventListener("change", callFields);
      callFields();
    }
    var reunionForm = document.getElementById("reunion-form");
    if (reunionForm) submits(reunionForm, reunionFromForm);
    document.getElementById("roll-result").addEventListener("click", function (event) {
      if (event.target.tagName === "A") return;
      event.currentTarget.textContent = "";  // read: a tap puts it away
      resultSeqs = [];
    });
    submits(document.getElementById("roll-form"), function (key) {
      var command = document.getElementById("roll-command").value.trim();
      return command ? roll(command, document.getElementById("roll-char").value, key) : null;
    });
    fetch(campaignUrl("/api/session"), { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (s) {
      if (!s.csrf) return;
      csrf = s.csrf;
      me = { player: s.player, gm: s.gm };
      startReceipts({ campaign: root.dataset.campaign, player: s.player });
      refresh();
      if (typeof EventSource !== "undefined") connect();
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

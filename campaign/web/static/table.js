// The table page (player and GM): state from GET /api/table, writes as POSTs with the
// session's CSRF token, and the live feed (/api/feed): its `state` event carries the part
// of the table every seat sees alike (characters, missing board, void requests, latest
// entries) after each new entry, applied without a fetch; a `calls` event (a call made,
// rolled, cancelled: calls are rows, not entries) makes the page fetch its own calls.
// The latest entries are kept by seq: each `entry` event carries its item, a state's
// latest entries refresh the ones it holds, and a gap in the seqs is fetched
// (/api/table/entries), so a burst of rolls skips none on any open page.
// Text is always set with textContent, never parsed as HTML. No build step.
(function () {
  "use strict";
  var root, csrf = null, me = null, pending = null, tableState = null;
  var SHOWN = 50;  // entries the latest list keeps, newest first
  var items = {}, newest = 0;  // seq -> the entry as the list shows it; the newest seq held

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

  // A refusal's own line; a request that never got an answer (fetch's TypeError) in words.
  function failed(error) { say((error && error.error) || text("cannot reach the server"), "error"); }

  function rollText(entry) {
    var line = "#" + entry.seq + " " + (entry.character || entry.actor) + ": " + (entry.expression || entry.kind);
    if (entry.dice) line += " [" + entry.dice.join(",") + "]";
    if (entry.total !== null && entry.total !== undefined) line += " = " + entry.total;
    if (entry.target !== null && entry.target !== undefined && !/[<>]/.test(entry.expression || "")) {
      line += " " + text("(target {target})", { target: entry.target });  // a reunion's 1d6 against its chance
    }
    if (entry.outcome) line += " " + word("outcome", entry.outcome);
    if (entry.secret) line += " " + text("(secret)");
    if (entry.fairness === "provable") line += " " + text("(provably fair)");
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

  function roll(command, character) {
    var body = { command: command, character: character || null, idempotency_key: newKey(), share: newShare() };
    var receipt = sent("/api/rolls", body, command, character);
    post("/api/rolls", body)
      .then(function (entry) { answered(receipt, entry); rolled(entry); refresh(); },
            function (error) { refusedReceipt(receipt, error); failed(error); });
  }

  function meter(label, pool) {
    if (!pool) return null;
    var id = "m" + newKey().slice(0, 8);
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
          var button = el("button", { type: "button", cls: "skill", text: k.name + " " + k.level });
          button.addEventListener("click", function () { roll(k.name, c.name); });
          return button;
        })));
      } else {
        box.appendChild(el("p", { cls: "skills-text", text: text("Skills: {skills}", { skills: list(
          c.skills.map(function (k) { return k.name + " " + k.level; })) }) }));
      }
    }
    if (c.palette.length && (c.mine || (me && me.gm))) {
      var palette = el("div", { cls: "palette" }, c.palette.map(function (line) {
        var button = el("button", { type: "button", text: line });
        button.addEventListener("click", function () { roll(line, c.name); });
        return button;
      }));
      // the player's own palette is open; the GM's page folds every character's away
      box.appendChild(c.mine ? palette : el("details", { cls: "palette-fold" },
        [el("summary", { text: text("Palette ({count})", { count: c.palette.length }) }), palette]));
    }
    if (me && me.gm && c.status === "active") {
      var call = el("button", { type: "button", cls: "gm", text: text("Call a fright check") });
      call.addEventListener("click", function () {
        post("/api/calls", { kind: "fright", character: c.name }).then(function () { refresh(); }, failed);
      });
      box.appendChild(call);
    }
    return box;
  }

  function callItem(call) {
    var item = el("li", { cls: "call" }, [el("strong", { text: call.prompt })]);
    if (call.reason) item.appendChild(el("span", { cls: "reason", text: " — " + call.reason }));
    var mineToRoll = me && (call.player === me.player || me.gm);
    if (mineToRoll) {
      var key = newKey(), share = newShare();  // one key per call shown: a double tap or a retry rolls once
      var button = el("button", { type: "button", cls: "roll-call",
                                  text: me.gm && call.player !== me.player ? text("Roll for them") : text("Roll") });
      button.addEventListener("click", function () {
        button.disabled = true;
        var body = { idempotency_key: key, share: share };
        var receipt = sent("/api/calls/" + call.call_id + "/roll", body, call.prompt, call.character);
        post("/api/calls/" + call.call_id + "/roll", body)
          .then(function (entry) { answered(receipt, entry); rolled(entry); refresh(); },
                function (error) { refusedReceipt(receipt, error); button.disabled = false; failed(error); });
      });
      item.appendChild(button);
    }
    if (me && me.gm) {
      var cancel = el("button", { type: "button", cls: "gm", text: text("Cancel") });
      cancel.addEventListener("click", function () {
        post("/api/calls/" + call.call_id + "/cancel", {}).then(function () { refresh(); }, failed);
      });
      item.appendChild(cancel);
    }
    return item;
  }

  function requestItem(request) {
    var item = el("li", { cls: "call" }, [
      el("strong", { text: text("void of #{seq}", { seq: request.requested_void }) }),
      el("span", { cls: "reason", text: " — " + (request.on_behalf_of || request.actor) + " " +
                                        text("“{text}”", { text: request.reason || "" }) })
    ]);
    var approve = el("button", { type: "button", cls: "gm", text: text("Approve") });
    approve.addEventListener("click", function () {
      post("/api/void-requests/" + request.seq + "/approve", {}).then(function () { refresh(); }, failed);
    });
    var refuse = el("button", { type: "button", cls: "gm", text: text("Refuse") });
    refuse.addEventListener("click", function () {
      var reason = window.prompt(text("Reason for refusing"));
      if (!reason) return;
      post("/api/void-requests/" + request.seq + "/refuse", { reason: reason }).then(function () { refresh(); },
                                                                                     failed);
    });
    item.appendChild(approve);
    item.appendChild(refuse);
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
      item.appendChild(el("details", { cls: "record" }, [el("summary", { text: text("Record") }),
        el("pre", { cls: "record", text: JSON.stringify(entry.record, null, 1) })]));
    } else if (entry.record_on_entry_page) {  // a big roll: its total above, its dice on its page
      item.appendChild(el("a", { cls: "record", href: campaignUrl("/entries/" + entry.seq), text: text("Record: on the entry page") }));
    }
    if (me && !me.gm && entry.actor === me.player && !entry.voided && entry.voidable) {
      var ask = el("button", { type: "button", cls: "small", text: text("Ask to void") });
      ask.addEventListener("click", function () {
        var reason = window.prompt(text("Reason for the void"));
        if (!reason) return;
        post("/api/void-requests", { seq: entry.seq, reason: reason, idempotency_key: newKey() })
          .then(function (asked) {
            say(text("asked the GM to void #{seq}: “{reason}” (request #{request})",
                     { seq: entry.seq, reason: reason, request: asked.seq }), "", []);
            refresh();
          }, failed);
      });
      item.appendChild(ask);
    }
    return item;
  }

  function replace(id, nodes) {
    var holder = document.getElementById(id);
    while (holder.firstChild) holder.removeChild(holder.firstChild);
    nodes.forEach(function (node) { holder.appendChild(node); });
  }

  function render(state) {
    tableState = state;
    state.characters.forEach(function (c) { c.mine = !!me && c.player === me.player; });
    state.characters.sort(function (a, b) { return (b.mine - a.mine) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0); });
    // a player's own characters first, then the rest of the table (no buttons on those)
    var shown = state.characters.filter(function (c) { return me && (me.gm || c.mine); });
    var sheets = state.characters.filter(function (c) { return c.mine || c.status === "active" || (me && me.gm); });
    replace("call-list", state.calls.length ? state.calls.map(callItem)
      : [el("li", { cls: "none", text: text("No calls") })]);
    if (document.getElementById("request-list")) {
      replace("request-list", state.void_requests.length ? state.void_requests.map(requestItem)
        : [el("li", { cls: "none", text: text("No requests") })]);
    }
    replace("sheets", sheets.map(sheet));
    var callChar = document.getElementById("call-char");
    if (callChar) {
      var was = callChar.value;
      replace("call-char", [el("option", { value: "", text: callChar.dataset.everyone })].concat(
        state.characters.filter(function (c) { return c.status === "active"; }).map(function (c) {
          return el("option", { value: c.name, text: c.name }); })));
      callChar.value = was;
    }
    var select = document.getElementById("roll-char");
    var chosen = select.value;
    replace("roll-char", [el("option", { value: "", text: text("(none)") })].concat(shown.map(function (c) {
      return el("option", { value: c.name, text: c.name }); })));
    if (chosen) select.value = chosen;
    else if (shown.length && !me.gm) select.value = shown[0].name;
    replace("missing-list", state.missing.length ? state.missing.map(function (m) {
      var about = [text("reunion {chance}", { chance: m.chance })];
      if (m.searchers.length) about.push(text("searching: {names}", { names: list(m.searchers) }));
      return el("li", { text: m.character + " (" + list(about) + ")" }); })
      : [el("li", { cls: "none", text: text("Nobody") })]);
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
    replace("latest-list", seqs.map(function (seq) { return latestItem(items[seq]); }));
    if (resultSeqs.length) changed();
  }

  function arrived(item) {  // an entry event: fetch what lies between the newest held and it
    var gap = newest && item.seq > newest + 1 ? [newest, item.seq] : null;
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
    function status(state, text) { conn.dataset.state = state; conn.textContent = text; }
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

  function callFromForm(event) {  // the GM's form: the same call as `campaign call ...`
    event.preventDefault();
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
    post("/api/calls", body).then(function (made) {
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

  function reunionFromForm(event) {  // `scenario end --call`: the missing characters' player rolls the reunion
    event.preventDefault();
    var params = { award: number("reunion-award") };
    var elapsed = document.getElementById("reunion-elapsed").value.trim();
    if (elapsed) params.elapsed = elapsed;
    post("/api/calls", { kind: "reunion", character: "", params: params })
      .then(function (call) { say(text("called #{call}: {prompt}", { call: call.call_id, prompt: call.prompt })); refresh(); }, failed);
  }

  function start() {
    root = document.getElementById("table");
    if (!root) return;
    var callForm = document.getElementById("call-form");
    if (callForm) {
      callForm.addEventListener("submit", callFromForm);
      document.getElementById("call-kind").addEventListener("change", callFields);
      callFields();
    }
    var reunionForm = document.getElementById("reunion-form");
    if (reunionForm) reunionForm.addEventListener("submit", reunionFromForm);
    document.getElementById("roll-result").addEventListener("click", function (event) {
      if (event.target.tagName === "A") return;
      event.currentTarget.textContent = "";  // read: a tap puts it away
      resultSeqs = [];
    });
    document.getElementById("roll-form").addEventListener("submit", function (event) {
      event.preventDefault();
      var command = document.getElementById("roll-command").value.trim();
      if (command) roll(command, document.getElementById("roll-char").value);
    });
    fetch(campaignUrl("/api/session"), { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (s) {
      if (!s.csrf) return;
      csrf = s.csrf;
      me = { player: s.player, gm: s.gm };
      if (window.fairReceipts) window.fairReceipts.start({ campaign: root.dataset.campaign, player: s.player });
      refresh();
      if (typeof EventSource !== "undefined") connect();
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

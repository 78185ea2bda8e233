/* Receipts of this device's fair rolls, kept and checked in the browser (docs/fair-dice.md,
 * "Your receipts").
 *
 * A page that draws a share, sends it and forgets it can only recompute from whatever
 * share the entry holds: a server that swapped the player's share for one it ground (or
 * recorded dice that are not the draws, or a total the dice do not make) passes every
 * check of the chain alone. So the table page keeps, per seat (campaign and player), in
 * localStorage, a receipt of every write it sent with a share: the idempotency key, the
 * share, the command and the server's answer (each entry's seq, dice, total, outcome and
 * fair object). An answer that echoes another share warns at once; after the reveal, and
 * whenever the player taps "check my rolls", every receipt is checked against the chain:
 *
 *   - the entries that answered it exist and carry exactly this share;
 *   - their dice are the faces the seed and the share derive, one for one (v2: HMAC over
 *     "campaign-fair-v2:share:index:counter", crypto.subtle where the page is a secure
 *     context, the bundled sha256.js on a plain http:// LAN page), their index run starts
 *     at 0 and continues across the request's entries;
 *   - their totals and outcomes follow from their dice (recompute.js).
 *
 * Entries in this player's name that no receipt covers are listed (rolled from another
 * device, or not by them). "Download my receipts" saves the receipts as one JSON file
 * (format in docs/fair-dice.md) for `campaign fair check-receipts FILE`.
 *
 *   fairReceipts.start({campaign, player})          the seat; draws the panel
 *   fairReceipts.sent(path, body, command, character) -> receipt (kept before the POST)
 *   fairReceipts.answered(receipt, answer)          keeps the answer; false when the share differs
 *   fairReceipts.check(receipts, records, player)   -> Promise of the verdict (below)
 *   fairReceipts.checkNow()                         -> Promise: the chain fetched, this seat checked
 */
(function () {
  "use strict";
  if (window.fairReceipts) return;

  var FORMAT = "campaign-receipts", VERSION = 1, V2_TAG = "campaign-fair-v2:";
  var seat = null, shownRevealed = -1, ledger = null;  // ledger: the chain's own campaign name

  function text(message, values) {
    return window.campaignText ? window.campaignText(message, values) : message;
  }

  function isInt(value) { return typeof value === "number" && Math.floor(value) === value; }

  function storageKey(of) { return "campaign-receipts:" + of.campaign + ":" + of.player; }

  function load() {
    if (!seat) return [];
    try {
      var kept = JSON.parse(window.localStorage.getItem(storageKey(seat)) || "[]");
      return Array.isArray(kept) ? kept : [];
    } catch (err) {
      return [];  // storage off or unreadable: nothing kept
    }
  }

  function save(receipts) {
    try { window.localStorage.setItem(storageKey(seat), JSON.stringify(receipts)); } catch (err) { /* off */ }
  }

  /** The part of an answer a receipt keeps: the echoed share (null when the answer has none)
   * and, per entry written, its seq, dice, total, outcome and fair object. */
  function answerOf(answer) {
    var entries = Array.isArray(answer.entries) ? answer.entries : [answer];
    return {
      share: typeof answer.share === "string" ? answer.share : null,
      entries: entries.filter(function (entry) { return entry && isInt(entry.seq); }).map(function (entry) {
        return { seq: entry.seq, dice: entry.dice === undefined ? null : entry.dice,
                 total: entry.total === undefined ? null : entry.total,
                 outcome: entry.outcome === undefined ? null : entry.outcome,
                 fair: entry.fair && typeof entry.fair === "object" ? entry.fair : null };
      })
    };
  }

  function sent(path, body, command, character) {
    if (!seat || !body.share) return null;
    var receipt = { key: body.idempotency_key, share: body.share, path: path, command: command || null,
                    character: character || null, sent_at: new Date().toISOString(), answer: null, refused: null };
    var receipts = load().filter(function (kept) { return kept.key !== receipt.key; });  // a retry: one receipt
    receipts.push(receipt);
    save(receipts);
    return receipt;
  }

  function update(receipt) {
    save(load().map(function (kept) { return kept.key === receipt.key ? receipt : kept; }));
  }

  function answered(receipt, answer) {
    if (!receipt) return true;
    receipt.answer = answerOf(answer || {});
    update(receipt);
    var echoed = receipt.answer.share;
    if (echoed !== null && echoed !== receipt.share) {
      var seqs = receipt.answer.entries.map(function (entry) { return "#" + entry.seq; });
      warn(text("warning: the server recorded your roll {seqs} with another share than your device sent: " +
                "the server may have chosen these dice", { seqs: seqs.join(" ") }));
      return false;
    }
    return true;
  }

  /** A write the server refused (400, 409...) wrote nothing: the receipt says so. */
  function refused(receipt, error) {
    if (!receipt) return;
    receipt.refused = (error && (error.code || error.error)) || "refused";
    update(receipt);
  }

  // --- the derivation (docs/fair-dice.md), HMAC-SHA-256 by crypto.subtle where it exists

  function hexBytes(hex) {
    var out = new Uint8Array(hex.length / 2);
    for (var i = 0; i < out.length; i += 1) out[i] = parseInt(hex.substr(i * 2, 2), 16);
    return out;
  }

  function subtleHmac() {
    var keys = {}, encoder = new TextEncoder();
    return function (seed, message) {
      if (!keys[seed]) {
        keys[seed] = crypto.subtle.importKey("raw", hexBytes(seed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      }
      return keys[seed].then(function (key) { return crypto.subtle.sign("HMAC", key, encoder.encode(message)); })
        .then(function (digest) { return new Uint8Array(digest); });
    };
  }

  function bundledHmac() {
    return function (seed, message) {
      return Promise.resolve(window.sha256.hmac.array(Array.from(hexBytes(seed)), message));
    };
  }

  /** Promise of the face: rejection sampling over HMAC(seed, prefix + counter). */
  function deriveFace(hmac, seed, prefix, sides) {
    var width = 1;
    while (Math.pow(256, width) < sides) width += 1;
    var span = Math.pow(256, width), limit = span - span % sides;
    function attempt(counter) {
      if (counter >= 1000) throw new Error("no face after 1000 tries");
      return hmac(seed, prefix + counter).then(function (digest) {
        var value = 0;
        for (var b = 0; b < width; b += 1) value = value * 256 + digest[b];
        return value < limit ? value % sides + 1 : attempt(counter + 1);
      });
    }
    return attempt(0);
  }

  function hmacOf(engine) {
    var subtle = window.crypto && window.crypto.subtle && window.isSecureContext;
    return (engine === "subtle" || (!engine && subtle)) ? subtleHmac() : bundledHmac();
  }

  // --- the check

  /** What the chain says about seeds: revealed {commit: seed} (when it hashes to its
   * commitment) and abandoned {commit: seq}. */
  function seedsOf(records) {
    var commits = {}, seeds = {}, abandoned = {};
    records.forEach(function (record) {
      var detail = record.detail || {};
      if (record.kind === "seed_commit") commits[record.seq] = detail.commitment;
      if (record.kind === "seed_reveal" && isInt(detail.reveals) && typeof detail.seed === "string" &&
          window.sha256 && window.sha256.hex(Array.from(hexBytes(detail.seed))) === commits[detail.reveals]) {
        seeds[detail.reveals] = detail.seed;
      }
      var ends = window.fairCheck ? window.fairCheck.abandons(record) : null;
      if (ends !== null) abandoned[ends] = record.seq;
    });
    return { seeds: seeds, abandoned: abandoned };
  }

  function shareOf(record) {
    var fair = record.detail && record.detail.fair;
    return fair && typeof fair === "object" && typeof fair.share === "string" ? fair.share : null;
  }

  function short(share) { return String(share).slice(0, 12) + "…"; }

  /** The problems of one receipt found without a seed (the answer against the chain), and
   * the chain's entries that belong to it. */
  function matchReceipt(receipt, bySeq, byShare) {
    var problems = [], answer = receipt.answer, entries = (byShare[receipt.share] || []).slice();
    function problem(seq, words) { problems.push({ key: receipt.key, seq: seq, problem: words }); }
    if (answer && answer.share === null) {
      problem(null, text("the server's answer to your roll ({key}) did not echo the share your device sent",
                         { key: receipt.key }));
    } else if (answer && answer.share !== receipt.share) {
      problem(null, text("the server answered your roll ({key}) with share {theirs}, not yours ({mine})",
                         { key: receipt.key, theirs: short(answer.share), mine: short(receipt.share) }));
    }
    (answer ? answer.entries : []).forEach(function (shown) {
      var record = bySeq[shown.seq];
      if (!record) {
        problem(shown.seq, text("entry #{seq}, which answered your roll, is not in the chain", { seq: shown.seq }));
      } else if (shareOf(record) !== receipt.share) {
        problem(shown.seq, text("entry #{seq} carries share {theirs}, not the one your device sent ({mine}): " +
                                "the server replaced your share",
                                { seq: shown.seq, theirs: short(shareOf(record)), mine: short(receipt.share) }));
        if (entries.indexOf(record) < 0) entries.push(record);
      } else if (JSON.stringify(shown.dice) !== JSON.stringify(record.dice)) {
        problem(shown.seq, text("entry #{seq} holds dice {dice}, but the server showed you {shown}",
                                { seq: shown.seq, dice: String(record.dice), shown: String(shown.dice) }));
      }
    });
    if (!entries.length && answer && !problems.length) {
      problem(null, text("no entry of the chain carries the share of your roll ({key})", { key: receipt.key }));
    }
    entries.sort(function (a, b) { return a.seq - b.seq; });
    return { problems: problems, entries: entries };
  }

  /** The derivation tasks of one request's entries (and the problems seen without a seed). */
  function requestTasks(receipt, entries, seeds, problems, tally) {
    var tasks = [], next = 0, first = entries.length ? entries[0].seq : null;
    entries.forEach(function (record) {
      var fair = record.detail.fair, seq = record.seq, v2 = fair.v === 2;
      function problem(words) { problems.push({ key: receipt.key, seq: seq, problem: words }); }
      var draws = Array.isArray(fair.draws) ? fair.draws : [];
      var faces = draws.map(function (draw) { return draw[1]; });
      if (fair.from !== next) {
        problem(text("entry #{seq}: its dice start at index {start}, expected {expected}",
                     { seq: seq, start: fair.from, expected: next }));
      }
      next = (isInt(fair.from) ? fair.from : next) + draws.length;
      if (!v2 && fair.seq !== first) {
        problem(text("entry #{seq} derives its dice from seq {base}, not from its request's #{first}: " +
                     "the server chose the input", { seq: seq, base: fair.seq, first: first }));
      }
      if (JSON.stringify(record.dice) !== JSON.stringify(faces)) {
        problem(text("entry #{seq}: its dice {dice} are not the derived draws {faces}",
                     { seq: seq, dice: String(record.dice), faces: faces.join(",") }));
      }
      var parent = entries.filter(function (other) { return other.seq === record.parent_seq; })[0];
      var follows = window.fairRecompute ? window.fairRecompute.follows(record, parent) : null;
      if (follows) problem(follows);
      if (!v2) tally.v1 += 1;
      if (seeds.abandoned[fair.commit] !== undefined && seeds.seeds[fair.commit] === undefined) {
        tally.abandoned += 1;
        return;
      }
      var seed = seeds.seeds[fair.commit];
      if (seed === undefined) { tally.pending += 1; return; }
      tally.derived += 1;
      draws.forEach(function (draw, offset) {
        var index = (isInt(fair.from) ? fair.from : 0) + offset;
        tasks.push({ receipt: receipt, seq: seq, number: offset + 1, sides: draw[0], shown: draw[1], seed: seed,
                     prefix: v2 ? V2_TAG + receipt.share + ":" + index + ":" : fair.seq + ":" + receipt.share + ":" + index + ":" });
      });
    });
    return tasks;
  }

  function uncoveredOf(records, covered, player) {
    return records.filter(function (record) {
      return record.actor === player && Array.isArray(record.dice) && !covered[record.seq];
    }).map(function (record) { return record.seq; });
  }

  /** Promise of {ok, receipts, derived, pending, abandoned, v1, problems [{key, seq, problem}],
   * uncovered [seq]} for `receipts` against the chain's parsed `records`. */
  function check(receipts, records, player, engine) {
    var bySeq = {}, byShare = {}, covered = {}, problems = [], tasks = [];
    var tally = { derived: 0, pending: 0, abandoned: 0, v1: 0 };
    records.forEach(function (record) {
      bySeq[record.seq] = record;
      var share = shareOf(record);
      if (share) (byShare[share] = byShare[share] || []).push(record);
    });
    var seeds = seedsOf(records);
    receipts.forEach(function (receipt) {
      if (receipt.refused) return;  // refused by the server: nothing was written
      var found = matchReceipt(receipt, bySeq, byShare);
      found.entries.forEach(function (record) { covered[record.seq] = true; });
      problems.push.apply(problems, found.problems);
      tasks.push.apply(tasks, requestTasks(receipt, found.entries, seeds, problems, tally));
    });
    var hmac = hmacOf(engine);
    return Promise.all(tasks.map(function (task) {
      return deriveFace(hmac, task.seed, task.prefix, task.sides).then(function (should) {
        if (should !== task.shown) {
          problems.push({ key: task.receipt.key, seq: task.seq, problem: text(
            "entry #{seq}: die {number} (d{sides}) shows {shown}, the seed gives {should}: the die was changed",
            { seq: task.seq, number: task.number, sides: task.sides, shown: task.shown, should: should }) });
        }
      });
    })).then(function () {
      problems.sort(function (a, b) { return (a.seq || 0) - (b.seq || 0); });
      return { ok: !problems.length, receipts: receipts.length, derived: tally.derived, pending: tally.pending,
               abandoned: tally.abandoned, v1: tally.v1, problems: problems,
               uncovered: uncoveredOf(records, covered, player) };
    });
  }

  // --- the panel on the table page

  function node(tag, attrs) {
    var made = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === "text") made.textContent = attrs[name];
      else made.setAttribute(name, attrs[name]);
    });
    return made;
  }

  function warn(words) {
    var out = document.getElementById("receipts-warning");
    if (!out) return;
    out.hidden = false;
    out.textContent = words;
  }

  function show(found) {
    var out = document.getElementById("receipts-status"), list = document.getElementById("receipts-problems");
    out.setAttribute("data-status", found.ok ? (found.uncovered.length ? "warn" : "ok") : "fail");
    out.setAttribute("data-problems", String(found.problems.length));
    var words = found.ok
      ? text("your receipts hold: {receipts} rolls, {derived} entries recomputed from their seed, {pending} wait " +
             "for the reveal, {abandoned} unprovable (seed abandoned)", found)
      : text("your receipts do not hold: {count} problems", { count: found.problems.length });
    if (out.textContent !== words) out.textContent = words;  // a status line speaks only when it changes
    while (list.firstChild) list.removeChild(list.firstChild);
    found.problems.forEach(function (item) {
      list.appendChild(node("li", { "data-seq": item.seq === null ? "" : String(item.seq), text: item.problem }));
    });
    var uncovered = document.getElementById("receipts-uncovered");
    uncovered.hidden = !found.uncovered.length;
    uncovered.textContent = found.uncovered.length ? text(
      "entries in your name that no receipt of this device covers (rolled elsewhere, or not by you): {seqs}",
      { seqs: found.uncovered.map(function (seq) { return "#" + seq; }).join(" ") }) : "";
    uncovered.setAttribute("data-seqs", found.uncovered.join(","));
  }

  function checkRecords(records) {
    return check(load(), records, seat.player).then(function (found) { show(found); return found; });
  }

  function checkNow() {
    if (!seat || !window.fairCheck) return Promise.resolve(null);
    return window.fairCheck.fetchChain().then(function (chain) {
      ledger = chain.campaign;
      return checkRecords(chain.entries.map(function (entry) { return entry.parsed; }));
    }).catch(function (error) {
      var out = document.getElementById("receipts-status");
      out.setAttribute("data-status", "error");
      var words = text("cannot check your receipts: {error}", { error: String(error) });
      if (out.textContent !== words) out.textContent = words;
      return null;
    });
  }

  /** The downloadable file (docs/fair-dice.md, "The receipts file"). */
  function file() {
    return { format: FORMAT, version: VERSION, campaign: seat.campaign, ledger: ledger, player: seat.player,
             saved_at: new Date().toISOString(), receipts: load() };
  }

  function download() {
    var known = ledger !== null ? Promise.resolve() : fetch(campaignUrl("/api/chain?from=1&to=1"), { credentials: "same-origin" })
      .then(function (response) { return response.json(); }).then(function (data) { ledger = data.campaign; });
    return known.then(function () {
      var blob = new Blob([JSON.stringify(file(), null, 1)], { type: "application/json" });
      var link = node("a", { href: URL.createObjectURL(blob), download: "receipts-" + seat.player + ".json" });
      document.body.appendChild(link);
      link.click();
      link.remove();
    });
  }

  /** After a reveal (or an abandon) the page's chain check saw: check the receipts on its records. */
  function afterChainCheck(event) {
    var records = event.detail.records, seeds = seedsOf(records);
    ledger = event.detail.campaign;
    var ended = Object.keys(seeds.seeds).length + Object.keys(seeds.abandoned).length;
    if (ended > shownRevealed && load().length) {
      shownRevealed = ended;
      checkRecords(records);
    }
  }

  function panel() {
    var table = document.getElementById("table");
    var box = node("section", { id: "receipts", "aria-labelledby": "receipts-title" });
    box.appendChild(node("h2", { id: "receipts-title", text: text("Your receipts") }));
    var warning = node("p", { id: "receipts-warning", role: "alert", "class": "receipts-warning" });
    warning.hidden = true;
    box.appendChild(warning);
    var checkButton = node("button", { type: "button", id: "receipts-check", text: text("Check my rolls") });
    checkButton.addEventListener("click", checkNow);
    var saveButton = node("button", { type: "button", id: "receipts-download", text: text("Download my receipts") });
    saveButton.addEventListener("click", download);
    box.appendChild(checkButton);
    box.appendChild(saveButton);
    box.appendChild(node("p", { id: "receipts-status", role: "status", "class": "fair-status" }));
    box.appendChild(node("ul", { id: "receipts-problems" }));
    var uncovered = node("p", { id: "receipts-uncovered" });
    uncovered.hidden = true;
    box.appendChild(uncovered);
    table.appendChild(box);
  }

  function start(of) {
    if (seat || !of || !of.campaign || !of.player || !document.getElementById("table")) return;
    seat = { campaign: of.campaign, player: of.player };
    panel();
    document.addEventListener("fair-chain", afterChainCheck);
  }

  window.fairReceipts = { start: start, sent: sent, answered: answered, refused: refused, check: check,
                          checkNow: checkNow, file: file, load: load, FORMAT: FORMAT };
})();

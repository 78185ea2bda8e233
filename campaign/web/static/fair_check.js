/* Provably fair dice, recomputed in the browser (docs/fair-dice.md).
 *
 * The same rules as campaign/fair_check.py, line for line: every revealed seed must hash
 * to its commitment, and every die of an entry marked fair must be the face that
 * HMAC-SHA-256(seed, "campaign-fair-v2:share:index:counter") gives with rejection
 * sampling ("seq:share:index:counter" for entries written before v2, labelled v1), with
 * its dice those faces one for one; and every roll's total and outcome must follow from
 * its dice (recompute.js). Dice under an abandoned commitment are counted apart: they
 * can never be proved. Uses the bundled sha256.js (plain http:// LAN pages have no
 * crypto.subtle), synchronously.
 *
 *   fairCheck.face(seed, seq, share, index, sides)  -> face (v1)
 *   fairCheck.faceV2(seed, share, index, sides)     -> face (v2)
 *   fairCheck.checkRecords(records)                 -> {ok, seq, problem, revealed, checked, pending, abandoned}
 *   fairCheck.checkChain("/api/chain")              -> Promise of the same, over the whole chain,
 *                                                      with `lost`: what this browser was shown before
 *   fairCheck.compareShown(campaign, shown)         -> lost [{kind, seq, value}] (and keeps `shown`)
 *
 * What the page was shown: every seed commitment and seal head of a chain it checked is
 * kept in this browser (localStorage), and a later chain that no longer holds one of
 * them, at its seq with its value, is called out. A history rewritten with a new seed
 * and re-hashed from end to end is consistent in itself; it cannot contain the
 * commitment the table saw before the dice were rolled, nor the seal heads after them.
 * On the table page the check runs by itself and after each new roll (#fair-status).
 */
(function () {
  "use strict";
  if (window.fairCheck) return;  // loaded by the base page and by the table page

  function bytes(hex) {
    var out = [];
    for (var i = 0; i < hex.length; i += 2) out.push(parseInt(hex.substr(i, 2), 16));
    return out;
  }

  function isHex(value, length) {
    return typeof value === "string" && /^[0-9a-f]*$/.test(value) && (length === undefined || value.length === length);
  }

  function isInt(value) { return typeof value === "number" && Math.floor(value) === value; }

  /** One face by rejection sampling: HMAC-SHA-256(seed, prefix + counter) until a value fits. */
  function derived(seed, prefix, sides) {
    var key = bytes(seed);
    var width = 1;
    while (Math.pow(256, width) < sides) width += 1;
    var span = Math.pow(256, width), limit = span - span % sides;
    for (var counter = 0; counter < 1000; counter += 1) {
      var digest = window.sha256.hmac.array(key, prefix + counter);
      var value = 0;
      for (var b = 0; b < width; b += 1) value = value * 256 + digest[b];
      if (value < limit) return value % sides + 1;
    }
    throw new Error("no face after 1000 tries");
  }

  /** v1 (entries without fair.v): the message holds the request's first seq, a server choice. */
  function face(seed, seq, share, index, sides) { return derived(seed, seq + ":" + share + ":" + index + ":", sides); }

  /** v2: only the seed, the player's share and the die's index go in, after a fixed tag. */
  function faceV2(seed, share, index, sides) {
    return derived(seed, "campaign-fair-v2:" + share + ":" + index + ":", sides);
  }

  /** The commitment an abandon entry (`history abandon-seed`) ends, or null for any other entry. */
  function abandons(record) {
    if (!/^seed_abandon/.test(record.kind || "")) return null;
    var detail = record.detail || {};
    var target = [detail.abandons, detail.commit, detail.seed_commit].filter(isInt)[0];
    return target === undefined ? null : target;
  }

  function Unfair(seq, problem) { this.seq = seq; this.problem = problem; }

  /** The page's words for a message (static/messages.js, from the server's catalog). */
  function text(message, values) {
    return window.campaignText ? window.campaignText(message, values) : message;
  }

  function check(records) {
    var commits = {}, seeds = {}, abandoned = {}, fairEntries = [];
    records.forEach(function (record) {
      var seq = record.seq, detail = record.detail || {};
      if (abandons(record) !== null) abandoned[abandons(record)] = seq;
      if (record.kind === "seed_commit") {
        if (!isHex(detail.commitment, 64)) throw new Unfair(seq, text("seed commitment #{seq} holds no SHA-256 hex digest", { seq: seq }));
        commits[seq] = detail.commitment;
      } else if (record.kind === "seed_reveal") {
        var target = detail.reveals, seed = detail.seed;
        if (!isInt(target) || !(target in commits)) {
          throw new Unfair(seq, text("seed reveal #{seq} names #{target}, which is no earlier seed commitment",
                                     { seq: seq, target: target }));
        }
        if (target in seeds) throw new Unfair(seq, text("seed commitment #{target} is revealed twice", { target: target }));
        if (!isHex(seed, 64) || window.sha256.hex(bytes(seed)) !== commits[target] || detail.commitment !== commits[target]) {
          throw new Unfair(seq, text("seed reveal #{seq} does not match commitment #{target}: the seed was swapped",
                                     { seq: seq, target: target }));
        }
        seeds[target] = { seed: seed, at: seq };
      }
      if (detail.fair && typeof detail.fair === "object") fairEntries.push(record);
    });
    var counts = { checked: 0, pending: 0, abandoned: 0 }, nextIndex = {};
    fairEntries.forEach(function (record) { checkFair(record, commits, seeds, abandoned, nextIndex, counts); });
    var bySeq = {};
    records.forEach(function (record) { bySeq[record.seq] = record; });
    records.forEach(function (record) {  // every checker recomputes: fair or not (recompute.js)
      var parent = record.parent_seq === null || record.parent_seq === undefined ? undefined : bySeq[record.parent_seq];
      var problem = window.fairRecompute ? window.fairRecompute.follows(record, parent) : null;
      if (problem) throw new Unfair(record.seq, problem);
    });
    return { revealed: Object.keys(seeds).length, checked: counts.checked, pending: counts.pending,
             abandoned: counts.abandoned };
  }

  /** The version of an entry's derivation: 2 for `{"v": 2, ...}`, else 1 (docs/fair-dice.md). */
  function version(fair) { return fair.v === 2 ? 2 : 1; }

  function checkFair(record, commits, seeds, abandoned, nextIndex, counts) {
    var seq = record.seq, fair = record.detail.fair, draws = fair.draws, v2 = version(fair) === 2;
    if (!isInt(fair.commit) || !(fair.commit in commits) || fair.commit >= seq) {
      throw new Unfair(seq, text("entry #{seq} derives its dice from #{commit}, which is no earlier seed commitment",
                                 { seq: seq, commit: fair.commit }));
    }
    var inputs = v2 ? isHex(fair.share, 64) : isInt(fair.seq) && fair.commit < fair.seq && fair.seq <= seq;
    if (!inputs || !isInt(fair.from) || !Array.isArray(draws)) {
      throw new Unfair(seq, text("entry #{seq}: its fair-dice inputs are malformed", { seq: seq }));
    }
    if (fair.commit in seeds && seeds[fair.commit].at < seq) {
      throw new Unfair(seq, text("entry #{seq} derives its dice from seed #{commit}, revealed before it",
                                 { seq: seq, commit: fair.commit }));
    }
    // v2: one request is one share (the database refuses a second use), so its index run is the share's
    var group = fair.commit + ":" + (v2 ? fair.share : fair.seq), expected = nextIndex[group] || 0;
    if (fair.from !== expected) {
      throw new Unfair(seq, text("entry #{seq}: its dice start at index {start}, expected {expected}",
                                 { seq: seq, start: fair.from, expected: expected }));
    }
    nextIndex[group] = fair.from + draws.length;
    var faces = draws.map(function (draw) { return draw[1]; });
    var dice = record.dice;
    // v2 records each entry's own draws, so its dice are those faces one for one, count included
    var differ = Array.isArray(dice) && (v2 || dice.length === faces.length) && dice.join(",") !== faces.join(",");
    if (differ) {
      throw new Unfair(seq, text("entry #{seq}: its dice {dice} are not the derived draws {faces}",
                                 { seq: seq, dice: dice.join(","), faces: faces.join(",") }));
    }
    if (fair.commit in abandoned && !(fair.commit in seeds)) { counts.abandoned += 1; return; }
    if (!(fair.commit in seeds)) { counts.pending += 1; return; }
    draws.forEach(function (draw, offset) {
      var seed = seeds[fair.commit].seed, index = fair.from + offset;
      var should = v2 ? faceV2(seed, fair.share, index, draw[0]) : face(seed, fair.seq, fair.share || "", index, draw[0]);
      if (draw[1] !== should) {
        throw new Unfair(seq, text("entry #{seq}: die {number} (d{sides}) shows {shown}, the seed gives {should}: " +
                                   "the die was changed",
                                   { seq: seq, number: offset + 1, sides: draw[0], shown: draw[1], should: should }));
      }
    });
    counts.checked += 1;
  }

  function checkRecords(records) {
    try {
      var counts = check(records);
      return { ok: true, seq: null, problem: null, revealed: counts.revealed, checked: counts.checked,
               pending: counts.pending, abandoned: counts.abandoned };
    } catch (error) {
      if (!(error instanceof Unfair)) throw error;
      return { ok: false, seq: error.seq, problem: error.problem, revealed: 0, checked: 0, pending: 0, abandoned: 0 };
    }
  }

  function shownKey(campaign) { return "campaign-shown:" + campaign; }

  function loadShown(campaign) {
    try {
      var kept = JSON.parse(window.localStorage.getItem(shownKey(campaign)) || "null");
      return kept && typeof kept === "object" && !Array.isArray(kept) ? kept : {};
    } catch (err) {
      return {};  // storage off or unreadable: nothing remembered
    }
  }

  /** What a chain shows that must never change: {"seed_commit:8": commitment, "seal:12": head}. */
  function shownOf(entries) {
    var shown = {};
    entries.forEach(function (entry) {
      var record = entry.parsed;
      if (record.kind === "seed_commit" && record.detail) shown["seed_commit:" + record.seq] = record.detail.commitment;
      if (record.kind === "seal") shown["seal:" + record.seq] = entry.hash;
    });
    return shown;
  }

  /** The commitments and seal heads this browser kept for `campaign` that `shown` lacks;
   * when none is lost, `shown` is added to what is kept (a lost one stays kept, and warned of). */
  function compareShown(campaign, shown) {
    var kept = loadShown(campaign), lost = [];
    Object.keys(kept).sort(function (a, b) { return parseInt(a.split(":")[1], 10) - parseInt(b.split(":")[1], 10); })
      .forEach(function (name) {
        if (shown[name] !== kept[name]) {
          lost.push({ kind: name.split(":")[0], seq: parseInt(name.split(":")[1], 10), value: kept[name] });
        }
      });
    if (!lost.length) {
      Object.keys(shown).forEach(function (name) { kept[name] = shown[name]; });
      try { window.localStorage.setItem(shownKey(campaign), JSON.stringify(kept)); } catch (err) { /* off */ }
    }
    return lost;
  }

  /** The whole chain: Promise of {campaign, entries: [{hash, parsed}]}, page by page. */
  function fetchChain(url) {
    var entries = [], campaign = null;
    function page(from) {
      return fetch((url || campaignUrl("/api/chain")) + "?from=" + from, { credentials: "same-origin" })
        .then(function (response) { return response.json(); })
        .then(function (data) {
          campaign = data.campaign;
          (data.entries || []).forEach(function (entry) {
            entries.push({ hash: entry.hash, parsed: JSON.parse(entry.record) });
          });
          return data.next ? page(data.next) : { campaign: campaign, entries: entries };
        });
    }
    return page(1);
  }

  function checkChain(url) {
    return fetchChain(url).then(function (chain) {
      var records = chain.entries.map(function (entry) { return entry.parsed; });
      var found = checkRecords(records);
      found.lost = compareShown(chain.campaign, shownOf(chain.entries));
      // the table page's receipts (receipts.js) reuse the chain just fetched: no second download
      document.dispatchEvent(new CustomEvent("fair-chain", { detail: { campaign: chain.campaign, records: records } }));
      return found;
    });
  }

  function lostWords(lost) {
    var names = lost.map(function (item) {
      return text(item.kind === "seal" ? "seal #{seq} ({hash}…)" : "seed commitment #{seq} ({hash}…)",
                  { seq: item.seq, hash: item.value.slice(0, 16) });
    });
    return text("warning: {names}, shown to this browser before, is not in this chain: the history was rewritten",
                { names: window.campaignList ? window.campaignList(names) : names.join(", ") });
  }

  /** The table page's own line: the check's verdict, run on load and after each new roll.
   * Its counts change with every roll, so the line itself is not a live region: the page's
   * polite region (#announce) reads it out only when the verdict changes (or is not "ok"
   * at first), never on a mere new count. */
  function status() {
    var table = document.getElementById("table");
    if (!table || !window.sha256) return;
    var out = document.createElement("p");
    out.id = "fair-status";
    out.className = "fair-status";
    table.appendChild(out);
    var running = false, again = false, verdict = null;
    function say(state, words) {
      out.setAttribute("data-status", state);
      if (out.textContent !== words) out.textContent = words;
      var said = state + "\u0000" + (out.getAttribute("data-warning") || "");
      var region = document.getElementById("announce");
      if (region && said !== verdict && (verdict !== null || state !== "ok")) {
        var line = document.createElement("p");
        line.textContent = words;
        region.appendChild(line);
      }
      verdict = said;
    }
    function show(found) {
      out.setAttribute("data-checked", String(found.checked));
      if (found.lost.length) out.setAttribute("data-warning", "shown-missing");
      else out.removeAttribute("data-warning");
      var words = !found.ok
        ? text("fair dice rejected: {problem}", { problem: found.problem })
        : text("provably fair: {checked} entries recomputed in this browser, {pending} wait for their seed",
               { checked: found.checked, pending: found.pending });
      if (found.lost.length) words += " " + lostWords(found.lost);
      say(!found.ok ? "fail" : found.lost.length ? "warn" : "ok", words);
    }
    function run() {
      if (running) { again = true; return; }
      running = true;
      checkChain().then(show, function (error) {
        say("error", text("cannot check the fair dice: {error}", { error: String(error) }));
      }).then(function () {
        running = false;
        if (again) { again = false; run(); }
      });
    }
    var latest = document.getElementById("latest-list");
    if (latest && window.MutationObserver) new MutationObserver(run).observe(latest, { childList: true });
    run();
  }

  window.fairCheck = { face: face, faceV2: faceV2, version: version, abandons: abandons, checkRecords: checkRecords,
                       fetchChain: fetchChain, checkChain: checkChain, compareShown: compareShown, shownOf: shownOf,
                       lostWords: lostWords };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", status);
  else status();
})();

/* Provably fair dice, recomputed in the browser (docs/fair-dice.md).
 *
 * The same rules as campaign/fair_check.py, line for line: every revealed seed must hash
 * to its commitment, and every die of an entry marked fair must be the face that
 * HMAC-SHA-256(seed, "seq:share:index:counter") gives with rejection sampling. Uses the
 * bundled sha256.js (plain http:// LAN pages have no crypto.subtle), synchronously.
 *
 *   fairCheck.face(seed, seq, share, index, sides)  -> face
 *   fairCheck.checkRecords(records)                 -> {ok, seq, problem, revealed, checked, pending}
 *   fairCheck.checkChain("/api/chain")              -> Promise of the same, over the whole chain
 */
(function () {
  "use strict";

  function bytes(hex) {
    var out = [];
    for (var i = 0; i < hex.length; i += 2) out.push(parseInt(hex.substr(i, 2), 16));
    return out;
  }

  function isHex(value, length) {
    return typeof value === "string" && /^[0-9a-f]*$/.test(value) && (length === undefined || value.length === length);
  }

  function isInt(value) { return typeof value === "number" && Math.floor(value) === value; }

  function face(seed, seq, share, index, sides) {
    var key = bytes(seed);
    var width = 1;
    while (Math.pow(256, width) < sides) width += 1;
    var span = Math.pow(256, width), limit = span - span % sides;
    for (var counter = 0; counter < 1000; counter += 1) {
      var digest = window.sha256.hmac.array(key, seq + ":" + share + ":" + index + ":" + counter);
      var value = 0;
      for (var b = 0; b < width; b += 1) value = value * 256 + digest[b];
      if (value < limit) return value % sides + 1;
    }
    throw new Error("no face after 1000 tries");
  }

  function Unfair(seq, problem) { this.seq = seq; this.problem = problem; }

  function check(records) {
    var commits = {}, seeds = {}, fairEntries = [];
    records.forEach(function (record) {
      var seq = record.seq, detail = record.detail || {};
      if (record.kind === "seed_commit") {
        if (!isHex(detail.commitment, 64)) throw new Unfair(seq, "seed commitment #" + seq + " holds no SHA-256 hex digest");
        commits[seq] = detail.commitment;
      } else if (record.kind === "seed_reveal") {
        var target = detail.reveals, seed = detail.seed;
        if (!isInt(target) || !(target in commits)) {
          throw new Unfair(seq, "seed reveal #" + seq + " names #" + target + ", which is no earlier seed commitment");
        }
        if (target in seeds) throw new Unfair(seq, "seed commitment #" + target + " is revealed twice");
        if (!isHex(seed, 64) || window.sha256.hex(bytes(seed)) !== commits[target] || detail.commitment !== commits[target]) {
          throw new Unfair(seq, "seed reveal #" + seq + " does not match commitment #" + target + ": the seed was swapped");
        }
        seeds[target] = { seed: seed, at: seq };
      }
      if (detail.fair && typeof detail.fair === "object") fairEntries.push(record);
    });
    var checked = 0, pending = 0, nextIndex = {};
    fairEntries.forEach(function (record) {
      var seq = record.seq, fair = record.detail.fair, draws = fair.draws;
      if (!isInt(fair.commit) || !(fair.commit in commits) || fair.commit >= seq) {
        throw new Unfair(seq, "entry #" + seq + " derives its dice from #" + fair.commit + ", which is no earlier seed commitment");
      }
      if (!isInt(fair.seq) || !(fair.commit < fair.seq && fair.seq <= seq) || !isInt(fair.from) || !Array.isArray(draws)) {
        throw new Unfair(seq, "entry #" + seq + ": its fair-dice inputs are malformed");
      }
      if (fair.commit in seeds && seeds[fair.commit].at < seq) {
        throw new Unfair(seq, "entry #" + seq + " derives its dice from seed #" + fair.commit + ", revealed before it");
      }
      var group = fair.commit + ":" + fair.seq, expected = nextIndex[group] || 0;
      if (fair.from !== expected) {
        throw new Unfair(seq, "entry #" + seq + ": its dice start at index " + fair.from + ", expected " + expected);
      }
      nextIndex[group] = fair.from + draws.length;
      var faces = draws.map(function (draw) { return draw[1]; });
      var dice = record.dice;
      if (Array.isArray(dice) && dice.length === faces.length && dice.join(",") !== faces.join(",")) {
        throw new Unfair(seq, "entry #" + seq + ": its dice " + dice.join(",") + " are not the derived draws " + faces.join(","));
      }
      if (!(fair.commit in seeds)) { pending += 1; return; }
      draws.forEach(function (draw, offset) {
        var should = face(seeds[fair.commit].seed, fair.seq, fair.share || "", fair.from + offset, draw[0]);
        if (draw[1] !== should) {
          throw new Unfair(seq, "entry #" + seq + ": die " + (offset + 1) + " (d" + draw[0] + ") shows " + draw[1] +
                                ", the seed gives " + should + ": the die was changed");
        }
      });
      checked += 1;
    });
    return { revealed: Object.keys(seeds).length, checked: checked, pending: pending };
  }

  function checkRecords(records) {
    try {
      var counts = check(records);
      return { ok: true, seq: null, problem: null, revealed: counts.revealed, checked: counts.checked, pending: counts.pending };
    } catch (error) {
      if (!(error instanceof Unfair)) throw error;
      return { ok: false, seq: error.seq, problem: error.problem, revealed: 0, checked: 0, pending: 0 };
    }
  }

  function checkChain(url) {
    var records = [];
    function page(from) {
      return fetch((url || "/api/chain") + "?from=" + from, { credentials: "same-origin" })
        .then(function (response) { return response.json(); })
        .then(function (data) {
          (data.entries || []).forEach(function (entry) { records.push(JSON.parse(entry.record)); });
          return data.next ? page(data.next) : checkRecords(records);
        });
    }
    return page(1);
  }

  window.fairCheck = { face: face, checkRecords: checkRecords, checkChain: checkChain };
})();

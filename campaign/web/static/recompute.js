/* Totals and outcomes recomputed from the dice, in the browser (docs/fair-dice.md,
 * "Every checker recomputes").
 *
 * A derived die proves only the die: a server that records [1,6,6] = 3 as a critical
 * success keeps every die honest and still lies about the roll. So the page's checks
 * (fair_check.js over the chain, receipts.js over this device's receipts) recompute what
 * a roll's dice imply, by the rules the roll used, for the expressions the table rolls:
 *
 *   NdM with + and - constants        total = the dice + the constants, no outcome
 *   NdM+c<=T (3d6, GURPS)             docs/rules.md "Success roll", as campaign/core/success.py:
 *                                     criticals compare the raw 3d6 with the target as
 *                                     written, the constant moves only the total; margin
 *                                     = target - total ("Sorcery rolls": 17 fumbles too)
 *   a fright check                    the same success roll (docs/rules.md "Fright check")
 *   the fright table's roll           total = its 3d6 + the margin of failure it adds,
 *                                     clamped into the table (only to its entry's bound)
 *
 * Anything else (2d6 action checks with their terms, BCDice commands, repeats) is not
 * recomputed here: `follows(record)` answers null, and the dice alone are checked.
 *
 *   fairRecompute.follows(record) -> null (not recomputable) | "" (follows) | problem text
 */
(function () {
  "use strict";
  if (window.fairRecompute) return;

  var PLAIN = /^(\d*)D(\d*)((?:[+-]\d+)*)(?:<=(-?\d+))?$/;  // 3D6, 1D, 2D6+1, 3D6-2<=12

  function text(message, values) {
    return window.campaignText ? window.campaignText(message, values) : message;
  }

  function sum(faces) { return faces.reduce(function (a, b) { return a + b; }, 0); }

  function constants(spelled) {
    var total = 0;
    (spelled.match(/[+-]\d+/g) || []).forEach(function (part) { total += parseInt(part, 10); });
    return total;
  }

  /** docs/rules.md "Success roll" (campaign/core/success.py `judge_success`), line for line. */
  function judge(raw, total, target, sorcery) {
    if (raw <= 4 || (raw === 5 && target >= 15) || (raw === 6 && target >= 16)) return "critical_success";
    if (raw === 18 || (raw === 17 && (target <= 15 || sorcery)) || raw >= target + 10) return "critical_failure";
    if (raw >= 17) return "failure";  // the automatic failure: outcome failure, marked automatic
    return total <= target ? "success" : "failure";
  }

  /** The fright table's result: its 3d6 plus the margin of failure, clamped into the table's
   * range (campaign/core/fright.py); the record names the entry's range, and a clamped
   * result can only be that range's bound. */
  function tableTotal(raw, range, recorded) {
    if (Array.isArray(range) && raw > range[1] && recorded === range[1]) return range[1];
    if (Array.isArray(range) && raw < range[0] && recorded === range[0]) return range[0];
    return raw;
  }

  function gurps(record) {
    var detail = record.detail || {};
    return detail.gurps && typeof detail.gurps === "object" ? detail.gurps : {};
  }

  /** What the record should hold, from its dice and expression; null when not recomputable. */
  function expected(record) {
    var dice = record.dice, detail = record.detail || {};
    if (!Array.isArray(dice) || record.secret || (detail.repeats && detail.repeats.length)) return null;
    if (record.kind === "fright" && detail.purpose === "table") {
      var added = detail.margin_added;
      if (typeof added !== "number" || dice.length !== 3) return null;
      return { count: 3, sides: 6, total: tableTotal(sum(dice) + added, detail.range, record.total), outcome: null,
               margin: null };
    }
    if (record.kind !== "roll" && record.kind !== "fright") return null;
    var parts = PLAIN.exec(String(record.expression || "").toUpperCase());
    if (!parts) return null;
    var count = parts[1] === "" ? 1 : parseInt(parts[1], 10), sides = parts[2] === "" ? 6 : parseInt(parts[2], 10);
    var total = sum(dice) + constants(parts[3]);
    if (parts[4] === undefined) return { count: count, sides: sides, total: total, outcome: null, margin: null };
    if (count !== 3 || sides !== 6) return null;
    var target = parseInt(parts[4], 10);
    return { count: 3, sides: 6, total: total, target: target, margin: target - total,
             outcome: judge(sum(dice), total, target, gurps(record).sorcery === true) };
  }

  function follows(record) {
    var should = expected(record);
    if (!should) return null;
    var seq = record.seq, dice = record.dice;
    var bad = dice.length !== should.count ||
      (should.sides && dice.some(function (face) { return !(face >= 1 && face <= should.sides); }));
    if (bad) {
      return text("entry #{seq}: {count} dice {dice} for {expression}",
                  { seq: seq, count: dice.length, dice: dice.join(","), expression: record.expression });
    }
    if (record.total !== should.total) {
      return text("entry #{seq}: its dice {dice} make {should}, not the recorded total {total}",
                  { seq: seq, dice: dice.join(","), should: should.total, total: record.total });
    }
    if ("target" in should && record.target !== should.target) {
      return text("entry #{seq}: its target {target} is not the expression's {should}",
                  { seq: seq, target: record.target, should: should.target });
    }
    if ((record.outcome || null) !== should.outcome) {
      return text("entry #{seq}: its dice {dice} make {should}, not the recorded {outcome}",
                  { seq: seq, dice: dice.join(","), should: word(should.outcome), outcome: word(record.outcome) });
    }
    var margin = record.margin === undefined ? null : record.margin;
    if (margin !== should.margin) {
      return text("entry #{seq}: its margin {margin} is not {should}", { seq: seq, margin: margin, should: should.margin });
    }
    return "";
  }

  function word(code) {
    if (code === null || code === undefined) return text("no outcome");
    return window.campaignWord ? window.campaignWord("outcome", code) : code;
  }

  window.fairRecompute = { follows: follows, judge: judge };
})();

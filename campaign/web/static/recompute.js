/* Totals and outcomes recomputed from the dice, in the browser (docs/fair-dice.md,
 * "Every checker recomputes").
 *
 * A derived die proves only the die: a server that records [1,6,6] = 3 as a critical
 * success keeps every die honest and still lies about the roll. So the page's checks
 * (fair_check.js over the chain, receipts.js over this device's receipts) recompute what
 * a roll's dice imply, by the rules the roll used, as campaign/fair_check.py does (the
 * tests run one table of rolls through both):
 *
 *   an arithmetic roll           its expression read as the dice engine reads it: dice
 *                                terms NdM, Dm, Nd, D66, NdMKHk / NdMKLk, whole numbers,
 *                                + - * / (/ rounds down) and parentheses, optionally
 *                                compared with a fixed target; the dice are the terms'
 *                                faces in the order written
 *   3D6+c<=T (GURPS), a fright   docs/rules.md "Success roll", as campaign/core/success.py:
 *   check                        criticals compare the raw 3d6 with the target as
 *                                written, the constant moves only the total; margin
 *                                = target - total ("Sorcery rolls": 17 fumbles too)
 *   a table look-up              its 3d6 plus the modifier (the fright table: its check's
 *                                margin of failure), clamped only by the fright (4..40)
 *                                and reaction (0..19) tables; the row named is one of
 *                                the table's rows (ROWS) and holds it
 *   a row's text dice            "1d-3 turns (at least 1)": the row's own dice and minimum
 *                                (TEXT_ROLLS), max(minimum, faces + modifier); the look-up's
 *                                copy (its parent's text_rolls) holds the same faces and value
 *   a fright row's rolls         turns of stun, fatigue, an HT roll: an arithmetic or a
 *                                success roll of its own, under a row of the fright table;
 *                                the effect it sized (detail.effect) holds its total
 *
 * Anything else (BCDice commands, rolls read from a chat log) is not recomputed here:
 * `follows(record)` answers null, and the dice alone are checked.
 *
 *   fairRecompute.follows(record, parent) -> null (not recomputable) | "" (follows) | problem
 *   (parent: the record's parent entry when the caller has it, else undefined)
 */
(function () {
  "use strict";
  if (window.fairRecompute) return;

  var COMPARISONS = ["<=", "=<", ">=", "=>", "<>", "!=", "<", ">", "="];
  var SAME = { "=<": "<=", "=>": ">=", "<>": "!=" };
  var CLAMPED = { FEAR: [4, 40], REACT: [0, 19] };  // the modifiable tables' ranges (seeds/fear.toml, react.toml)
  var NESTING = 32;  // campaign.core.dice_tree.MAX_NESTING
  // The shipped tables' rows (seeds/*.toml), numbers only, as fair_check.py's _ROWS: the
  // table's highest result and each row's lowest, in order (a row runs to the next's - 1).
  var ROWS = {
    CRT: [18, [3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16, 17, 18]],
    FEAR: [40, [4, 6, 8, 10, 11, 12, 13, 14].concat(span(16, 40))],
    FMB: [18, [3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16, 17, 18]],
    GFMB: [18, [3, 5, 6, 7, 8, 9, 12, 13, 15, 16, 18]],
    HCRT: [18, [3, 4, 6, 7, 8, 9, 12, 13, 14, 15]],
    MFMB: [18, span(3, 18)],
    REACT: [19, [0, 1, 4, 7, 10, 13, 16, 19]],
    YFMB: [18, span(3, 18)],
    YSCRT: [18, span(3, 18)],
    YSFMB: [18, span(3, 18)]
  };
  // The dice each row's text names, by "TABLE lowest": [dice, minimum] in the row's order.
  var TEXT_ROLLS = {
    "GFMB 3": [["1D", 0]], "GFMB 16": [["1D", 0]], "MFMB 3": [["1D", 0]],
    "YFMB 3": [["3D", 0], ["1D", 0]], "YFMB 4": [["3D", 0]], "YFMB 10": [["1D", 0]],
    "YSCRT 15": [["1D-3", 1]], "YSFMB 7": [["1D", 0]], "YSFMB 9": [["1D-2", 0]], "YSFMB 16": [["1D-3", 1]]
  };

  function span(low, high) {
    var out = [];
    for (var n = low; n <= high; n += 1) out.push(n);
    return out;
  }

  /** Whether `row` is one of the table's rows: [low, high], or a row's low alone. */
  function isRow(table, row) {
    var rows = typeof table === "string" && Object.prototype.hasOwnProperty.call(ROWS, table) ? ROWS[table] : null;
    var low = isInt(row) ? row : Array.isArray(row) && row.length === 2 ? row[0] : null;
    if (!rows || !isInt(low) || rows[1].indexOf(low) < 0) return false;
    var after = rows[1].indexOf(low) + 1;
    return isInt(row) || row[1] === (after < rows[1].length ? rows[1][after] - 1 : rows[0]);
  }

  /** [count, modifier, minimum] of the text dice a code names in its row (fair_check.py _text_spec). */
  function textSpec(code, table, row) {
    var low = Array.isArray(row) && row.length ? row[0] : null;
    var key = typeof table === "string" && isInt(low) ? table + " " + low : null;
    var specs = key && Object.prototype.hasOwnProperty.call(TEXT_ROLLS, key) ? TEXT_ROLLS[key] : [];
    var index = code && typeof code === "object" ? code.index : undefined;
    if ((table === undefined || table === null) && (row === undefined || row === null) && code && isInt(code.min)) {
      var own = /^([1-9][0-9]?)D([+-][0-9]{1,3})?$/.exec(String(code.dice));  // an older record, with its words
      return own ? [parseInt(own[1], 10), parseInt(own[2] || "0", 10), code.min] : null;
    }
    if (code && typeof code === "object" && !("index" in code)) {
      index = specs.map(function (s) { return s[0]; }).indexOf(code.dice);
    }
    if (!isInt(index) || index < 0 || index >= specs.length) return null;
    var parts = specs[index][0].split("D");
    return [parseInt(parts[0], 10), parseInt(parts[1] || "0", 10), specs[index][1]];
  }

  /** A text roll's code as the row's own dice and minimum make it from its faces. */
  function textValue(code, table, row) {
    var spec = textSpec(code, table, row);
    if (!spec || !code || typeof code !== "object") return null;
    var should = {};
    Object.keys(code).forEach(function (k) { should[k] = code[k]; });
    if (!Array.isArray(code.faces) || !diceFit(code.faces, [[spec[0], 6]])) { should.value = null; return should; }
    should.dice = spec[0] + "D" + (spec[1] ? (spec[1] > 0 ? "+" : "") + spec[1] : "");
    should.value = Math.max(spec[2], sum(code.faces) + spec[1]);
    if ("min" in code) should.min = spec[2];
    return should;
  }

  /** The dice a table row's text names (fair_check.py _text_judgement). */
  function textRoll(record, detail) {
    var code = detail.text_roll, table = detail.table, row = detail.entry;
    var shown = { count: record.dice.length, sides: 6 };
    if ("table" in detail || "entry" in detail) shown.row = ["entry", row, null, table];
    var spec = textSpec(code, table, row);
    if (spec && !diceFit(record.dice, [[spec[0], 6]])) return { mismatch: true, row: shown.row };
    var copy = {};
    if (code && typeof code === "object") Object.keys(code).forEach(function (k) { copy[k] = code[k]; });
    copy.faces = record.dice;
    var value = code && typeof code === "object" ? textValue(copy, table, row) : null;
    shown.total = value ? value.value : null;
    shown.outcome = null; shown.margin = null;
    shown.fields = [["text_roll", code, value], ["expression", record.expression, value ? value.dice : null]];
    return shown;
  }
  var NOT_JUDGED = {};

  function text(message, values) {
    return window.campaignText ? window.campaignText(message, values) : message;
  }

  function isInt(value) { return typeof value === "number" && Math.floor(value) === value; }
  function sum(faces) { return faces.reduce(function (a, b) { return a + b; }, 0); }
  function safe(value) {
    if (!isInt(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) throw NOT_JUDGED;
    return value;
  }

  /** A recorded expression parsed as the dice engine parses it (fair_check.py `_Expression`):
   * nodes {n}, {d, count, sides, keep, kept}, {d66}, {neg}, {sum: [[sign, node]]},
   * {mul: first, rest: [[op, node]]}, dice-free parts folded to numbers. */
  function parse(spelled) {
    var pos = 0, depth = 0;
    function peek() { return pos < spelled.length ? spelled.charAt(pos) : ""; }
    function enter() { depth += 1; if (depth > NESTING) throw NOT_JUDGED; }
    function isDigit(c) { return c >= "0" && c <= "9" && c !== ""; }
    function atom() {
      var found = /^\d+/.exec(spelled.slice(pos));
      if (found) { pos += found[0].length; return { n: safe(parseInt(found[0], 10)) }; }
      if (peek() !== "(") throw NOT_JUDGED;
      enter(); pos += 1;
      var inner = sumOf();
      if (peek() !== ")") throw NOT_JUDGED;
      pos += 1; depth -= 1;
      return inner;
    }
    function fixed() { var node = atom(); if (!("n" in node)) throw NOT_JUDGED; return node.n; }
    function dice(count) {
      pos += 1;
      if (count === null && spelled.substr(pos, 2) === "66" && !isDigit(spelled.charAt(pos + 2))) {
        pos += 2;
        return { d66: true };
      }
      var sides;
      if (isDigit(peek()) || peek() === "(") sides = fixed();
      else if (count === null) throw NOT_JUDGED;
      else sides = 6;
      count = count === null ? 1 : count;
      if (!(count >= 1 && count <= 1000 && sides >= 1 && sides <= 1000)) throw NOT_JUDGED;
      var keep = null, kept = null;
      if (peek() === "K") {
        keep = spelled.substr(pos, 2);
        if (keep !== "KH" && keep !== "KL") throw NOT_JUDGED;
        pos += 2;
        kept = isDigit(peek()) || peek() === "(" ? fixed() : 1;
        if (!(kept >= 1 && kept <= count)) throw NOT_JUDGED;
      }
      return { d: true, count: count, sides: sides, keep: keep, kept: kept };
    }
    function diceOrAtom() {
      if (peek() === "D") return dice(null);
      var node = atom();
      if (peek() !== "D") return node;
      if (!("n" in node)) throw NOT_JUDGED;
      return dice(node.n);
    }
    function unary() {
      var c = peek();
      if (c !== "+" && c !== "-") return diceOrAtom();
      enter(); pos += 1;
      var operand = unary();
      depth -= 1;
      if (c === "+") return operand;
      return "n" in operand ? { n: -operand.n } : { neg: operand };
    }
    function product() {
      var first = unary(), rest = [];
      while (peek() === "*" || peek() === "/") {
        var op = peek();
        pos += 1;
        rest.push([op, unary()]);
      }
      if (!rest.length) return first;
      if ("n" in first && rest.every(function (r) { return "n" in r[1]; })) {
        var value = first.n;
        rest.forEach(function (r) {
          if (r[0] === "/" && r[1].n === 0) throw NOT_JUDGED;
          value = safe(r[0] === "*" ? value * r[1].n : Math.floor(value / r[1].n));
        });
        return { n: value };
      }
      return { mul: first, rest: rest };
    }
    function sumOf() {
      var terms = [[1, product()]];
      while (peek() === "+" || peek() === "-") {
        var sign = peek() === "+" ? 1 : -1;
        pos += 1;
        terms.push([sign, product()]);
      }
      if (terms.length === 1) return terms[0][1];
      if (terms.every(function (t) { return "n" in t[1]; })) {
        return { n: safe(terms.reduce(function (total, t) { return total + t[0] * t[1].n; }, 0)) };
      }
      return { sum: terms };
    }
    if (!spelled || spelled.indexOf(" ") >= 0) throw NOT_JUDGED;
    var head = spelled.split(/[<>=!]/)[0], left, comparison = null, target = null;
    if (head.indexOf("B") >= 0) {  // barabara dice (3B6, 2B6+1B10): faces counted, never summed in a comparison
      if (!/^\d+B\d+(\+\d+B\d+)*$/.test(head)) throw NOT_JUDGED;
      left = { b: head.split("+").map(function (part) { return part.split("B").map(Number); }) };
      pos = head.length;
    } else {
      left = sumOf();
    }
    if ("n" in left) throw NOT_JUDGED;
    if (pos < spelled.length) {
      comparison = COMPARISONS.filter(function (c) { return spelled.substr(pos, c.length) === c; })[0];
      if (!comparison) throw NOT_JUDGED;
      pos += comparison.length;
      comparison = SAME[comparison] || comparison;
      var right = sumOf();
      if (!("n" in right)) throw NOT_JUDGED;
      target = right.n;
    }
    if (pos !== spelled.length) throw NOT_JUDGED;
    return { left: left, comparison: comparison, target: target };
  }

  /** [count, sides] of every dice term, in the order the engine rolls them. */
  function terms(node) {
    if (node.b) return node.b;
    if (node.d) return [[node.count, node.sides]];
    if (node.d66) return [[2, 6]];
    if (node.neg) return terms(node.neg);
    if (node.sum) return [].concat.apply([], node.sum.map(function (t) { return terms(t[1]); }));
    if (node.mul) return terms(node.mul).concat([].concat.apply([], node.rest.map(function (r) { return terms(r[1]); })));
    return [];
  }

  /** The node's value, taking its dice from the front of `faces`. */
  function value(node, faces) {
    if ("n" in node) return node.n;
    if (node.b) return sum(faces.splice(0, sum(node.b.map(function (g) { return g[0]; }))));  // no target: the sum
    if (node.d) {
      var taken = faces.splice(0, node.count);
      if (node.keep) {
        taken = taken.slice().sort(function (a, b) { return node.keep === "KH" ? b - a : a - b; }).slice(0, node.kept);
      }
      return sum(taken);
    }
    if (node.d66) { var pair = faces.splice(0, 2); return pair[0] * 10 + pair[1]; }
    if (node.neg) return -value(node.neg, faces);
    if (node.sum) {
      return safe(node.sum.reduce(function (total, t) { return total + t[0] * value(t[1], faces); }, 0));
    }
    var result = value(node.mul, faces);
    node.rest.forEach(function (r) {
      var right = value(r[1], faces);
      if (r[0] === "/" && right === 0) throw NOT_JUDGED;
      result = safe(r[0] === "*" ? result * right : Math.floor(result / right));
    });
    return result;
  }

  /** Whether the left side is 3D6[+-k], the one shape a GURPS success roll judges. */
  function successRoll(node) {
    function plain3d6(n) { return n.d && n.count === 3 && n.sides === 6 && n.keep === null; }
    if (node.d) return plain3d6(node);
    if (!node.sum) return false;
    var dicey = node.sum.filter(function (t) { return !("n" in t[1]); });
    return dicey.length === 1 && dicey[0][0] === 1 && plain3d6(dicey[0][1]);
  }

  /** docs/rules.md "Success roll" (campaign/core/success.py `judge_success`), line for line. */
  function judge(raw, total, target, sorcery) {
    if (raw <= 4 || (raw === 5 && target >= 15) || (raw === 6 && target >= 16)) return "critical_success";
    if (raw === 18 || (raw === 17 && (target <= 15 || sorcery)) || raw >= target + 10) return "critical_failure";
    if (raw >= 17) return "failure";  // the automatic failure: outcome failure, marked automatic
    return total <= target ? "success" : "failure";
  }

  function diceFit(dice, wanted) {
    var sides = [];
    wanted.forEach(function (t) { for (var i = 0; i < t[0]; i += 1) sides.push(t[1]); });
    return dice.length === sides.length &&
      dice.every(function (face, i) { return isInt(face) && face >= 1 && face <= sides[i]; });
  }

  function gurps(record) {
    var detail = record.detail || {};
    return detail.gurps && typeof detail.gurps === "object" ? detail.gurps : null;
  }

  /** A table look-up: its result from its 3d6 and modifier, and the row that holds it. */
  function lookup(record, detail, parent) {
    var name, added, row, rowName;
    if (record.kind === "table") {
      if (!("raw" in detail && "result" in detail)) return null;
      name = detail.table; added = detail.modifier; row = detail.entry; rowName = "entry";
      // an older record names its row whole; its range says which
      if (row && typeof row === "object" && !Array.isArray(row)) row = row.range;
    } else {
      name = detail.name; added = detail.margin_added; row = detail.range; rowName = "range";
    }
    if (typeof name !== "string" || !isInt(added)) return null;
    if (!diceFit(record.dice, [[3, 6]])) return { count: 3, sides: 6 };
    var raw = sum(record.dice) + added, bounds = CLAMPED[name] || [raw, raw];
    var result = Math.max(bounds[0], Math.min(bounds[1], raw));
    var fields = [["raw", detail.raw, raw], ["expression", record.expression, added ? name + (added > 0 ? "+" : "") + added : name]];
    if (record.kind === "table") {
      fields.push(["result", detail.result, result]);
      if (Array.isArray(detail.text_rolls) && detail.text_rolls.length) {  // the copy of its text dice it keeps
        fields.push(["text_rolls", detail.text_rolls, detail.text_rolls.map(function (code) {
          return textValue(code, name, row);
        })]);
      }
    } else fields.push(["entry", detail.entry, result]);
    if (parent && isInt(parent.total) && isInt(parent.target)) {  // the fright check's own margin of failure
      fields.unshift(["margin_added", added, Math.max(0, parent.total - parent.target)]);
    }
    return { count: 3, sides: 6, total: result, outcome: null, margin: null, fields: fields,
             row: [rowName, row, result, name] };
  }

  /** What the record should hold, from its dice and expression; null when not recomputable. */
  function expected(record, parent) {
    var dice = record.dice, detail = record.detail || {};
    if (!Array.isArray(dice) || record.secret || /^(ccfolia|import)/.test(String(record.source || ""))) return null;
    if (record.kind === "table" && "text_roll" in detail) return textRoll(record, detail);
    if (record.kind === "table" || (record.kind === "fright" && detail.purpose === "table")) {
      return lookup(record, detail, parent);
    }
    var fright = record.kind === "fright";
    if (record.kind !== "roll" && !fright) return null;
    // a roll the fright table's row asked for: under one of its rows
    var below = fright && record.parent_seq !== null && record.parent_seq !== undefined ? ["entry", detail.entry, null, "FEAR"] : null;
    var parsed, wanted, total;
    try {
      parsed = parse(String(record.expression || ""));
      wanted = terms(parsed.left);
      if (!diceFit(dice, wanted)) return { mismatch: true };
      total = value(parsed.left, dice.slice());
    } catch (problem) {
      if (problem === NOT_JUDGED) return null;
      throw problem;
    }
    var shown = { total: total, outcome: null, margin: null };
    if (below) shown.row = below;
    if (parsed.comparison === null) return shown;
    if (parsed.left.b) {  // barabara: the total is how many faces meet the target; no outcome
      var want = parsed.comparison;
      shown.target = parsed.target;
      shown.total = dice.filter(function (f) {
        return want === "<=" ? f <= parsed.target : want === ">=" ? f >= parsed.target : want === "<" ? f < parsed.target :
               want === ">" ? f > parsed.target : want === "=" ? f === parsed.target : f !== parsed.target;
      }).length;
      return shown;
    }
    var marks = gurps(record);
    var goal = marks && isInt(marks.target) ? marks.target : parsed.target;
    shown.target = goal;
    if ((marks || fright) && parsed.comparison === "<=" && successRoll(parsed.left)) {
      shown.outcome = judge(sum(dice), total, goal, !!marks && marks.sorcery === true);
      shown.margin = goal - total;
      return shown;
    }
    var c = parsed.comparison;
    shown.outcome = (c === "<=" ? total <= goal : c === ">=" ? total >= goal : c === "<" ? total < goal :
                     c === ">" ? total > goal : c === "=" ? total === goal : total !== goal) ? "success" : "failure";
    shown.margin = c === "<=" || c === "<" ? goal - total : c === ">=" || c === ">" ? total - goal : null;
    return shown;
  }

  function follows(record, parent) {
    var should = expected(record, parent);
    if (!should) return null;
    var seq = record.seq, dice = record.dice;
    if (should.row && !isRow(should.row[3], should.row[1])) {
      return text("entry #{seq}: the table {table} has no row {row}",
                  { seq: seq, table: String(should.row[3]), row: JSON.stringify(should.row[1]) });
    }
    if (should.mismatch || !("total" in should)) {
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
    var wrong = (should.fields || []).filter(function (f) { return JSON.stringify(f[1]) !== JSON.stringify(f[2]); })[0];
    if (!wrong && should.row && should.row[2] !== null) {
      var row = should.row[1], result = should.row[2];
      var holds = Array.isArray(row) && row.length === 2 && isInt(row[0]) && isInt(row[1]) &&
        row[0] <= result && result <= row[1];
      if (!holds) wrong = should.row;
    }
    if (wrong) {
      return text("entry #{seq}: its {name} is {value}, its dice {dice} give {should}",
                  { seq: seq, name: wrong[0], value: JSON.stringify(wrong[1]), dice: dice.join(","), should: wrong[2] });
    }
    return sized(record, parent) || textCopy(record, parent);
  }

  // The field of a fright's effect a roll its row asked for sizes (fair_check.py _SIZES).
  var SIZES = { stun_turns: "duration", duration: "duration", severity: "severity", fatigue: "amount", injury: "amount" };

  /** A roll a fright row asked for sizes the parent's effect its detail.effect names: that
   * effect holds its total, under the same row ("" when it does, or when not recorded). */
  function sized(record, parent) {
    var detail = record.detail || {};
    if (record.kind !== "fright" || !parent || typeof detail.purpose !== "string" || !("effect" in detail)) return "";
    var field = SIZES[detail.purpose.split(":")[0]];
    if (!field) return "";
    var effects = (parent.detail || {}).effects, index = detail.effect;
    var effect = Array.isArray(effects) && isInt(index) && index >= 0 && index < effects.length ? effects[index] : null;
    var value = effect && typeof effect === "object" && field in effect ? effect[field] : null;
    if (effect && effect.entry === detail.entry && isInt(value) && value === record.total) return "";
    return text("entry #{seq}: its {name} is {value}, its dice {dice} give {should}",
                { seq: parent.seq, name: "detail.effects." + index + "." + field, value: JSON.stringify(value),
                  dice: record.dice.join(","), should: record.total });
  }

  /** The look-up whose row named the dice keeps a copy of them (detail.text_rolls): the copy
   * with the same index holds the entry's faces and value (fair_check.py _text_copy); checked
   * when the caller passes that look-up as the parent. */
  function textCopy(record, parent) {
    var detail = record.detail || {}, code = detail.text_roll;
    if (record.kind !== "table" || !code || typeof code !== "object" || !("index" in code)) return "";
    if (!parent || parent.seq !== detail.requested_by) return "";
    var copies = Array.isArray((parent.detail || {}).text_rolls) ? parent.detail.text_rolls : [];
    var found = [];
    copies.forEach(function (kept, n) { if (kept && typeof kept === "object" && kept.index === code.index) found.push(n); });
    var kept = found.length === 1 ? copies[found[0]] : null;
    var shows = kept ? [kept.faces, kept.value] : null;
    if (JSON.stringify(shows) === JSON.stringify([record.dice, record.total])) return "";
    return text("entry #{seq}: its {name} is {value}, its dice {dice} give {should}",
                { seq: parent.seq, name: "detail.text_rolls." + (found.length ? found[0] : code.index),
                  value: JSON.stringify(shows), dice: record.dice.join(","), should: JSON.stringify([record.dice, record.total]) });
  }

  function word(code) {
    if (code === null || code === undefined) return text("no outcome");
    return window.campaignWord ? window.campaignWord("outcome", code) : code;
  }

  // rows and textRolls: the tables' numbers this file carries (the tests hold them to the seeds)
  window.fairRecompute = { follows: follows, judge: judge, rows: ROWS, textRolls: TEXT_ROLLS };
})();

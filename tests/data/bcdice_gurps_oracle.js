// Writes tests/data/bcdice_gurps_oracle.json: what BCDice's GURPS game system answers
// for 2,500+ commands with fixed dice. Run by hand, never by CI (the project does not
// depend on node or on BCDice; tests/unit/test_bcdice_parity.py reads the JSON):
//
//   mkdir -p /tmp/bcd && cd /tmp/bcd && npm init -y && npm install bcdice
//   node /path/to/tests/data/bcdice_gurps_oracle.js > /path/to/tests/data/bcdice_gurps_oracle.json
//
// Dice are fed by replacing the game system's randomizer's `$random(sides)` (BCDice's
// own test suite stubs the same method), so every case states its faces. The cases are
// drawn from a fixed-seed generator: running it again writes the same file.
//
// Stored per case: the command, the faces, and
//   success rolls: BCDice's result text (exactly, for the BCDice-API work), its flags,
//                  the total and the margin it prints;
//   tables:        the number BCDice shows (3d6 + n) and which entry it read, as a number
//                  (HIT and FEAR: the lowest roll giving the same entry; REACT: the band,
//                  0 = the lowest). No table text is stored.
//   refused:       `"refused": true` when BCDice answers nothing (FEAR-1).
'use strict';
const { DynamicLoader, Version } = require(require.resolve('bcdice', { paths: [process.cwd()] }));

function mulberry32(seed) {
  return function () {
    seed |= 0; seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(26);
const between = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
const threeDice = () => [between(1, 6), between(1, 6), between(1, 6)];
const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `${n}` : '');

function evaluate(GS, command, faces) {
  const game = new GS(command);
  const queue = faces.slice();
  Object.assign(game.randomizer, {
    $random: () => {
      if (!queue.length) throw new Error(`${command}: more dice asked for than given`);
      return queue.shift();
    },
  });
  const result = game.eval();
  if (result && queue.length) throw new Error(`${command}: ${queue.length} faces unused`);
  return result;
}

const SUCCESS_TEXT = /＞ (-?\d+) ＞ (クリティカル|ファンブル|自動失敗|成功|失敗)\((?:成功度|失敗度)：(-?\d+)\)$/;
const TABLE_TEXT = /^[^(]+\((-?\d+)\) ＞ (.*)$/s;

async function main() {
  const GS = await new DynamicLoader().dynamicLoad('GURPS');
  // Entry bands, learnt from BCDice's own answers (text -> lowest number giving it).
  const fearBand = new Map();
  for (let k = 1; k <= 37; k++) {
    const text = TABLE_TEXT.exec(evaluate(GS, `FEAR+${k}`, [1, 1, 1]).text)[2];
    if (!fearBand.has(text)) fearBand.set(text, 3 + k);
  }
  const hitBand = new Map();
  for (let sum = 3; sum <= 18; sum++) {
    const dice = [Math.min(6, sum - 2), 1, 1];
    dice[1] = Math.min(6, sum - dice[0] - 1); dice[2] = sum - dice[0] - dice[1];
    const text = TABLE_TEXT.exec(evaluate(GS, 'HIT', dice).text)[2];
    if (!hitBand.has(text)) hitBand.set(text, sum);
  }
  const reactBand = new Map();
  for (let k = -30; k <= 30; k++) {
    const text = TABLE_TEXT.exec(evaluate(GS, `REACT${signed(k)}`, [1, 1, 1]).text)[2];
    if (!reactBand.has(text)) reactBand.set(text, reactBand.size);
  }

  const cases = [];
  const success = (command, dice) => {
    const result = evaluate(GS, command, dice);
    const [, total, word, margin] = SUCCESS_TEXT.exec(result.text);
    const flags = ['success', 'failure', 'critical', 'fumble'].filter((flag) => result[flag]);
    cases.push({ kind: 'success', command, dice, text: result.text, flags, word, total: +total, margin: +margin });
  };
  const table = (kind, bands, command, dice) => {
    const result = evaluate(GS, command, dice);
    if (!result) { cases.push({ kind, command, dice, refused: true }); return; }
    const [, number, text] = TABLE_TEXT.exec(result.text);
    if (!bands.has(text)) throw new Error(`${command}: an entry not seen while learning the bands`);
    cases.push({ kind, command, dice, number: +number, entry: bands.get(text) });
  };
  const byRaw = (raw) => { // one fixed triple per 3d6 sum
    const first = Math.max(1, Math.min(6, raw - 2 - 5)); const rest = raw - first;
    const second = Math.max(1, Math.min(6, rest - 1)); return [first, second, rest - second];
  };

  for (let target = 0; target <= 22; target++) {           // every raw sum at every target
    for (let raw = 3; raw <= 18; raw++) success(`3D6<=${target}`, byRaw(raw));
  }
  for (let i = 0; i < 1000; i++) {                          // modified success rolls
    const modifier = between(-12, 12);
    success(`3D6${signed(modifier)}<=${between(0, 25)}`, threeDice());
  }
  for (let i = 0; i < 400; i++) {                           // BCDice's target-first form
    const target = between(1, 25);
    const written = i % 5 === 0 && target > 2 ? `${target - 2}+2` : `${target}`;
    const dice = i % 7 === 0 ? '3D' : '3D6';
    success(`${written}-${dice}${i % 3 === 0 ? '' : signed(between(-6, 6))}`, threeDice());
  }
  for (let a = 1; a <= 6; a++) for (let b = 1; b <= 6; b++) for (let c = 1; c <= 6; c++) {
    table('HIT', hitBand, 'HIT', [a, b, c]);                 // every hit-location roll
  }
  for (let i = 0; i < 300; i++) {                           // reactions
    const n = between(-12, 12);
    const command = n === 0 ? 'REACT' : (n > 0 && i % 4 === 0 ? `REACT${n}` : `REACT${signed(n)}`);
    table('REACT', reactBand, command, threeDice());
  }
  for (let i = 0; i < 300; i++) {                           // the fright table
    const n = i % 25 === 1 ? 0 : i % 15 === 0 ? -between(1, 5) : between(0, 30);  // some raw 3s at +0
    const command = n === 0 ? 'FEAR' : (n > 0 && i % 4 === 0 ? `FEAR${n}` : `FEAR${n > 0 ? '+' : ''}${n}`);
    table('FEAR', fearBand, command, i % 25 === 1 ? [1, 1, 1] : threeDice());
  }
  const lines = cases.map((c) => '  ' + JSON.stringify(c));
  const npm = require(require.resolve('bcdice/package.json', { paths: [process.cwd()] })).version;
  process.stdout.write(`{"bcdice_npm": ${JSON.stringify(npm)}, "bcdice": ${JSON.stringify(Version)}, ` +
    `"game_system": "GURPS", "cases": [\n${lines.join(',\n')}\n]}\n`);
}

main().catch((error) => { console.error(error); process.exit(1); });

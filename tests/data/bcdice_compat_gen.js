/*
 * Generates the BCDice compatibility cases (tests/data/bcdice_compat_cases.json, and with
 * another seed the held-out set): what BCDice 3.x (the npm `bcdice` package) answers
 * for commands of every kind the endpoint takes, with the dice it asked for. Run by
 * hand, outside the project (the package is no dependency of campaign):
 *
 *   mkdir -p /tmp/bcdice-oracle && cd /tmp/bcdice-oracle && npm install bcdice@4.9.0
 *   node /path/to/tests/data/bcdice_compat_gen.js SEED COUNT > cases.json
 *
 * Table commands keep only BCDice's frame (`クリティカル表(13) ＞ `): the entries' texts
 * are BCDice's and stay out of the project. tests/unit/test_bcdice_compat.py replays
 * every case through the endpoint with the same faces; docs/bcdice-compat.md lists the
 * differences that remain (python -m tests.bcdice_compat writes its table).
 */
'use strict';
const bcdice = require(require.resolve('bcdice', { paths: [process.cwd()] }));

const seed = Number(process.argv[2] || 20261204);
const count = Number(process.argv[3] || 1200);
let state = seed;
function random() { // mulberry32
  state = (state + 0x6D2B79F5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (list) => list[Math.floor(random() * list.length)];
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
const signed = (n) => (n >= 0 ? `+${n}` : `${n}`);

const SHAPES = [
  'D6', '1D6', '2D6', '3D6', '2D6+3', '1D6+2', '2D6-1', '(1D6*3)', '1D6*3', '2D6/2', '2D6/2+1',
  '1D6+1D6', '2D6-(1D6)', '-1D6+5', '3D6KH2', '4D6KL3+1', '1D100', '1D100<=50', '2D6>=8',
  '2D6+3>=10', '1D20', 'D66', '3B6', '3B6>=4', '2B10<=5', '3D6!=10', '3D6<>10', '2D6=7',
  '3D10<=12', '1D6+2D6<=12', '(3D6)<=12', '3D6*2<=24', '1D6*1D6', '(2D6+1)*2', '2D6<7', '2D6>7',
  '1D8+1D4', 'd6', '2d6+1', '1D100<=87', '3D6KH3<=12',
];
const TABLES = ['CRT', 'FMB', 'HCRT', 'MFMB', 'YSCRT', 'YSFMB', 'YFMB', 'FEAR', 'HIT', 'REACT'];

function successCommand() {
  const t = int(3, 20);
  const m = int(-4, 4);
  switch (int(0, 11)) {
    case 0: return `3D6<=${t}`;
    case 1: return `3d6${m ? signed(m) : ''}<=${t}`;
    case 2: return `${t}-3D6`;
    case 3: return `${t}-3D`;
    case 4: return `${t}${signed(int(1, 3))}-3D6`;
    case 5: return `${t + 2}-${int(1, 3)}-3D6`;
    case 6: return `${t}-3D6${signed(m || 1)}`;
    case 7: return `3D6<=(${t - 2}+2)`;
    case 8: return `3D6<=${t - 1}+1`;
    case 9: return `S3D6<=${t}`;
    case 10: return `3D6=<${t}`;
    default: return `3D6<=${t} ${pick(['回避', 'dodge', '受け 盾'])}`;
  }
}

function command() {
  const r = random();
  if (r < 0.4) return ['GURPS', successCommand()];
  if (r < 0.65) return [pick(['GURPS', 'DiceBot']), pick(SHAPES)];
  if (r < 0.8) {
    let c = pick(TABLES);
    if (c === 'FEAR' && random() < 0.6) c += `+${int(1, 20)}`;
    if (c === 'REACT' && random() < 0.5) c += pick(['+1', '+3', '-2']);
    return ['GURPS', c];
  }
  if (r < 0.93) {
    const inner = random() < 0.5 ? successCommand().split(' ')[0].replace(/^S/, '') : pick(['2D6', '1D6', 'D6', '2D6+1', 'CRT', '3D6']);
    return ['GURPS', `${pick(['x', 'X', 'rep', 'repeat'])}${int(1, 4)} ${inner}`];
  }
  return ['GURPS', pick(['FEAR-1', 'FEAR-3', 'GFMB', 'SCRT', 'SMFMB', 'x0 2D6', 'x101 2D6', '3 3D6<=12', 'Sx2 2D6'])];
}

function face(sides) {
  if (sides === 6 && random() < 0.3) return pick([1, 6]); // the edges where criticals live
  return int(1, sides);
}

async function main() {
  const loader = new bcdice.DynamicLoader();
  const systems = { GURPS: await loader.dynamicLoad('GURPS'), DiceBot: await loader.dynamicLoad('DiceBot') };
  const cases = [];
  for (let i = 0; i < count; i++) {
    const [system, text] = command();
    const game = new systems[system](text);
    const used = [];
    Object.assign(game.randomizer, {
      $random: (sides) => { const f = face(Number(sides)); used.push([f, Number(sides)]); return f; },
    });
    const result = game.eval();
    const row = { system, command: text, rands: used };
    if (result === null || result === undefined) {
      row.answer = null;
    } else {
      Object.assign(row, { secret: result.secret, success: result.success, failure: result.failure,
        critical: result.critical, fumble: result.fumble });
      // tables: the frame of each result only (BCDice's entry texts stay out)
      const tableFrame = /^(\S*?表)\((-?\d+)\) ＞ /;
      const blocks = result.text.split('\n\n');
      const frames = blocks.map((b) => b.replace(/^#\d+\n/, '')).map((b) => tableFrame.exec(b));
      if (frames.every((f) => f)) row.frames = frames.map((f) => f[0]);
      else row.text = result.text;
      if (row.frames) row.repeat = /^#1\n/.test(result.text);
    }
    cases.push(row);
  }
  const head = { about: 'BCDice answers for fixed dice; tests/data/bcdice_compat_gen.js', seed,
    bcdice: bcdice.Version, package: '4.9.0' };
  process.stdout.write(JSON.stringify(head).replace(/}$/, ', "cases": [\n') +
    cases.map((c) => JSON.stringify(c)).join(',\n') + '\n]}\n');
}
main().catch((e) => { console.error(e); process.exit(1); });

"""Worker processes for the load and crash tests (run as a script, not imported by pytest).

python worker.py load URL CAMPAIGN INDEX COUNT SEED GO_FILE CLI_EVERY CLI_OPS
    COUNT mixed commands (rolls, fright checks, trait add/rename/remove) as actor
    w<INDEX>, one JSON line per command on stdout; every CLI_EVERY-th command goes
    through the real `campaign` executable (CLI_OPS: comma list of the commands the
    CLI has, e.g. roll,fright,trait). Any error goes to stderr and makes exit 1.

python worker.py serve
    A pre-loaded parent that forks fright-check writers on request, so the crash
    test can kill 50+ writers without paying Python start-up 50 times. Reads JSON
    commands on stdin ({"cmd": "spawn", ...} / {"cmd": "reap", "pid": N}), answers
    one JSON line each. A writer loops fright checks forever, appending each committed
    seq to its log file; it only ever ends by a signal.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import traceback
from pathlib import Path

from campaign.core.dice_source import SeededDice
from campaign.db.database import Database
from campaign.services.characters import traits
from campaign.services.checks import fright, rolls
from campaign.services.results import as_json

EXPRESSIONS = ("3D6<=11", "2D6+3", "1D100", "4D6KH3", "3D6", "3D6<=14 回避")
CAMPAIGN_BIN = str(Path(sys.executable).with_name("campaign"))


class Load:
    def __init__(self, url: str, campaign: str, index: int, seed: int, cli_ops: list[str]) -> None:
        self.url, self.campaign, self.index = url, campaign, index
        self.actor = f"w{index}"
        self.own = f"W{index}"
        self.rng = random.Random(seed * 1000 + index)
        self.cli_ops = cli_ops
        self.my_traits: list[str] = []
        self.made = 0
        self.db = Database(url)

    def seed(self) -> int:
        return self.rng.randrange(2**31)

    def pick_op(self, via_cli: bool) -> str:
        choices = self.cli_ops if via_cli else ["roll", "fright", "trait"]
        r = self.rng.random()
        if "fright" in choices and "trait" in choices:
            return "roll" if r < 0.35 else "fright" if r < 0.7 else "trait"
        if "fright" in choices:
            return "roll" if r < 0.5 else "fright"
        return "roll"

    def trait_action(self) -> tuple[str, list[str]]:
        """(action, args): add, rename or remove one of this worker's own traits."""
        r = self.rng.random()
        if not self.my_traits or r < 0.5:
            self.made += 1
            name = f"t{self.index}-{self.made}"
            return "add", [name, str(self.rng.choice([-15, -10, -5, -1, 5, 10]))]
        old = self.rng.choice(self.my_traits)
        if r < 0.8:
            self.made += 1
            return "rename", [old, f"t{self.index}-{self.made}"]
        return "remove", [old]

    def after_trait(self, action: str, args: list[str]) -> None:
        if action == "add":
            self.my_traits.append(args[0])
        elif action == "rename":
            self.my_traits[self.my_traits.index(args[0])] = args[1]
        else:
            self.my_traits.remove(args[0])

    def step(self, via_cli: bool) -> dict:
        op = self.pick_op(via_cli)
        character = self.own if self.rng.random() < 0.7 else "共有"
        if op == "roll":
            expression = self.rng.choice(EXPRESSIONS)
            seed = self.seed()
            if via_cli:
                out = self.cli("--seed", str(seed), "roll", expression, "--char", character)
            else:
                out = as_json(
                    rolls.roll(self.db, self.campaign, self.actor, expression, SeededDice(seed), character=character)
                )
            return {"op": "roll", "seq": out["seq"], "subs": 0}
        if op == "fright":
            modifier, seed = self.rng.randint(-6, 2), self.seed()
            if via_cli:
                out = self.cli("--seed", str(seed), "fright", character, "--mod", str(modifier))
            else:
                out = as_json(
                    fright.fright_check(
                        self.db, self.campaign, self.actor, character, SeededDice(seed), modifier=modifier
                    )
                )  # the document the CLI path parses
            return {"op": "fright", "seq": out["seq"], "subs": len(out["sub_rolls"])}
        action, args = self.trait_action()
        if via_cli:
            argv = ["trait", action, self.own, args[0]]
            if action == "add":
                argv += ["--cp", args[1]]
            elif action == "rename":
                argv += [args[1]]
            else:
                argv += ["--reason", "bought off"]
            out = self.cli(*argv)
        elif action == "add":
            out = as_json(traits.add_trait(self.db, self.campaign, self.actor, self.own, args[0], int(args[1])))
        elif action == "rename":
            out = as_json(traits.rename_trait(self.db, self.campaign, self.actor, self.own, args[0], args[1]))
        else:
            out = as_json(
                traits.remove_trait(self.db, self.campaign, self.actor, self.own, args[0], reason="bought off")
            )
        self.after_trait(action, args)
        return {"op": "trait", "action": action, "seq": out["seq"], "subs": 0}

    def cli(self, *args: str) -> dict:
        command = [CAMPAIGN_BIN, "--db", self.url, "--campaign", self.campaign, "--as", self.actor]
        global_opts = []
        rest = list(args)
        if rest[:1] == ["--seed"]:
            global_opts, rest = rest[:2], rest[2:]
        done = subprocess.run(command + global_opts + rest + ["--json"], capture_output=True, text=True, timeout=300)
        if done.returncode != 0 or done.stderr:
            raise RuntimeError(f"campaign {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
        return json.loads(done.stdout)


def run_load(url, campaign, index, count, seed, go_file, cli_every, cli_ops) -> int:
    worker = Load(url, campaign, int(index), int(seed), [op for op in cli_ops.split(",") if op])
    Path(go_file + f".ready{index}").touch()
    while not os.path.exists(go_file):
        time.sleep(0.01)
    failed = False
    for i in range(int(count)):
        via_cli = int(cli_every) > 0 and i % int(cli_every) == int(cli_every) - 1
        try:
            result = worker.step(via_cli)
        except Exception:
            failed = True
            sys.stderr.write(f"w{index} command {i}:\n{traceback.format_exc()}\n")
            continue
        sys.stdout.write(json.dumps({"i": i, "via": "cli" if via_cli else "service", **result}) + "\n")
    sys.stdout.flush()
    return 1 if failed else 0


# --------------------------------------------------------------------------- crash writers


def writer_loop(spec: dict) -> None:
    """Fright checks forever; each committed seq is appended to the log (one write)."""
    log = os.open(spec["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    db = Database(spec["url"])
    os.write(log, b"open\n")
    rng = random.Random(spec["seed"])
    while True:
        character = rng.choice(spec["characters"])
        out = fright.fright_check(
            db,
            spec["campaign"],
            spec["actor"],
            character,
            SeededDice(rng.randrange(2**31)),
            modifier=rng.randint(-8, 0),
        )
        os.write(log, f"{out.seq}\n".encode())


def _warm_up() -> None:
    """One fright check on a scratch database before forking: every module and seed
    table a check loads lazily is then in the parent, so each writer's time before its
    kill goes to writing, not to imports (which would leave nothing to kill mid-write)."""
    import tempfile

    from campaign.services.campaigns import setup as campaigns
    from campaign.services.characters import roster as characters

    with tempfile.TemporaryDirectory() as scratch:
        db = Database(str(Path(scratch) / "warm.db"))
        campaigns.create_campaign(db, "warm", "gurps3-ja", "GM")
        characters.add_player(db, "warm", "P", "GM")
        characters.add_character(
            db, "warm", "C", "GM", player="P", stats={"Will": 10, "IQ": 10, "HT": 10, "FP": 10, "HP": 10}
        )
        for seed in range(3):
            fright.fright_check(db, "warm", "GM", "C", SeededDice(seed), modifier=-8)
        db.close()


def serve() -> int:
    _warm_up()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "spawn":
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    writer_loop(request)
                except BaseException:
                    traceback.print_exc(file=sys.stderr)
                    code = 3
                finally:
                    os._exit(code)
            print(json.dumps({"pid": pid}), flush=True)
        elif request["cmd"] == "reap":
            _, status = os.waitpid(request["pid"], 0)
            print(
                json.dumps(
                    {
                        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                        "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                    }
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    mode, *args = sys.argv[1:]
    sys.exit(run_load(*args) if mode == "load" else serve())

"""The words the page's scripts show (static/verify.js, fair_check.js, recompute.js,
receipts.js, table.js, gm.js, invites.js), from the
server's catalog: base.html renders them into a JSON block that static/messages.js reads.

A script writes its message in English, as the msgid listed here, with `{name}`
placeholders (`text("entry #{seq} does not match", {seq: 7})`); the page carries each
message in its own language, so there is one catalog for the server and the browser.
tests/web/test_script_messages.py checks that every message a script uses is listed.
"""

from __future__ import annotations

from campaign import labels
from campaign.i18n import N_, _

MESSAGES = (
    # verify.js: the in-browser chain check against the player's seal
    N_("the server answered {status}"),
    N_("cannot reach the server"),
    N_("enter the seal head you kept (64 hex digits, or the first {digits} or more)"),
    N_("entry #{seq} is missing or out of order"),
    N_("entry #{seq} is malformed"),
    N_("entry #1 does not start from the genesis hash"),
    N_("entry #{seq} does not link to entry #{previous}"),
    N_("entry #{seq} does not match"),
    N_("entry #{seq} is not JSON"),
    N_("entry #{seq} names another seq or campaign"),
    N_("the server's answer is malformed"),
    N_("the server switched chains midway"),
    N_("the genesis hash is wrong"),
    N_("entries from #{seq} on did not arrive"),
    N_("fair dice: {problem}"),
    N_("head {head} matches seals #{first} and #{second}; give more digits"),
    N_("this chain does not contain your seal: the history was rewritten after it, or the hash is mistyped"),
    N_(
        "warning: the seal you verified last time in this browser (#{seq}, {hash}…) is not in this chain: "
        "the history was rewritten after it"
    ),
    N_("checking… {count} entries"),
    N_(
        "verified: your seal #{seq} ({about}) is in this chain; {since} entries since "
        "({count} entries checked, {engine})"
    ),
    N_("entry #{seq} on this page comes after your seal, which does not cover it yet"),
    N_("provably fair dice: {checked} entries recomputed from their revealed seeds ({pending} wait for their seed)"),
    N_("verification failed: {reason}"),
    N_("verification stopped on an error: {error}"),
    N_("no SHA-256 available (sha256.js did not load)"),
    # fair_check.js: the provably fair dice recomputed in the browser
    N_("seed commitment #{seq} holds no SHA-256 hex digest"),
    N_("seed reveal #{seq} names #{target}, which is no earlier seed commitment"),
    N_("seed commitment #{target} is revealed twice"),
    N_("seed reveal #{seq} does not match commitment #{target}: the seed was swapped"),
    N_("entry #{seq} derives its dice from #{commit}, which is no earlier seed commitment"),
    N_("entry #{seq}: its fair-dice inputs are malformed"),
    N_("entry #{seq} derives its dice from seed #{commit}, revealed before it"),
    N_("entry #{seq}: its dice start at index {start}, expected {expected}"),
    N_("entry #{seq}: its dice {dice} are not the derived draws {faces}"),
    N_("entry #{seq}: die {number} (d{sides}) shows {shown}, the seed gives {should}: the die was changed"),
    N_("seal #{seq} ({hash}…)"),
    N_("seed commitment #{seq} ({hash}…)"),
    N_("warning: {names}, shown to this browser before, is not in this chain: the history was rewritten"),
    N_("fair dice rejected: {problem}"),
    N_("provably fair: {checked} entries recomputed in this browser, {pending} wait for their seed"),
    N_("cannot check the fair dice: {error}"),
    # recompute.js: totals and outcomes recomputed from the dice
    N_("entry #{seq}: {count} dice {dice} for {expression}"),
    N_("entry #{seq}: its dice {dice} make {should}, not the recorded total {total}"),
    N_("entry #{seq}: its target {target} is not the expression's {should}"),
    N_("entry #{seq}: its dice {dice} make {should}, not the recorded {outcome}"),
    N_("entry #{seq}: its margin {margin} is not {should}"),
    N_("entry #{seq}: its {name} is {value}, its dice {dice} give {should}"),
    N_("entry #{seq}: the table {table} has no row {row}"),
    N_("no outcome"),
    # receipts.js: this device's receipts of its fair rolls
    N_(
        "warning: the server recorded your roll {seqs} with another share than your device sent: "
        "the server may have chosen these dice"
    ),
    N_("the server's answer to your roll ({key}) did not echo the share your device sent"),
    N_("the server answered your roll ({key}) with share {theirs}, not yours ({mine})"),
    N_("entry #{seq}, which answered your roll, is not in the chain"),
    N_("entry #{seq} carries share {theirs}, not the one your device sent ({mine}): the server replaced your share"),
    N_("entry #{seq} holds dice {dice}, but the server showed you {shown}"),
    N_("no entry of the chain carries the share of your roll ({key})"),
    N_("entry #{seq} derives its dice from seq {base}, not from its request's #{first}: the server chose the input"),
    N_(
        "your receipts hold: {receipts} rolls, {derived} entries recomputed from their seed, {pending} wait "
        "for the reveal, {abandoned} unprovable (seed abandoned)"
    ),
    N_("your receipts do not hold: {count} problems"),
    N_("entries in your name that no receipt of this device covers (rolled elsewhere, or not by you): {seqs}"),
    N_("cannot check your receipts: {error}"),
    N_("Your receipts"),
    N_("Check my rolls"),
    N_("Download my receipts"),
    # table.js: the player's and the GM's table page
    N_("unreadable answer"),
    N_("(secret)"),
    N_("(provably fair)"),
    N_("Conditions: {conditions}"),
    N_("Skills: {skills}"),
    N_("Palette ({count})"),
    N_("Call a fright check"),
    N_("Roll for them"),
    N_("Roll"),
    N_("Cancel"),
    N_("void of #{seq}"),
    N_("Approve"),
    N_("Refuse"),
    N_("Reason for refusing"),
    N_("Record"),
    N_("Record: on the entry page"),
    N_("Ask to void"),
    N_("Reason for the void"),
    N_("No calls"),
    N_("No requests"),
    N_("(none)"),
    N_("reunion {chance}"),
    N_("searching: {names}"),
    N_("Nobody"),
    N_("live"),
    N_("disconnected: reconnecting…"),
    N_("called #{call}: {prompt}"),
    N_("{name} ({player})"),
    N_("“{text}”"),
    N_("rolled by {player} on behalf of {actor}"),
    N_("(target {target})"),
    N_("asked the GM to void #{seq}: “{reason}” (request #{request})"),
    # table.js: what each button acts on, and the polite announcements
    N_("{label}, for {name}"),
    N_("Roll call #{call}: {prompt}"),
    N_("Roll call #{call} for {character}"),
    N_("Cancel call #{call}"),
    N_("Approve the void of #{seq}"),
    N_("Refuse the void of #{seq}"),
    N_("Ask to void #{seq}"),
    N_("Record of #{seq}"),
    N_("New call: {prompt}"),
    N_("New entry: {line}"),
    # gm.js: the GM's evening tools
    N_("done: ledger #{seq}"),
    N_("done"),
    N_("working…"),
    # invites.js: invites and device links from the page
    N_("QR code of the link for {player}"),
    N_("No seats"),
    N_("{player} (GM)"),
    N_("{sessions} signed in, {pending} open invites"),
    N_("Revoke {player}"),
    N_("End every session and invite of {player}?"),
    N_("Invite for {player}, good once until {expires}: send this link"),
    N_("Open this on your other device before {expires}; it works once"),
)


def script_messages() -> dict[str, object]:
    """{"messages": msgid -> words, "outcome": code -> word, "status": code -> word} in
    the language of this request; a separator for lists, as the language writes one."""
    from campaign.i18n import pick

    return {
        "messages": {message: _(message) for message in MESSAGES},
        "outcome": {code: labels.outcome_label(None, code) for code in labels.OUTCOME_WORDS},
        "status": {code: labels.status_label(code) for code in ("active", "missing", "dead", "retired")},
        "list": pick("、", ", "),
    }

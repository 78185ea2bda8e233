/*
 * Chain verification in the player's own browser (docs/web.md).
 *
 * Why: a player should not have to take the server's word that the ledger is intact.
 * This script fetches the exact canonical record texts the server hashed
 * (GET /api/chain), recomputes every SHA-256 link here from the genesis on, and looks
 * for the seal head the player typed or pasted (the hash they wrote down when the GM
 * sealed the session) among the entries it hashed itself. The server is never asked
 * which seals exist: a server that rewrote history would offer its own. It mirrors
 * campaign/proofcheck.py, the standalone Python checker:
 *
 *   hash(entry) = SHA-256 hex over UTF-8 of (prev_hash + record)
 *
 * The browser remembers the last seal it verified for each chain (localStorage) and
 * warns when a later chain no longer contains it, even if the head typed now is found.
 *
 * Fair dice (docs/fair-dice.md): with static/fair_check.js loaded, every seed reveal is
 * checked against its commitment and every provably fair die recomputed from the
 * revealed seed and the player's share; a die or seed that does not match fails the
 * verification (code "unfair") even when the whole chain was re-hashed. Every seed
 * commitment and seal head checked here is kept too, and a later chain lacking one is
 * warned of ("shown-missing").
 *
 * Hash engine: WebCrypto (crypto.subtle) exists only in secure contexts (https or
 * localhost). A phone opening http://192.168.x.y on the table's LAN has none, so the
 * vendored js-sha256 (static/sha256.js, loaded before this file) is used there.
 *
 * Safety: no inline script (CSP script-src 'self'); every text goes in via textContent.
 */
(function () {
  "use strict";

  var GENESIS = "0000000000000000000000000000000000000000000000000000000000000000";
  var MIN_PREFIX = 16;  // as `history verify --head`: 2^64 hashes to grind for a look-alike
  var HEX = /^[0-9a-f]+$/;

  /** The page's words for a message (static/messages.js, from the server's catalog). */
  function text(message, values) { return window.campaignText(message, values); }

  /** A verification failure: `seq` names the entry when there is one, `code` what kind. */
  function Failure(message, seq, code) {
    this.message = message;
    this.seq = seq === undefined ? null : seq;
    this.code = code || "broken";
  }

  function isHash(value) {
    return typeof value === "string" && value.length === 64 && HEX.test(value);
  }

  function toHex(buffer) {
    var bytes = new Uint8Array(buffer);
    var out = "";
    for (var i = 0; i < bytes.length; i++) {
      out += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
    }
    return out;
  }

  /** The hash engine for this page: {name, digest(text) -> Promise<hex>}. */
  function pickEngine() {
    if (window.isSecureContext && window.crypto && window.crypto.subtle) {
      var encoder = new TextEncoder();
      return {
        name: "WebCrypto",
        digest: function (text) {
          return window.crypto.subtle.digest("SHA-256", encoder.encode(text)).then(toHex);
        }
      };
    }
    if (typeof window.sha256 === "function") {
      // js-sha256 encodes a string argument as UTF-8 before hashing, as the ledger does.
      return {
        name: "sha256.js",
        digest: function (text) {
          return Promise.resolve(window.sha256(text));
        }
      };
    }
    return null;
  }

  function fetchJson(url) {
    return fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) {
        if (!response.ok) {
          throw new Failure(text("the server answered {status}", { status: response.status }));
        }
        return response.json();
      }, function () {
        throw new Failure(text("cannot reach the server"));
      });
  }

  function withQuery(base, params) {
    var url = new URL(base, window.location.href);
    Object.keys(params).forEach(function (key) { url.searchParams.set(key, String(params[key])); });
    return url.toString();
  }

  /** The head as the player typed or pasted it: 64 hex digits, or the first 16 or more. */
  function parseHead(typed) {
    var head = typed.trim().toLowerCase();
    if (head.length < MIN_PREFIX || head.length > 64 || !HEX.test(head)) {
      throw new Failure(text("enter the seal head you kept (64 hex digits, or the first {digits} or more)",
                             { digits: MIN_PREFIX }), null, "malformed");
    }
    return head;
  }

  /** The player's last verified seal for this chain ({seq, hash}), kept in this browser. */
  function storageKey(campaign) { return "campaign-verified-seal:" + campaign; }

  function loadKept(campaign) {
    try {
      var kept = JSON.parse(window.localStorage.getItem(storageKey(campaign)) || "null");
      return kept && typeof kept.seq === "number" && isHash(kept.hash) ? kept : null;
    } catch (err) {
      return null;  // storage off or unreadable: nothing remembered
    }
  }

  function saveKept(campaign, seal) {
    try {
      window.localStorage.setItem(storageKey(campaign), JSON.stringify({ seq: seal.seq, hash: seal.hash }));
    } catch (err) { /* storage off: nothing remembered */ }
  }

  /**
   * Check one page of entries against the running state; hashes of a page are
   * computed in parallel (each over its served prev_hash), and the link check below
   * makes that equal to hashing over the previously computed hash.
   */
  function checkPage(engine, state, entries) {
    var digests = entries.map(function (entry) {
      if (!entry || typeof entry.record !== "string" || !isHash(entry.prev_hash) || !isHash(entry.hash)) {
        return Promise.resolve(null);
      }
      return engine.digest(entry.prev_hash + entry.record);
    });
    return Promise.all(digests).then(function (computed) {
      for (var i = 0; i < entries.length; i++) {
        var entry = entries[i];
        var seq = state.next;
        if (!entry || entry.seq !== seq) {
          throw new Failure(text("entry #{seq} is missing or out of order", { seq: seq }), seq);
        }
        if (computed[i] === null) {
          throw new Failure(text("entry #{seq} is malformed", { seq: seq }), seq);
        }
        if (state.prev === null) {
          // The first entry's prev_hash is the anchor we start from; from #1 it must be the genesis.
          if (seq === 1 && entry.prev_hash !== GENESIS) {
            throw new Failure(text("entry #1 does not start from the genesis hash"), seq);
          }
        } else if (entry.prev_hash !== state.prev) {
          throw new Failure(text("entry #{seq} does not link to entry #{previous}", { seq: seq, previous: seq - 1 }),
                            seq);
        }
        if (computed[i] !== entry.hash) {
          throw new Failure(text("entry #{seq} does not match", { seq: seq }), seq);
        }
        var record;
        try {
          record = JSON.parse(entry.record);
        } catch (err) {
          throw new Failure(text("entry #{seq} is not JSON", { seq: seq }), seq);
        }
        if (!record || record.seq !== seq || record.campaign !== state.campaign) {
          throw new Failure(text("entry #{seq} names another seq or campaign", { seq: seq }), seq);
        }
        if (record.kind === "seal" && entry.hash.indexOf(state.head) === 0) {
          state.matches.push({ seq: seq, hash: entry.hash, reason: record.reason || null, at: record.at || "" });
        }
        if (state.kept && state.kept.seq === seq) { state.keptFound = entry.hash === state.kept.hash; }
        if (record.kind === "seed_commit" || record.kind === "seed_reveal" || (record.detail && record.detail.fair)) {
          state.fairRecords.push(record);
        }
        if (record.kind === "seal" || record.kind === "seed_commit") { state.shown.push({ hash: entry.hash, parsed: record }); }
        state.prev = computed[i];
        state.next = seq + 1;
        state.count += 1;
      }
    });
  }

  /**
   * Walk the whole chain from the genesis, page by page, and find the player's seal in
   * it: the head is never looked up on the server's word (no list of seals is asked for),
   * only among the entries whose hashes this browser computed itself.
   */
  function run(panel, engine, report) {
    var chainUrl = panel.getAttribute("data-chain-url") || campaignUrl("/api/chain");
    var shown = parseInt(panel.getAttribute("data-from-seq") || "1", 10);
    var state = { next: 1, prev: null, count: 0, campaign: null, head: null, matches: [],
                  kept: null, keptFound: null, fairRecords: [], shown: [] };
    try {
      state.head = parseHead(panel.querySelector("#verify-head").value);
    } catch (failure) {
      return Promise.reject(failure);
    }
    function page() {
      report.progress(state.count);
      return fetchJson(withQuery(chainUrl, { from: state.next })).then(function (data) {
        if (!data || !Array.isArray(data.entries) || typeof data.campaign !== "string") {
          throw new Failure(text("the server's answer is malformed"));
        }
        if (state.campaign === null) {
          state.campaign = data.campaign;
          state.kept = loadKept(data.campaign);
        } else if (data.campaign !== state.campaign) {
          throw new Failure(text("the server switched chains midway"));
        }
        if (data.genesis !== GENESIS) {
          throw new Failure(text("the genesis hash is wrong"));
        }
        return checkPage(engine, state, data.entries).then(function () {
          if (data.next === null || data.next === undefined) { return; }
          if (data.entries.length === 0 || data.next !== state.next) {
            throw new Failure(text("entries from #{seq} on did not arrive", { seq: state.next }), state.next);
          }
          return page();
        });
      });
    }
    return page().then(function () {
      var last = state.next - 1;
      var keptLost = state.kept !== null && state.keptFound !== true;
      var fair = null, shownLost = [];
      if (window.fairCheck) {
        fair = window.fairCheck.checkRecords(state.fairRecords);
        if (!fair.ok) {
          var unfair = new Failure(text("fair dice: {problem}", { problem: fair.problem }), fair.seq, "unfair");
          unfair.keptLost = keptLost ? state.kept : null;
          throw unfair;
        }
        shownLost = window.fairCheck.compareShown(state.campaign, window.fairCheck.shownOf(state.shown));
      }
      if (state.matches.length > 1) {
        throw new Failure(text("head {head} matches seals #{first} and #{second}; give more digits",
                               { head: state.head, first: state.matches[0].seq, second: state.matches[1].seq }),
                          null, "ambiguous");
      }
      if (state.matches.length === 0) {
        var failure = new Failure(
          text("this chain does not contain your seal: the history was rewritten after it, or the hash is mistyped"),
          null, "not_contained");
        failure.keptLost = keptLost ? state.kept : null;
        throw failure;
      }
      var seal = state.matches[0];
      var result = { seal: seal, count: state.count, since: last - seal.seq, shown: shown,
                     keptLost: keptLost ? state.kept : null, fair: fair, shownLost: shownLost };
      if (!keptLost && (state.kept === null || state.kept.seq <= seal.seq)) { saveKept(state.campaign, seal); }
      return result;
    }, function (failure) {
      if (failure instanceof Failure && state.kept !== null && state.keptFound === false) {
        failure.keptLost = state.kept;
      }
      throw failure;
    });
  }

  /** A ledger time (UTC) as the page shows times: in the campaign's zone (else this
   *  browser's), named: "2026-11-30 03:52 Asia/Tokyo". */
  function localTime(at) {
    var moment = new Date(at);
    if (!at || isNaN(moment.getTime())) { return at || ""; }
    var zone = document.documentElement.getAttribute("data-time-zone") || undefined;
    try {
      var format = new Intl.DateTimeFormat("sv-SE", { timeZone: zone, year: "numeric", month: "2-digit",
                                                      day: "2-digit", hour: "2-digit", minute: "2-digit" });
      return format.format(moment) + " " + (zone || format.resolvedOptions().timeZone);
    } catch (err) {
      return at;
    }
  }

  function reporter(output) {
    function set(status, seq, message) {
      output.setAttribute("data-status", status);
      if (seq === null || seq === undefined) { output.removeAttribute("data-seq"); }
      else { output.setAttribute("data-seq", String(seq)); }
      output.textContent = "";
      line(message);
    }
    function line(message) {
      var block = document.createElement("span");
      block.className = "verify-line";
      block.textContent = message;
      output.appendChild(block);
    }
    function warnKept(kept) {
      output.setAttribute("data-warning", "kept-seal-missing");
      var short = kept.hash.slice(0, 16);
      line(text("warning: the seal you verified last time in this browser (#{seq}, {hash}…) is not in this chain: " +
                "the history was rewritten after it", { seq: kept.seq, hash: short }));
    }
    return {
      progress: function (done) {
        set("running", null, text("checking… {count} entries", { count: done }));
      },
      ok: function (result, engine) {
        var seal = result.seal;
        var about = (seal.reason ? seal.reason + ", " : "") + localTime(seal.at);
        output.setAttribute("data-engine", engine.name);
        output.setAttribute("data-count", String(result.count));
        output.setAttribute("data-since", String(result.since));
        output.setAttribute("data-code", "ok");
        set(result.keptLost || result.shownLost.length ? "warn" : "ok", seal.seq,
            text("verified: your seal #{seq} ({about}) is in this chain; {since} entries since " +
                 "({count} entries checked, {engine})",
                 { seq: seal.seq, about: about, since: result.since, count: result.count, engine: engine.name }));
        if (result.shown > seal.seq) {
          line(text("entry #{seq} on this page comes after your seal, which does not cover it yet",
                    { seq: result.shown }));
        }
        if (result.fair && result.fair.revealed + result.fair.pending > 0) {
          output.setAttribute("data-fair-checked", String(result.fair.checked));
          line(text("provably fair dice: {checked} entries recomputed from their revealed seeds " +
                    "({pending} wait for their seed)", { checked: result.fair.checked, pending: result.fair.pending }));
        }
        if (result.keptLost) { warnKept(result.keptLost); }
        if (result.shownLost.length) {
          if (!result.keptLost) { output.setAttribute("data-warning", "shown-missing"); }
          line(window.fairCheck.lostWords(result.shownLost));
        }
      },
      fail: function (failure, engine) {
        if (engine) { output.setAttribute("data-engine", engine.name); }
        if (failure instanceof Failure) {
          output.setAttribute("data-code", failure.code);
          set("fail", failure.seq, text("verification failed: {reason}", { reason: failure.message }));
          if (failure.keptLost) { warnKept(failure.keptLost); }
        } else {
          output.setAttribute("data-code", "error");
          set("fail", null, text("verification stopped on an error: {error}", { error: String(failure) }));
        }
      }
    };
  }

  function init() {
    var panel = document.getElementById("verify-panel");
    if (!panel) { return; }
    var button = panel.querySelector("#verify-run");
    var output = panel.querySelector("#verify-result");
    if (!button || !output) { return; }
    var report = reporter(output);
    var busy = false;
    button.addEventListener("click", function (event) {
      event.preventDefault();
      if (busy) { return; }
      var engine = pickEngine();
      if (!engine) {
        report.fail(new Failure(text("no SHA-256 available (sha256.js did not load)")), null);
        return;
      }
      busy = true;
      button.disabled = true;
      ["data-count", "data-since", "data-code", "data-warning", "data-fair-checked"].forEach(function (name) {
        output.removeAttribute(name);
      });
      run(panel, engine, report).then(function (result) {
        report.ok(result, engine);
      }, function (failure) {
        report.fail(failure, engine);
      }).then(function () {
        busy = false;
        button.disabled = false;
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();

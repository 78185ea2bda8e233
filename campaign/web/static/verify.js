/*
 * Chain verification in the player's own browser (issue 16).
 *
 * Why: a player should not have to take the server's word that the ledger is intact.
 * This script fetches the exact canonical record texts the server hashed
 * (GET /api/chain), recomputes every SHA-256 link here, and accepts the chain only if it
 * ends at the seal head the player pasted (the hash they wrote down when the GM sealed
 * the session). It mirrors campaign/proofcheck.py, the standalone Python checker:
 *
 *   hash(entry) = SHA-256 hex over UTF-8 of (prev_hash + record)
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
  var MIN_PREFIX = 8;
  var HEX = /^[0-9a-f]+$/;

  /** A verification failure: `seq` names the entry when there is one. */
  function Failure(ja, en, seq) {
    this.ja = ja;
    this.en = en;
    this.seq = seq === undefined ? null : seq;
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
          throw new Failure("サーバーが " + response.status + " を返しました",
                            "the server answered " + response.status);
        }
        return response.json();
      }, function () {
        throw new Failure("サーバーに接続できません", "cannot reach the server");
      });
  }

  function withQuery(base, params) {
    var url = new URL(base, window.location.href);
    Object.keys(params).forEach(function (key) { url.searchParams.set(key, String(params[key])); });
    return url.toString();
  }

  /** The seal a pasted head names: full 64 hex, or a unique prefix of 8+ hex digits. */
  function resolveSeal(sealsUrl, typed) {
    var head = typed.trim().toLowerCase();
    if (head.length < MIN_PREFIX || head.length > 64 || !HEX.test(head)) {
      return Promise.reject(new Failure(
        "封印ヘッド(16進 " + MIN_PREFIX + " 桁以上)を貼り付けてください",
        "paste a seal head (at least " + MIN_PREFIX + " hex digits)"));
    }
    return fetchJson(sealsUrl).then(function (data) {
      var seals = (data && Array.isArray(data.seals)) ? data.seals : [];
      var found = seals.filter(function (seal) {
        return isHash(seal.hash) && seal.hash.indexOf(head) === 0;
      });
      if (found.length > 1) {
        throw new Failure("ヘッド " + head + " は封印 #" + found[0].seq + " と #" + found[1].seq +
                          " の両方に一致します。もっと桁を入れてください",
                          "head " + head + " matches seals #" + found[0].seq + " and #" + found[1].seq +
                          "; give more digits");
      }
      if (found.length === 0) {
        throw new Failure("このヘッドはこのキャンペーンの封印ではありません(打ち間違い?)",
                          "this head is not a seal of this campaign (typo?)");
      }
      return { seq: found[0].seq, hash: found[0].hash, typed: head };
    });
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
          throw new Failure("#" + seq + " の記録が見つかりません(欠落または順序違い)",
                            "entry #" + seq + " is missing or out of order", seq);
        }
        if (computed[i] === null) {
          throw new Failure("#" + seq + " の記録の形式が正しくありません",
                            "entry #" + seq + " is malformed", seq);
        }
        if (state.prev === null) {
          // The first entry's prev_hash is the anchor we start from; from #1 it must be the genesis.
          if (seq === 1 && entry.prev_hash !== GENESIS) {
            throw new Failure("#1 が起点(ゼロのハッシュ)につながっていません",
                              "entry #1 does not start from the genesis hash", seq);
          }
        } else if (entry.prev_hash !== state.prev) {
          throw new Failure("#" + seq + " が #" + (seq - 1) + " につながっていません",
                            "entry #" + seq + " does not link to entry #" + (seq - 1), seq);
        }
        if (computed[i] !== entry.hash) {
          throw new Failure("#" + seq + " の記録が改変されています",
                            "entry #" + seq + " does not match", seq);
        }
        var record;
        try {
          record = JSON.parse(entry.record);
        } catch (err) {
          throw new Failure("#" + seq + " の記録が JSON ではありません", "entry #" + seq + " is not JSON", seq);
        }
        if (!record || record.seq !== seq || record.campaign !== state.campaign) {
          throw new Failure("#" + seq + " の記録の番号またはキャンペーンが違います",
                            "entry #" + seq + " names another seq or campaign", seq);
        }
        state.prev = computed[i];
        state.lastKind = record.kind;
        state.next = seq + 1;
        state.count += 1;
      }
    });
  }

  function run(panel, engine, report) {
    var chainUrl = panel.getAttribute("data-chain-url") || "/api/chain";
    var sealsUrl = panel.getAttribute("data-seals-url") || new URL("seals", new URL(chainUrl, window.location.href)).toString();
    var from = parseInt(panel.getAttribute("data-from-seq") || "1", 10);
    if (!(from >= 1)) { from = 1; }
    var typed = panel.querySelector("#verify-head").value;
    var state = { next: from, prev: null, count: 0, lastKind: null, campaign: null };

    return resolveSeal(sealsUrl, typed).then(function (seal) {
      if (seal.seq < from) {
        throw new Failure("この封印 (#" + seal.seq + ") はこの記録 (#" + from + ") より前です。後の封印のヘッドを貼ってください",
                          "seal #" + seal.seq + " comes before entry #" + from + "; paste a later seal's head");
      }
      var total = seal.seq - from + 1;
      function page() {
        report.progress(state.count, total);
        return fetchJson(withQuery(chainUrl, { from: state.next, to: seal.seq })).then(function (data) {
          if (!data || !Array.isArray(data.entries)) {
            throw new Failure("サーバーの応答が正しくありません", "the server's answer is malformed");
          }
          if (state.campaign === null) { state.campaign = data.campaign; }
          if (data.genesis !== undefined && data.genesis !== GENESIS) {
            throw new Failure("起点のハッシュが違います", "the genesis hash is wrong");
          }
          var entries = data.entries.filter(function (e) { return e && e.seq <= seal.seq; });
          return checkPage(engine, state, entries).then(function () {
            if (state.next > seal.seq) { return; }
            if (entries.length === 0 || data.next === null || data.next === undefined) {
              throw new Failure("鎖が #" + (state.next - 1) + " で途切れ、封印 #" + seal.seq + " に届きません",
                                "the chain stops at #" + (state.next - 1) + " before seal #" + seal.seq,
                                state.next);
            }
            return page();
          });
        });
      }
      return page().then(function () {
        if (state.lastKind !== "seal") {
          throw new Failure("#" + seal.seq + " は封印ではありません", "entry #" + seal.seq + " is not a seal", seal.seq);
        }
        if (state.prev !== seal.hash || state.prev.indexOf(seal.typed) !== 0) {
          throw new Failure("計算したハッシュが貼り付けたヘッドと一致しません",
                            "the computed head does not equal the head you pasted", seal.seq);
        }
        return { seal: seal, from: from, count: state.count };
      });
    });
  }

  function reporter(output) {
    function set(status, seq, ja, en) {
      output.setAttribute("data-status", status);
      if (seq === null || seq === undefined) { output.removeAttribute("data-seq"); }
      else { output.setAttribute("data-seq", String(seq)); }
      output.textContent = "";
      var first = document.createElement("span");
      first.lang = "ja";
      first.textContent = ja;
      var second = document.createElement("span");
      second.lang = "en";
      second.textContent = " / " + en;
      output.appendChild(first);
      output.appendChild(second);
    }
    return {
      progress: function (done, total) {
        set("running", null, "検証中… " + done + " / " + total + " 件", "checking " + done + " of " + total);
      },
      ok: function (result, engine) {
        var short = result.seal.hash.slice(0, 16);
        output.setAttribute("data-engine", engine.name);
        output.setAttribute("data-count", String(result.count));
        set("ok", result.seal.seq,
            "検証成功: #" + result.from + "〜#" + result.seal.seq + " の " + result.count +
            " 件が封印 " + short + "… までつながっています(" + engine.name + ")",
            "verified: " + result.count + " entries #" + result.from + "–#" + result.seal.seq +
            " chain to seal " + short + "… (" + engine.name + ")");
      },
      fail: function (failure, engine) {
        if (engine) { output.setAttribute("data-engine", engine.name); }
        if (failure instanceof Failure) {
          set("fail", failure.seq, "検証失敗: " + failure.ja, "verification failed: " + failure.en);
        } else {
          set("fail", null, "検証中にエラーが起きました", "verification stopped on an error: " + String(failure));
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
        report.fail(new Failure("SHA-256 が使えません(sha256.js が読み込まれていません)",
                                "no SHA-256 available (sha256.js did not load)"), null);
        return;
      }
      busy = true;
      button.disabled = true;
      output.removeAttribute("data-count");
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

// The GM page's evening tools: every form with data-gm-action posts its fields to
// POST /api/gm/<action> (campaign/web/gm_actions.py), the same service as the CLI command.
// A field's data-type says how it is sent: int, names ("鈴音, 刀矢"), pairs ("刀矢=鈴音"),
// bool (a checkbox); an empty field is left out. A select named _action picks the action.
// One tap, one write: the button is busy until the answer, and the request carries one
// idempotency key, so a retried request answers with the first one's entries.
(function () {
  "use strict";
  var csrf = null;
  var HOLD = 600;  // ms a tapped button stays locked at least: a double tap is one tap

  function text(message, values) { return window.campaignText(message, values); }

  function newKey() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  function session() {
    if (csrf) return Promise.resolve(csrf);
    return fetch(campaignUrl("/api/session"), { credentials: "same-origin" }).then(function (r) { return r.json(); })
      .then(function (s) { csrf = s.csrf; return csrf; });
  }

  function names(value) { return value.split(/[,、，\s]+/).filter(function (part) { return part; }); }

  function fields(form) {
    var body = {};
    Array.prototype.forEach.call(form.elements, function (input) {
      if (!input.name || input.name === "_action" || input.type === "submit") return;
      var type = input.dataset.type;
      if (type === "bool") { if (input.checked) body[input.name] = true; return; }
      var value = input.value.trim();
      if (value === "") return;
      if (type === "int") body[input.name] = /^[+-]?\d+$/.test(value) ? parseInt(value, 10) : value;
      else if (type === "names") body[input.name] = names(value);
      else if (type === "pairs") body[input.name] = names(value).map(function (pair) { return pair.split(/[=＝]/); });
      else if (type === "setting") { body.changes = {}; body.changes[form.elements.key.value] = value; }
      else if (input.name !== "key") body[input.name] = value;
    });
    return body;
  }

  function answered(result) {
    if (result.seq) return text("done: ledger #{seq}", { seq: result.seq });
    return text("done");
  }

  function submit(event) {
    event.preventDefault();
    var form = event.target;
    var button = form.querySelector("button[type=submit]");
    var out = form.querySelector("output");
    if (button.disabled) return;  // a second tap while the first is on its way
    var chooser = form.elements._action;
    var action = chooser ? chooser.value : form.dataset.gmAction;
    var body = fields(form);
    body.idempotency_key = newKey();
    var began = Date.now();
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    out.textContent = text("working…");
    out.dataset.outcome = "";
    session().then(function (token) {
      return fetch(campaignUrl("/api/gm/" + action), {
        method: "POST", credentials: "same-origin",
        headers: { "content-type": "application/json", "x-csrf-token": token || "" },
        body: JSON.stringify(body)
      });
    }).then(function (response) {
      return response.json().catch(function () { return { error: text("unreadable answer") }; })
        .then(function (data) { if (!response.ok) throw data; return data; });
    }).then(function (data) {
      out.textContent = answered(data.result || data);
      out.dataset.outcome = "success";
      form.reset();
      characters();
    }, function (error) {
      out.textContent = (error && error.error) || text("cannot reach the server");
      out.dataset.outcome = "error";
    }).then(function () {
      setTimeout(function () {
        button.disabled = false;
        button.removeAttribute("aria-busy");
      }, Math.max(0, HOLD - (Date.now() - began)));
    });
  }

  function characters() {  // the names the forms suggest (a datalist: any name can still be typed)
    var list = document.getElementById("gm-characters");
    if (!list) return;
    fetch(campaignUrl("/api/table"), { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (state) {
      while (list.firstChild) list.removeChild(list.firstChild);
      (state.characters || []).forEach(function (c) {
        var option = document.createElement("option");
        option.value = c.name;
        list.appendChild(option);
      });
    }, function () {});
  }

  function start() {
    var forms = document.querySelectorAll("form[data-gm-action]");
    if (!forms.length) return;
    Array.prototype.forEach.call(forms, function (form) { form.addEventListener("submit", submit); });
    characters();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

// Seats from the page (campaign/web/routes_invites.py): the GM makes and revokes invites,
// any seat makes a one-time link for a second device. Each link comes back whole, with
// its QR code drawn by the server (an SVG data: URI shown as an image). Text is set with
// textContent, never parsed as HTML.
(function () {
  "use strict";
  var csrf = null;

  function text(message, values) { return window.campaignText(message, values); }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === "text") node.textContent = attrs[name];
      else if (name === "cls") node.className = attrs[name];
      else node.setAttribute(name, attrs[name]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function session() {
    if (csrf) return Promise.resolve(csrf);
    return fetch("/api/session", { credentials: "same-origin" }).then(function (r) { return r.json(); })
      .then(function (s) { csrf = s.csrf; return csrf; });
  }

  function answer(response) {
    return response.json().catch(function () { return { error: text("unreadable answer") }; })
      .then(function (data) { if (!response.ok) throw data; return data; });
  }

  function post(path, body) {
    return session().then(function (token) {
      return fetch(path, {
        method: "POST", credentials: "same-origin",
        headers: { "content-type": "application/json", "x-csrf-token": token || "" },
        body: JSON.stringify(body || {})
      });
    }).then(answer);
  }

  function when(stamp) {  // a UTC stamp in the campaign's zone (the page's), as the pages show times
    var zone = document.documentElement.dataset.timeZone || undefined;
    try {
      return new Date(stamp).toLocaleString(document.documentElement.lang || undefined,
        { timeZone: zone, dateStyle: "short", timeStyle: "short" });
    } catch (err) {
      return stamp;
    }
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function failed(out, error) {
    clear(out);
    out.textContent = (error && error.error) || text("cannot reach the server");
    out.dataset.outcome = "error";
  }

  function showLink(out, made, about) {
    clear(out);
    out.dataset.outcome = "success";
    out.appendChild(el("p", { text: about }));
    out.appendChild(el("p", {}, [el("a", { href: made.url, cls: "join-link", text: made.url })]));
    out.appendChild(el("img", { cls: "qr", src: made.qr, width: "200", height: "200",
                                alt: text("QR code of the link for {player}", { player: made.player }) }));
  }

  function busy(button, on) {
    button.disabled = on;
    if (on) button.setAttribute("aria-busy", "true");
    else button.removeAttribute("aria-busy");
  }

  function seatList() {
    var holder = document.getElementById("invite-list");
    if (!holder) return;
    fetch("/api/invites", { credentials: "same-origin" }).then(answer).then(function (listed) {
      var seats = {};  // player -> {gm, pending, sessions}
      function seat(row) {
        var key = row.player + (row.gm ? "\u0000gm" : "");
        seats[key] = seats[key] || { player: row.player, gm: row.gm, pending: 0, sessions: 0 };
        return seats[key];
      }
      listed.invites.forEach(function (row) { if (row.state === "pending") seat(row).pending += 1; });
      listed.sessions.forEach(function (row) { if (!row.revoked) seat(row).sessions += 1; });
      var keys = Object.keys(seats).sort();
      clear(holder);
      if (!keys.length) { holder.appendChild(el("li", { cls: "none", text: text("No seats") })); return; }
      keys.forEach(function (key) {
        var s = seats[key];
        var label = (s.gm ? text("{player} (GM)", { player: s.player }) : s.player) + " — " +
          text("{sessions} signed in, {pending} open invites", { sessions: s.sessions, pending: s.pending });
        var revoke = el("button", { type: "button", cls: "gm",
                                    text: text("Revoke {player}", { player: s.player }) });
        revoke.addEventListener("click", function () {
          if (!window.confirm(text("End every session and invite of {player}?", { player: s.player }))) return;
          busy(revoke, true);
          post("/api/invites/revoke", { player: s.player }).then(seatList, function (error) {
            busy(revoke, false);
            failed(document.getElementById("invite-result"), error);
          });
        });
        holder.appendChild(el("li", { cls: "call" }, [el("span", { text: label }), revoke]));
      });
    }, function () {});
  }

  function inviteFromForm(event) {
    event.preventDefault();
    var form = event.target, out = document.getElementById("invite-result");
    var button = form.querySelector("button[type=submit]");
    if (button.disabled) return;
    var body = { player: form.elements.player.value.trim(), gm: form.elements.gm.checked };
    var expires = form.elements.expires.value.trim();
    if (expires) body.expires = expires;
    busy(button, true);
    post("/api/invites", body).then(function (made) {
      showLink(out, made, text("Invite for {player}, good once until {expires}: send this link",
                               { player: made.player, expires: when(made.expires) }));
      form.reset();
      seatList();
    }, function (error) { failed(out, error); }).then(function () { busy(button, false); });
  }

  function deviceLink(event) {
    var button = event.target, out = document.getElementById("device-result");
    if (button.disabled) return;
    busy(button, true);
    post("/api/device-link", {}).then(function (made) {
      showLink(out, made, text("Open this on your other device before {expires}; it works once",
                               { expires: when(made.expires) }));
    }, function (error) { failed(out, error); }).then(function () { busy(button, false); });
  }

  function start() {
    var form = document.getElementById("invite-form");
    if (form) { form.addEventListener("submit", inviteFromForm); seatList(); }
    var device = document.getElementById("device-link");
    if (device) device.addEventListener("click", deviceLink);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

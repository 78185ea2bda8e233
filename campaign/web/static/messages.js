// The page's words for its scripts: the server renders them from its catalog, in the
// page's language, into <script type="application/json" id="campaign-messages">
// (campaign/web/script_messages.py). A script writes each message in English, with
// {name} placeholders: campaignText("entry #{seq} does not match", {seq: 7}). A message
// the block does not hold is shown as written. Loaded before every other script.
(function () {
  "use strict";
  var table = null;
  function load() {
    if (table) return table;
    try {
      var holder = document.getElementById("campaign-messages");
      table = (holder && JSON.parse(holder.textContent)) || {};
    } catch (err) {
      table = {};
    }
    return table;
  }
  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, function (whole, name) {
      return values && Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }
  window.campaignText = function (message, values) {
    var words = (load().messages || {})[message];
    return fill(typeof words === "string" ? words : message, values);
  };
  // A code's word: campaignWord("outcome", "success") -> 成功 on a Japanese page.
  window.campaignWord = function (kind, code) {
    var words = (load()[kind] || {})[code];
    return typeof words === "string" ? words : code;
  };
  // A path of this campaign ("/api/rolls") as this page reaches it: under `serve --all`
  // every campaign lives below its own base, which the page names in
  // <meta name="campaign-base" content="/c/<slug>/">; served alone there is no base.
  window.campaignUrl = function (path) {
    var meta = document.querySelector('meta[name="campaign-base"]');
    var base = meta ? meta.getAttribute("content") || "" : "";
    return base ? base.replace(/\/+$/, "") + path : path;
  };
  window.campaignList = function (items) {
    var separator = load().list;
    return items.join(typeof separator === "string" ? separator : ", ");
  };
})();

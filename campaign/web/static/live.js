// The live feed: on a page whose table has id="history-table" and a data-feed URL,
// open an EventSource and put each new entry's row (rendered and escaped by the
// server with the history page's own macro) at the top of the table, newest first.
// The browser reconnects by itself and sends Last-Event-ID, so nothing is missed.
(function () {
  "use strict";
  function normalised(html) {  // as the browser serialises it, whitespace aside
    var holder = document.createElement("div");
    holder.innerHTML = html;
    return holder.innerHTML.replace(/\s+/g, " ").trim();
  }

  function start() {
    var table = document.getElementById("history-table");
    if (!table || !table.dataset.feed || typeof EventSource === "undefined") return;
    var body = table.tBodies[0] || table.appendChild(document.createElement("tbody"));
    var source = new EventSource(table.dataset.feed);
    source.addEventListener("entry", function (event) {
      var data;
      try { data = JSON.parse(event.data); } catch (e) { return; }
      if (document.getElementById("entry-" + data.seq)) return;  // already shown
      var holder = document.createElement("tbody");
      holder.innerHTML = data.html;  // server-rendered and escaped: one <tr>
      var row = holder.firstElementChild;
      if (!row) return;
      row.classList.add("fresh");
      body.insertBefore(row, body.firstChild);
      table.dispatchEvent(new CustomEvent("campaign:entry", { detail: { seq: data.seq } }));
    });
    // The state after the newest entry: the overview's characters and missing board,
    // rendered and escaped by the server with the page's own partials; a part is replaced
    // only when its HTML changed, so a reader's place in an unchanged part stays.
    source.addEventListener("state", function (event) {
      var data;
      try { data = JSON.parse(event.data); } catch (e) { return; }
      Array.prototype.forEach.call(document.querySelectorAll("[data-live]"), function (part) {
        var html = data[part.dataset.live];
        if (typeof html !== "string") return;
        if (part.liveHtml === undefined) part.liveHtml = normalised(part.innerHTML);
        if (normalised(html) === part.liveHtml) return;
        part.innerHTML = html;
        part.liveHtml = normalised(part.innerHTML);
      });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

// The site's script: search as you type, "Ask the docs", copy page as Markdown, and the
// docs menu folded at phone width. Every part works without it: the search box and the ask
// box are forms the server answers with a page.
(function () {
  "use strict";

  // retryText is the wait a 429 names, for people.
  function retryText(res) {
    var s = parseInt(res.headers.get("Retry-After") || "", 10);
    if (!(s > 0)) s = 60;
    return s === 1 ? "1 second" : s + " seconds";
  }

  // markedText appends a highlight (text with <mark> elements) to el, keeping only the
  // text and the marks.
  function markedText(el, html) {
    var doc = new DOMParser().parseFromString("<body>" + html, "text/html");
    doc.body.childNodes.forEach(function (n) {
      if (n.nodeName === "MARK") {
        var m = document.createElement("mark");
        m.textContent = n.textContent;
        el.appendChild(m);
      } else {
        el.appendChild(document.createTextNode(n.textContent));
      }
    });
  }

  // localURL turns an absolute URL of this site into a path, so links work under any host
  // name the site is reached by.
  function localURL(u) {
    try {
      var p = new URL(u, location.href);
      return p.pathname + p.search + p.hash;
    } catch (e) {
      return u;
    }
  }

  // --- search as you type ---
  var form = document.getElementById("site-search");
  if (form) {
    var input = form.querySelector("input[name=q]");
    var list = document.getElementById("search-results");
    var live = document.getElementById("search-status");
    var timer = null, ctrl = null, active = -1, items = [], last = "";

    var close = function () {
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
      active = -1;
    };
    var select = function (i) {
      items.forEach(function (li, j) { li.setAttribute("aria-selected", j === i ? "true" : "false"); });
      active = i;
      if (i >= 0) {
        input.setAttribute("aria-activedescendant", items[i].id);
        items[i].scrollIntoView({ block: "nearest" });
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    };
    var note = function (text) {
      list.textContent = "";
      items = [];
      var li = document.createElement("li");
      li.className = "note";
      li.textContent = text;
      list.appendChild(li);
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
      live.textContent = text;
    };
    var show = function (q, results) {
      list.dataset.query = q;
      list.textContent = "";
      items = [];
      active = -1;
      if (!results.length) {
        note("Nothing matches “" + q + "”.");
        return;
      }
      results.forEach(function (r, i) {
        var li = document.createElement("li");
        li.id = "search-result-" + i;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        li.dataset.href = localURL(r.url);
        var t = document.createElement("span");
        t.className = "t";
        t.textContent = r.title;
        var k = document.createElement("span");
        k.className = "k";
        k.textContent = r.type;
        li.appendChild(t);
        li.appendChild(k);
        if (r.highlight || r.summary) {
          var h = document.createElement("span");
          h.className = "h";
          if (r.highlight) markedText(h, r.highlight); else h.textContent = r.summary;
          li.appendChild(h);
        }
        li.addEventListener("mousedown", function (e) { e.preventDefault(); location.href = li.dataset.href; });
        list.appendChild(li);
        items.push(li);
      });
      // The last option opens the search page with every result.
      var all = document.createElement("li");
      all.id = "search-result-all";
      all.className = "all";
      all.setAttribute("role", "option");
      all.setAttribute("aria-selected", "false");
      all.dataset.href = "/search?q=" + encodeURIComponent(q);
      all.textContent = "All results for “" + q + "”";
      all.addEventListener("mousedown", function (e) { e.preventDefault(); location.href = all.dataset.href; });
      list.appendChild(all);
      items.push(all);
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
      live.textContent = results.length + (results.length === 1 ? " result" : " results") + "; arrow keys to choose, Enter to open.";
    };
    var run = function () {
      var q = input.value.trim();
      if (q.length < 2) { close(); last = q; return; }
      if (q === last && !list.hidden) return;
      last = q;
      if (ctrl) ctrl.abort();
      ctrl = new AbortController();
      fetch("/api/v1/search?limit=8&q=" + encodeURIComponent(q), { signal: ctrl.signal, headers: { Accept: "application/json" } })
        .then(function (res) {
          if (res.status === 429) { note("Too many searches in a minute: try again in " + retryText(res) + "."); return null; }
          if (!res.ok) { note("Search is unavailable right now; press Enter for the results page."); return null; }
          return res.json();
        })
        .then(function (body) { if (body && input.value.trim() === q) show(q, body.results || []); })
        .catch(function (e) { if (e.name !== "AbortError") note("Search is unavailable right now; press Enter for the results page."); });
    };
    // Enter on a chosen result opens it; the form is submitted only without one (some
    // keyboards and drivers deliver Enter's keypress even when its keydown was handled).
    var opening = "";
    form.addEventListener("submit", function (e) { if (opening) e.preventDefault(); });
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(run, 180);
    });
    input.addEventListener("keydown", function (e) {
      if (e.key === "ArrowDown" && items.length) {
        e.preventDefault();
        if (list.hidden) { list.hidden = false; input.setAttribute("aria-expanded", "true"); }
        select((active + 1) % items.length);
      } else if (e.key === "ArrowUp" && items.length) {
        e.preventDefault();
        select(active <= 0 ? items.length - 1 : active - 1);
      } else if (e.key === "Enter" && active >= 0 && !list.hidden) {
        e.preventDefault();
        opening = items[active].dataset.href;
        location.href = opening;
      } else if (e.key === "Escape") {
        close();
      }
    });
    // Closed a moment after the box loses focus (a click on a result lands first), unless
    // it has the focus back by then.
    var blurTimer = null;
    input.addEventListener("blur", function () { blurTimer = setTimeout(close, 150); });
    input.addEventListener("focus", function () {
      clearTimeout(blurTimer);
      if (items.length) { list.hidden = false; input.setAttribute("aria-expanded", "true"); }
    });
  }

  // --- ask the docs ---
  var ask = document.getElementById("ask-form");
  if (ask) {
    var question = ask.querySelector("input[name=q]");
    var out = document.getElementById("ask-answer");
    var para = function (text, cls) {
      var p = document.createElement("p");
      if (cls) p.className = cls;
      // The answer is Markdown quoted from the docs: `names` are shown as code.
      text.split(/(`[^`]+`)/).forEach(function (part) {
        if (part.length > 2 && part[0] === "`" && part[part.length - 1] === "`") {
          var c = document.createElement("code");
          c.textContent = part.slice(1, -1);
          p.appendChild(c);
        } else {
          p.appendChild(document.createTextNode(part.replace(/\*\*/g, "")));
        }
      });
      return p;
    };
    ask.addEventListener("submit", function (e) {
      var q = question.value.trim();
      if (!q) return;
      e.preventDefault();
      out.textContent = "";
      out.setAttribute("aria-busy", "true");
      out.appendChild(para("Looking in the docs…", "status"));
      fetch("/ask?q=" + encodeURIComponent(q), { headers: { Accept: "application/json" } })
        .then(function (res) {
          if (res.status === 429) {
            out.textContent = "";
            out.appendChild(para("You have asked many questions in the last minute. Try again in " + retryText(res) + ".", "limited"));
            return null;
          }
          return res.json().then(function (body) {
            if (!res.ok) throw new Error((body.error && body.error.message) || res.statusText);
            return body;
          });
        })
        .then(function (a) {
          if (!a) return;
          out.textContent = "";
          if (a.answered) {
            out.appendChild(para(a.answer));
          } else {
            out.appendChild(para("The docs do not cover this.", "declined"));
          }
          if (a.sources && a.sources.length) {
            var h = document.createElement("p");
            h.className = "meta";
            h.textContent = a.answered ? "Sources" : "The nearest sections";
            out.appendChild(h);
            var ol = document.createElement("ol");
            ol.className = "sources";
            a.sources.forEach(function (s) {
              var li = document.createElement("li");
              var link = document.createElement("a");
              link.href = localURL(s.url);
              link.textContent = s.title + " — " + s.section;
              li.appendChild(link);
              ol.appendChild(li);
            });
            out.appendChild(ol);
          }
        })
        .catch(function (err) {
          out.textContent = "";
          out.appendChild(para("The docs could not answer right now (" + err.message + "). Try again, or search the docs.", "limited"));
        })
        .finally(function () { out.removeAttribute("aria-busy"); });
    });
  }

  // --- copy page as Markdown ---
  var copy = document.getElementById("copy-markdown");
  if (copy) {
    copy.hidden = false;
    var status = document.getElementById("copy-status");
    copy.addEventListener("click", function () {
      fetch(copy.dataset.src, { headers: { Accept: "text/markdown" } })
        .then(function (res) { if (!res.ok) throw new Error(res.statusText); return res.text(); })
        .then(function (md) {
          if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(md);
          var ta = document.createElement("textarea");
          ta.value = md;
          ta.setAttribute("readonly", "");
          ta.style.position = "absolute";
          ta.style.left = "-9999px";
          document.body.appendChild(ta);
          ta.select();
          var ok = document.execCommand("copy");
          document.body.removeChild(ta);
          if (!ok) throw new Error("the browser refused");
        })
        .then(function () { status.textContent = "Copied the page as Markdown."; })
        .catch(function (err) { status.textContent = "Could not copy (" + err.message + "); open the Markdown link instead."; });
    });
  }

  // --- the docs menu, folded at phone width ---
  var menu = document.getElementById("docs-menu");
  if (menu && window.matchMedia("(max-width: 52rem)").matches) menu.open = false;
})();

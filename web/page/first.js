// index.html's one script in <head>, run before its body is parsed: loads the page's scripts
// (causal-attention.js, the library, then app.js). The book (no hash) has its first screen in
// index.html (pre-rendered at build time: build-scripts/prerender.js), painted as soon as it is
// parsed: the scripts are inserted after that first frame and app.js takes over its nodes
// (body[data-pre]). Any other link (settings, a preset, a stage to scroll to) loads them at
// once, render-blocking as before, and the book's first screen stays hidden (style.css,
// html[data-wait]) until app.js has built that link's own.
var doc = document,
  book = location.hash.length < 2,
  FILES = [['causal-attention.js', 'later'], ['app.js']];

// Until app.js takes over (it empties document.__early): what the reader does to the
// pre-rendered page is kept for it to replay: the controls typed into, the buttons clicked and
// the form submitted (not sent: the page would reload).
var early = (doc.__early = []);
if (book)
  ['input', 'click', 'submit'].forEach(function (type) {
    doc.addEventListener(
      type,
      function (e) {
        var t = e.target;
        if (doc.__early !== early || !t.closest) return;
        if (type === 'click') t = t.closest('button');
        else if (type === 'input') t = t.closest('#controls') && t;
        if (!t) return;
        if (type !== 'input') e.preventDefault();
        early.push([type, t, e.submitter]);
      },
      true,
    );
  });

function insert() {
  FILES.forEach(function (f) {
    var s = doc.createElement('script');
    s.src = f[0];
    s.async = false; // in order: app.js reads the library
    if (f[1]) s.dataset.module = f[1]; // lib/index.js: the page loads the wasm after its first table
    if (!book) s.setAttribute('blocking', 'render');
    doc.head.appendChild(s);
  });
}
// The book's: right after the first frame that has the whole body (the first screen) is
// painted: a message posted from that frame's animation callbacks arrives after its paint.
// (Asked for once the body is parsed: a task queued by a callback registered before the first
// table was parsed ran before the tasks that see that frame painted.)
if (book)
  doc.addEventListener('DOMContentLoaded', function () {
    requestAnimationFrame(function () {
      var ch = new MessageChannel();
      ch.port1.onmessage = insert;
      ch.port2.postMessage(0);
    });
  });
else {
  doc.documentElement.dataset.wait = ''; // style.css: the book's first screen stays hidden
  insert();
}

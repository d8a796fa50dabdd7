// The book's run and the core's tables as the module computed them at build time: null here;
// src/wasm/pack.js writes them into the page's app.js when it builds the page with the module
// (page/book.js reads them).
export var snapshot = null;

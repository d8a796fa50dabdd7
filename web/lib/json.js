// JSON for configurations whose seeds go beyond 2^53 (torch.manual_seed takes up to 2^64 - 1):
// integers that a double cannot hold are read as BigInt and written back digit for digit, so
// the page's URL, the widget's `config` and embed.html's hash give the CLI's numbers.
var INTEGER = /^-?\d+$/;
// JSON.parse's reviver sees each literal's source text (Chrome 114+, Firefox 135+, Node 21+).
var withSource = (function () {
  var seen;
  JSON.parse('1', function (k, v, context) {
    seen = context && context.source;
    return v;
  });
  return seen === '1';
})();

function exact(v, source) {
  return typeof v === 'number' && !Number.isSafeInteger(v) && INTEGER.test(source)
    ? BigInt(source)
    : v;
}
// A string no configuration contains, to carry big integers through JSON.parse/stringify.
function marker() {
  return '\u0000' + Math.random().toString(36).slice(2) + ':';
}

/** JSON.parse, with integers beyond 2^53 as BigInt. */
export function parse(text) {
  if (withSource) {
    return JSON.parse(text, function (k, v, context) {
      return context && context.source !== undefined ? exact(v, context.source) : v;
    });
  }
  // Elsewhere long integer literals outside strings are read as marked strings first.
  var mark = marker();
  var marked = String(text).replace(
    /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g,
    function (token) {
      return token.length > 15 && INTEGER.test(token) ? JSON.stringify(mark + token) : token;
    },
  );
  return JSON.parse(marked, function (k, v) {
    if (typeof v !== 'string' || v.indexOf(mark) !== 0) return v;
    var source = v.slice(mark.length);
    return exact(+source, source);
  });
}

/** JSON.stringify, with BigInt written as its digits. */
export function stringify(value) {
  if (typeof JSON.rawJSON === 'function') {
    return JSON.stringify(value, function (k, v) {
      return typeof v === 'bigint' ? JSON.rawJSON(String(v)) : v;
    });
  }
  var mark = marker();
  var text = JSON.stringify(value, function (k, v) {
    return typeof v === 'bigint' ? mark + v : v;
  });
  var quoted = JSON.stringify(mark).slice(0, -1); // "\u0000...:
  return text === undefined
    ? text
    : text
        .split(quoted)
        .map(function (part, i) {
          return i ? part.replace(/"/, '') : part; // the digits' closing quote
        })
        .join('');
}

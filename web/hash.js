// The page's URL hash, read and written like settings, one grammar for the page, its lecture
// mode and embed.html:
//
//   #d_out=4&rng=mkl&stage=dropout_example        keys of the configuration, plus stage=ID
//   #qkv_bias&scale=false&lecture                  a bare key is true
//   #inputs=0.43,0.15,0.89;0.55,0.87,0.66          rows by ";", values by ","
//   #inputs=randn:5,4:7                            {randn: [5, 4], seed: 7}
//   #tokens=Hello%2C%20world,journey               labels by ",", each percent-encoded
//   #seed_weights=18446744073709551615             integers beyond 2^53 become BigInt, exact
//
// Numbers are read back as numbers, "true"/"false" as booleans, the rest as text (the core
// names what is wrong with it). Old links, percent-encoded JSON (#%7B%22d_out%22%3A4%7D),
// still parse.
import { parse as parseJson } from './lib/json.js';
import { put } from './lib/own.js';

var NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
var enc = function (s) {
  return encodeURIComponent(s).replace(/%3A/g, ':');
};
// A malformed escape (a stray %) throws URIError "URI malformed": the page says the link is invalid.
var dec = function (s) {
  return decodeURIComponent(s);
};

// A value as text would read it: a number (BigInt when an integer beyond 2^53), a boolean, or text.
function value(text) {
  if (text === 'true' || text === 'false') return text === 'true';
  if (!NUMBER.test(text)) return text;
  var n = +text;
  return /^[-+]?\d+$/.test(text) && !Number.isSafeInteger(n) && typeof BigInt === 'function'
    ? BigInt(text)
    : n;
}
function list(text) {
  return text.split(',').map(function (x) {
    return value(dec(x));
  });
}

/** The hash (with or without "#") as an object: configuration keys and page keys (stage, lecture). */
export function parse(hash) {
  hash = String(hash || '').replace(/^#/, '');
  if (/^(\{|%7B|\[|%5B)/i.test(hash)) return parseJson(dec(hash)); // an old link: JSON, big seeds exact
  var out = {};
  hash.split('&').forEach(function (pair) {
    if (!pair) return;
    var at = pair.indexOf('='),
      key = dec(at < 0 ? pair : pair.slice(0, at)),
      text = at < 0 ? null : pair.slice(at + 1),
      m;
    if (text === null) put(out, key, true);
    else if (key === 'tokens') put(out, key, text.split(',').map(dec));
    else if (key === 'inputs' && (m = /^randn:([^:]*)(?::(.*))?$/.exec(text))) {
      put(out, key, { randn: list(m[1]) });
      if (m[2] !== undefined) out[key].seed = value(dec(m[2]));
    } else if (key === 'inputs') put(out, key, text.split(';').map(list));
    else put(out, key, value(dec(text))); // #__proto__=1 is a key the core names, not a prototype
  });
  return out;
}

function scalar(v) {
  return enc(String(v));
}
/** An object (configuration keys, stage, lecture...) as a hash without "#"; true is a bare key. */
export function stringify(state) {
  return Object.keys(state)
    .filter(function (k) {
      return state[k] !== undefined;
    })
    .map(function (k) {
      var v = state[k],
        key = enc(k);
      if (v === true) return key;
      if (k === 'tokens' && Array.isArray(v)) return key + '=' + v.map(enc).join(',');
      if (k === 'inputs' && Array.isArray(v))
        return (
          key +
          '=' +
          v
            .map(function (r) {
              return [].concat(r).map(scalar).join(',');
            })
            .join(';')
        );
      if (k === 'inputs' && v && v.randn)
        return (
          key +
          '=randn:' +
          [].concat(v.randn).map(scalar).join(',') +
          ('seed' in v ? ':' + scalar(v.seed) : '')
        );
      return key + '=' + (v && typeof v === 'object' ? enc(JSON.stringify(v)) : scalar(v));
    })
    .join('&');
}

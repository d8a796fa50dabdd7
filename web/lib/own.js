// Objects built from what a reader typed (a link, a config attribute): every key is an own data
// property, "__proto__" and "constructor" included, so a typed name never reaches
// Object.prototype (`o[key] = v` with key "__proto__" would set the prototype; Object.assign
// would too) and the core's reader sees, and names, every key the reader wrote.

/** Sets o[key] = v as an own, enumerable data property; returns o. */
export function put(o, key, v) {
  Object.defineProperty(o, key, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

/** A new object with the own enumerable keys of each source in turn (later ones win). */
export function merge() {
  var out = {};
  for (var i = 0; i < arguments.length; i++) {
    var src = arguments[i] || {};
    Object.keys(src).forEach(function (k) {
      put(out, k, src[k]);
    });
  }
  return out;
}

/** True for a plain object as JSON.parse makes it (not an array, null or a class instance),
 *  whatever its own keys are called: an own "constructor" key does not fool it. */
export function isRecord(v) {
  return (
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    Object.getPrototypeOf(v) === Object.prototype
  );
}

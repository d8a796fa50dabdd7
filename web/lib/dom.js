// The one way the web side makes an element: el(doc, tag, className or {props}, text, parent).
/** A new `tag` element of document `doc`: `cls` a class name, or an object of properties to
 *  set (textContent, type...); `text` its text; appended to `parent` when given. */
export function el(doc, tag, cls, text, parent) {
  var node = doc.createElement(tag);
  if (typeof cls === 'string' && cls) node.className = cls;
  else if (cls) Object.assign(node, cls);
  if (text !== undefined) node.textContent = text;
  return parent ? parent.appendChild(node) : node;
}

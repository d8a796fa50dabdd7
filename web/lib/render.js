// A stage's table(s), a cell's explanation, hover/click/keys: pure DOM, Shadow DOM ready.
// Everything a user typed (token labels above all) goes in as text, never as markup.
(function (CA) {
  'use strict';

  /** A number as the tables show it: 4 decimals, like PyTorch's print. */
  function fmt(x) {
    return x === -Infinity ? '−∞' : x === Infinity ? '∞' : x !== x ? 'nan' : x.toFixed(4);
  }
  // C's printf("%.*f" or "%.*e"): JS rounds exact ties away from zero, C to even; Python's
  // two-digit exponent; the sign of -0 kept.
  function printf(x, p, sci) {
    var f = sci ? 'toExponential' : 'toFixed',
      s = Math.abs(x)[f](p),
      t = Math.abs(x)[f](100),
      k = t.indexOf('.') + p + 1;
    if (p && t[k] === '5' && /^0*(e|$)/.test(t.slice(k + 1)) && t[k - 1] % 2 === 0)
      s = t.slice(0, k) + (sci ? s.slice(s.indexOf('e')) : '');
    return (x < 0 || Object.is(x, -0) ? '-' : '') + s.replace(/e([-+])(\d)$/, 'e$10$2');
  }
  /** Stage st's numbers as print() shows them (torch/_tensor_str.py, ported like the CLI's
   *  torch_format.cpp): one mode for the tensor, measured over what print() shows (3 edge items
   *  per dimension above 1000 values): integers as "2.", else 4 decimals, or %.4e when wide. */
  function torchFormat(st) {
    var shape = st.shape,
      data = st.data,
      vals = [],
      ints = true,
      min = Infinity,
      max = 0;
    (function collect(off, d) {
      for (
        var n = shape[d],
          stride =
            data.length /
            shape.slice(0, d + 1).reduce(function (a, b) {
              return a * b;
            }, 1),
          i = 0;
        i < n;
        i++
      ) {
        if (data.length > 1000 && n > 6 && i === 3) i = n - 3;
        if (d < shape.length - 1) collect(off + i * stride, d + 1);
        else vals.push(data[off + i]);
      }
    })(0, 0);
    if (!shape.length) vals = [data[0]]; // a 0-D tensor: its one value
    vals.forEach(function (v) {
      if (!isFinite(v) || !v) return;
      min = Math.min(min, Math.abs(v));
      max = Math.max(max, Math.abs(v));
      ints = ints && v === Math.ceil(v);
    });
    var sci = max / min > 1000 || max > 1e8 || (!ints && min < 1e-4);
    return function (x) {
      return x !== x
        ? 'nan'
        : !isFinite(x)
          ? (x < 0 ? '-' : '') + 'inf'
          : sci
            ? printf(x, 4, 1)
            : ints
              ? printf(x, 0) + '.'
              : printf(x, 4);
    };
  }
  /** The shortest decimal that reads back as the same float32. */
  function f32(x) {
    for (var digits = 1; digits < 10; digits++) {
      var text = String(Number(x.toPrecision(digits)));
      if (Math.fround(text) === x) return text;
    }
    return String(x);
  }
  // The value of a number typed into a control: a number when the text is one, else the
  // text itself, so that the core names the problem.
  function parseNumber(text) {
    text = text.trim();
    if (/^-?\d+$/.test(text) && !Number.isSafeInteger(+text)) return BigInt(text); // exact seeds
    return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? +text : text;
  }
  function el(doc, tag, className, text) {
    var node = doc.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  // Stages by id, cached on the walkthrough object.
  function byId(wt) {
    if (!wt._by) {
      wt._by = {};
      wt.stages.forEach(function (s) {
        wt._by[s.id] = s;
      });
    }
    return wt._by;
  }
  /** Element [batch, row, col] of a stage (0-D: the value; 1-D: col only; 2-D: row, col;
   *  3-D and 4-D: `batch` counts the matrices of the leading dims, b·H + h for (B, H, T, X)). */
  function at(wt, id, batch, row, col) {
    var s = byId(wt)[id],
      shape = s.shape,
      rank = shape.length;
    return s.data[
      rank === 0
        ? 0
        : rank === 1
          ? col
          : rank === 2
            ? row * shape[1] + col
            : (batch * shape[rank - 2] + row) * shape[rank - 1] + col
    ];
  }
  function maxDiff(a, b) {
    for (var worst = 0, k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k] - b[k]));
    return worst;
  }
  /** The label of row/column i on an axis of the stage table: tok (token labels), sum, bias,
   *  '' (an unlabelled row), or a feature index. */
  function label(axis, i, cfg) {
    return axis === 'tok'
      ? cfg.tokens[i]
      : axis === 'sum' || axis === 'bias'
        ? axis
        : !axis
          ? null
          : String(i);
  }
  // The table's corner: what its rows and columns are.
  function corner(info) {
    return info.rows + info.cols === 'toktok'
      ? 'query \\ key'
      : (info.rows === 'tok' ? 'token' : info.rows) +
          ' \\ ' +
          (info.cols === 'tok' ? 'token' : info.cols);
  }
  /** What the matrices of a 3-D or 4-D stage are: ["batch"] (B, T, X), ["head"] (H, X, Y) for
   *  the wrapper's stacked weights, ["batch", "head"] (B, H, T, X). */
  function leading(st) {
    var info = CA.info(st.id);
    return st.shape.length === 4
      ? ['batch', 'head']
      : st.shape.length === 3
        ? [info.kind === 'weights' ? 'head' : 'batch']
        : [];
  }
  function maxShown() {
    return (CA.limits && CA.limits.max_shown) || 32;
  }

  /** The rows × cols matrix of slice `batch` of a stage (3-D: a batch element; 4-D: batch
   *  element and head, flattened as b·H + h), with its labels. */
  function matrix(st, wt, batch) {
    var shape = st.shape,
      rank = shape.length,
      info = CA.info(st.id),
      cfg = wt.config;
    var rows = rank < 2 ? 1 : shape[rank - 2],
      cols = rank ? shape[rank - 1] : 1,
      offset = rank > 2 ? (batch || 0) * rows * cols : 0;
    return {
      rows: rows,
      cols: cols,
      corner: corner(info),
      value: function (i, j) {
        return st.data[offset + i * cols + j];
      },
      // No row axis (a vector, a scalar): the row is named after the stage.
      rowLabel: function (i) {
        var l = label(info.rows, i, cfg);
        return l === null ? st.id.replace(/^[^.]*\./, '') : l;
      },
      colLabel: function (j) {
        var l = label(info.cols, j, cfg);
        return l === null ? '' : l;
      },
    };
  }
  /** How many slices (tables) a stage has: the product of its dimensions before the last two. */
  function sliceCount(st) {
    for (var n = 1, d = 0; d < st.shape.length - 2; d++) n *= st.shape[d];
    return n;
  }
  // The name of slice k, e.g. "context_vecs[1]" or "mha.attn_weights[0, 3]", and its subtitle.
  function sliceName(st, k) {
    var lead = st.shape.slice(0, -2),
      names = leading(st),
      idx = [];
    for (var d = lead.length - 1; d >= 0; d--) {
      idx.unshift(k % lead[d]);
      k = Math.floor(k / lead[d]);
    }
    var name = st.id + (idx.length ? '[' + idx.join(', ') + ']' : '');
    return {
      name: name,
      sub: !idx.length
        ? ''
        : name +
          ': ' +
          names
            .map(function (n, d) {
              return (n === 'batch' ? 'batch element ' : 'head ') + (idx[d] + 1) + ' of ' + lead[d];
            })
            .join(', '),
    };
  }
  /** "mha.attn_weights[1, 0]: batch element 2 of 2, head 1 of 2" */
  function part(st, k) {
    return sliceName(st, k).sub;
  }

  // What a screen reader should say for the cells whose meaning is in their look.
  function spoken(x, masked, dropped) {
    var say = x === -Infinity ? 'minus infinity' : '';
    if (masked) say = (say || fmt(x)) + ', masked: a future token';
    if (dropped) say = (say || fmt(x)) + ', dropped by dropout';
    return say;
  }

  /** (i, j) → [masked, dropped] for the table m of stage st: masked above the diagonal of a
   *  causal stage, dropped where the stage's dropout pattern has a zero. */
  function marks(st, wt, info, m) {
    var pattern = info.dropout && byId(wt)[info.dropout];
    return function (i, j) {
      var masked = info.causal && j > i;
      return [
        masked,
        !!pattern &&
          (pattern === st ? m.value(i, j) === 0 && !masked : pattern.data[i * m.cols + j] === 0),
      ];
    };
  }
  // A table's colour scale: probabilities sequential over [0, max(1, largest)], the signed
  // kinds diverging around 0 over ±max |x|, masks none. lo and hi: its finite range.
  function scale(m, info) {
    var lo = Infinity,
      hi = -Infinity,
      i,
      j,
      x;
    for (i = 0; i < m.rows; i++)
      for (j = 0; j < m.cols; j++)
        if (isFinite((x = m.value(i, j)))) {
          lo = Math.min(lo, x);
          hi = Math.max(hi, x);
        }
    if (info.kind === 'mask' || lo > hi) return null;
    var seq = info.kind === 'probabilities';
    return { seq: seq, top: (seq ? Math.max(1, hi) : Math.max(-lo, hi)) || 1, lo: lo, hi: hi };
  }
  // A cell's colour on scale sc: --v = |x| / top; the colours are in styles.js.
  function shade(node, x, sc) {
    node.classList.add(sc.seq ? 'h' : 'd');
    if (x < 0) node.classList.add('ng');
    node.style.setProperty('--v', (Math.abs(x) / sc.top).toFixed(4));
  }
  /** The colour key of scale sc: the table's range, lo to hi, in 12 steps of the cells' own rule. */
  function key(doc, sc) {
    var k = el(doc, 'div', 'ck'),
      strip = el(doc, 'span', 'ks');
    k.appendChild(el(doc, 'span', 'sr', 'Colour key: '));
    k.appendChild(el(doc, 'span', 'kl', fmt(sc.lo)));
    for (var n = 0; n < 12; n++)
      shade(
        strip.appendChild(el(doc, 'span')),
        n === 11 ? sc.hi : sc.lo + ((sc.hi - sc.lo) * n) / 11,
        sc,
      );
    strip.setAttribute('aria-hidden', 'true');
    k.appendChild(strip);
    k.appendChild(el(doc, 'span', 'kh', fmt(sc.hi)));
    k.appendChild(
      el(
        doc,
        'span',
        '',
        sc.seq
          ? '(shade ∝ value on 0 to ' + fmt(sc.top) + ': faint = small)'
          : '(shade ∝ |value| up to ' + fmt(sc.top) + '; blue > 0, red < 0)',
      ),
    );
    return k;
  }

  /** A cell's look from its value: text (fmt, or print()'s format), shading on the table's
   *  scale sc, markers, its spoken label. Touches only what changed, and keeps the highlight
   *  classes (sel, hl) of a picked cell. */
  function paint(td, x, masked, dropped, sc, text) {
    var key =
      (masked ? 1 : 0) +
      (dropped ? 2 : 0) +
      '|' +
      (sc ? +sc.seq + ':' + sc.top : '') +
      (text === fmt ? '' : 't');
    if (Object.is(td._x, x) && td._k === key) return; // as painted last time
    td._x = x;
    td._k = key;
    var shown = text(x),
      say = spoken(x, masked, dropped),
      cls = '',
      list = td.classList;
    var node = td.firstChild;
    if (!node) td.textContent = shown;
    else if (node.data !== shown) node.data = shown; // the same text node: cheaper than a new one
    if (masked) cls += ' m';
    if (dropped) cls += ' x';
    if (x === -Infinity) cls += ' ni';
    if (sc && isFinite(x)) {
      cls += (sc.seq ? ' h' : ' d') + (x < 0 ? ' ng' : '');
      td.style.setProperty('--v', (Math.abs(x) / sc.top).toFixed(4));
    } else if (list.contains('h') || list.contains('d')) td.style.removeProperty('--v');
    if (list.contains('sel')) cls += ' sel';
    if (list.contains('hl')) cls += ' hl';
    if (td.className !== cls.slice(1)) td.className = cls.slice(1);
    if (say) {
      if (td.getAttribute('aria-label') !== say) td.setAttribute('aria-label', say);
    } else if (td.hasAttribute('aria-label')) td.removeAttribute('aria-label');
  }
  // Sets a header's label (an empty one shows as ""; long ones are cut, whole in the title).
  function setHeader(th, text) {
    var shown = text || '""',
      cls = text ? '' : 'em';
    if (th.textContent !== shown) th.textContent = shown;
    if (th.className !== cls) th.className = cls;
    if (text.length > 12) th.title = text;
    else if (th.title) th.removeAttribute('title');
  }
  function header(doc, text, scope) {
    var th = el(doc, 'th');
    th.scope = scope;
    setHeader(th, text);
    return th;
  }

  /** Fills a caption (or a heatmap's heading): title, shape, note and code on the first slice,
   *  then the slice's subtitle. */
  function caption(doc, cap, st, info, k, cut) {
    var sub = cut ? '' : sliceName(st, k).sub;
    if ((!k || st.shape.length === 4) && !cut) {
      // 4-D stages show one picked slice: always in full
      var head = cap.appendChild(el(doc, 'span', 'hd'));
      head.appendChild(el(doc, 'span', 'ti', st.title));
      head.appendChild(
        el(
          doc,
          'span',
          'sh',
          st.shape.length ? ' (' + st.shape.join(', ') + ')' : ' (a 0-D scalar)',
        ),
      );
      if (info.note) cap.appendChild(el(doc, 'span', 'nt', info.note));
      cap.appendChild(el(doc, 'code', '', st.code));
    }
    if (sub) cap.appendChild(el(doc, 'span', 'sub', sub));
    if (cut) cap.appendChild(el(doc, 'span', 'nt', cut));
    return cap;
  }

  // Paints every value cell of table t from the stage (region: the part of the slice shown;
  // text: fmt or print()'s format) and, for a whole slice, its colour key after the table.
  function fill(t, st, wt, info, batch, region, text) {
    var m = matrix(st, wt, batch),
      sc = scale(m, info),
      flags = marks(st, wt, info, m);
    var head = t.tHead && t.tHead.rows[0].cells,
      rows = t.tBodies[0].rows,
      j;
    for (j = 0; head && j < region.cols; j++) setHeader(head[j + 1], m.colLabel(region.c0 + j));
    for (var r = 0; r < region.rows; r++) {
      var cells = rows[r].cells,
        i = region.r0 + r;
      setHeader(cells[0], m.rowLabel(i));
      for (j = 0; j < region.cols; j++) {
        var c = region.c0 + j,
          f = flags(i, c);
        paint(cells[j + 1], m.value(i, c), f[0], f[1], sc, text || fmt);
      }
    }
  }

  /** The table of a slice (or of a region {r0, c0, rows, cols} of it: the exact values under
   *  a heatmap), its cells carrying their indices in the whole slice. */
  function table(doc, st, wt, info, batch, opts, region) {
    var m = matrix(st, wt, batch),
      whole = !region;
    region = region || { r0: 0, c0: 0, rows: m.rows, cols: m.cols };
    var t = el(doc, 'table', 't'),
      cap = t.appendChild(el(doc, 'caption', opts.caption === false ? 'sr' : ''));
    t.setAttribute('part', 'table'); // ::part(table) and ::part(caption) style a widget's from outside
    cap.setAttribute('part', 'caption');
    caption(
      doc,
      cap,
      st,
      info,
      batch,
      whole
        ? ''
        : sliceName(st, batch).name +
            ', rows ' +
            region.r0 +
            '–' +
            (region.r0 + region.rows - 1) +
            ', columns ' +
            region.c0 +
            '–' +
            (region.c0 + region.cols - 1),
    );
    t.dataset.dims = region.rows + 'x' + region.cols;
    var tr, j;
    if (st.shape.length) {
      // a 0-D stage: the value alone, no axes
      tr = t.appendChild(el(doc, 'thead')).appendChild(el(doc, 'tr'));
      tr.appendChild(el(doc, 'th', 'k', m.corner)).scope = 'col';
      for (j = 0; j < region.cols; j++) tr.appendChild(header(doc, '', 'col'));
    }
    var body = t.appendChild(el(doc, 'tbody'));
    for (var i = 0; i < region.rows; i++) {
      tr = body.appendChild(el(doc, 'tr'));
      tr.appendChild(header(doc, '', 'row'));
      for (j = 0; j < region.cols; j++) {
        var td = tr.appendChild(el(doc, 'td'));
        td.dataset.row = region.r0 + i;
        td.dataset.col = region.c0 + j;
        if (st.shape.length > 2) td.dataset.batch = batch;
        td.tabIndex = i || j ? -1 : 0; // one tab stop per table; arrow keys move inside (bind)
      }
    }
    fill(t, st, wt, info, batch, region, textOf(st, opts));
    var scroller = el(doc, 'div', 'scroll'),
      sc = whole && st.shape.length && scale(m, info); // no key for a 0-D value
    scroller.appendChild(t);
    if (sc) scroller.appendChild(key(doc, sc));
    return scroller;
  }
  // The numbers' text: 4 decimals, or the whole tensor's print() format (opts.torch).
  function textOf(st, opts) {
    return opts.torch ? torchFormat(st) : fmt;
  }

  // A slice's table (or heatmap) in a div.duo, with its drawing beside it (lib/draw.js) for
  // (T, T) attention stages (4-D: every head of the slice's batch element).
  function duo(doc, st, wt, info, b, opts, heat) {
    var box = el(doc, 'div', 'duo');
    box.appendChild(heat ? big(st, wt, info, b, opts) : table(doc, st, wt, info, b, opts));
    if (CA.draw && CA.draw.wanted(info)) {
      box.classList.add('dd');
      box.appendChild(drawing(doc, st, wt, b, info));
    }
    return box;
  }
  function drawing(doc, st, wt, b, info) {
    var H = st.shape.length === 4 ? st.shape[1] : 1,
      fig = CA.draw.figure(doc, st, wt, Math.floor(b / H), info);
    fig._update = function (now, nowWt) {
      fig.replaceWith(drawing(doc, now, nowWt, b, info));
    };
    return fig;
  }

  // A slice bigger than max_shown on a side: a canvas heatmap (lib/heatmap.js).
  function big(st, wt, info, batch, opts) {
    var m = matrix(st, wt, batch),
      doc = opts.doc || document,
      max = maxShown();
    var head = caption(doc, el(doc, 'div', 'hc'), st, info, batch, '');
    if (opts.caption === false) head.className = 'hc sr';
    var box = CA.heatmap.create(m, {
      doc: doc,
      kind: info.kind,
      name: sliceName(st, batch).name,
      head: head,
      max: max,
      table: function (region) {
        var now = box._hm.st;
        return table(doc, now, box._hm.wt, CA.info(now.id), batch, opts, region);
      },
    });
    box._hm.st = st;
    box._hm.wt = wt;
    return box;
  }
  function isBig(st) {
    var rank = st.shape.length,
      max = maxShown();
    return st.shape[rank - 1] > max || (rank > 1 && st.shape[rank - 2] > max);
  }

  // The buttons under a table: exports (lib/export.js handles the clicks) and, on the page,
  // the embed snippet of the stage.
  var EXPORTS = [
    ['markdown', 'Markdown'],
    ['latex', 'LaTeX'],
    ['csv', 'CSV'],
    ['torch', 'torch'],
    ['png', 'PNG'],
    ['svg', 'SVG'],
  ];
  function tools(doc, st, batch, withEmbed) {
    var bar = el(doc, 'div', 'tools'),
      name = sliceName(st, batch).name;
    bar.setAttribute('role', 'group');
    bar.setAttribute('aria-label', 'Export ' + name);
    bar.appendChild(el(doc, 'span', '', 'Export:'));
    EXPORTS.concat(withEmbed ? [['embed', 'Embed']] : []).forEach(function (f) {
      var b = bar.appendChild(el(doc, 'button', '', f[1]));
      b.type = 'button';
      b.dataset.export = f[0];
      b.dataset.batch = batch;
    });
    if (withEmbed) {
      // on the page: a link to this stage with the current settings (app.js)
      var link = bar.appendChild(el(doc, 'button', '', 'Link'));
      link.type = 'button';
      link.dataset.link = st.id;
      link.setAttribute('aria-label', 'Link to ' + st.id);
    }
    bar.appendChild(el(doc, 'span', 'msg')).setAttribute('aria-live', 'polite'); // "Copied ..."
    return bar;
  }

  // The efficient mask against the simple one: the same weights, to float32 rounding.
  function afterText(st, wt) {
    var simple = byId(wt).masked_simple_norm,
      diff;
    return st.id === 'attn_weights_causal' && simple
      ? 'max |difference| from the simple way (masked_simple_norm): ' +
          ((diff = maxDiff(st.data, simple.data)) ? diff.toExponential(2) : '0')
      : '';
  }

  /** One stage as a div[data-stage] holding its table(s) (heatmaps above max_shown) and their
   *  export buttons. opts: {doc, caption: false hides captions but for screen readers, embed:
   *  an Embed button}. */
  function stage(st, wt, opts) {
    opts = opts || {};
    var doc = opts.doc || document,
      info = CA.info(st.id),
      box = el(doc, 'div', 'stage'),
      n = sliceCount(st),
      heat = isBig(st);
    box.dataset.stage = st.id;
    box.dataset.shape = st.shape.join();
    // A slice's table (or heatmap) and, for (T, T) attention stages, its drawing beside it.
    var slice = function (b, now, nowWt) {
      return duo(doc, now || st, nowWt || wt, info, b, opts, heat);
    };
    if (st.shape.length === 4) {
      // One (batch element, head) at a time, picked with a select: B·H tables would be a wall.
      var label = box.appendChild(el(doc, 'label', 'pick', 'Batch element and head ')),
        pick = label.appendChild(el(doc, 'select'));
      for (var k = 0; k < n; k++)
        pick.appendChild(el(doc, 'option', '', part(st, k).split(': ')[1])).value = k;
      var shown = [box.appendChild(slice(0)), box.appendChild(tools(doc, st, 0, opts.embed))];
      pick.addEventListener('change', function () {
        var now = box._st || st,
          k = +pick.value,
          next = [slice(k, now, box._wt || wt), tools(doc, now, k, opts.embed && !k)];
        shown.forEach(function (node, i) {
          node.replaceWith(next[i]);
        });
        shown = next;
      });
      box._pick = pick;
    } else {
      for (var b = 0; b < n; b++) {
        box.appendChild(slice(b));
        box.appendChild(tools(doc, st, b, opts.embed && !b));
      }
    }
    // Where inf or NaN first appear (lib/nonfinite.js), a note under the table.
    var overflow = CA.nonFinite && CA.nonFinite(wt)[st.id];
    if (overflow) box.appendChild(el(doc, 'p', 'nf', overflow)).setAttribute('role', 'note');
    var after = afterText(st, wt);
    if (after) box.appendChild(el(doc, 'p', 'after', after));
    return box;
  }

  /** Updates a stage's box in place for new values of the same shape: cell texts, shading,
   *  markers, labels, captions; the cells themselves (focus, tab stop, picked cell) stay.
   *  Other children that stage() adds refresh themselves through their `_update(st, wt)`.
   *  Returns false when the shape differs: the caller builds a new box with stage(). */
  function update(box, st, wt, opts) {
    opts = opts || {};
    var nf = CA.nonFinite && CA.nonFinite(wt)[st.id];
    if (box.dataset.stage !== st.id || box.dataset.shape !== st.shape.join()) return false;
    if (!nf !== !box.querySelector(':scope > .nf')) return false; // a note comes or goes: rebuild
    var doc = opts.doc || document,
      info = CA.info(st.id),
      b = box._pick ? +box._pick.value : 0;
    box._st = st; // a 4-D stage's select builds its slices from the newest values
    box._wt = wt;
    var nodes = [];
    Array.prototype.forEach.call(box.children, function (child) {
      nodes.push.apply(nodes, child.classList.contains('duo') ? child.children : [child]);
    });
    nodes.forEach(function (node) {
      if (node._hm) {
        node._hm.st = st;
        node._hm.wt = wt;
        CA.heatmap.update(
          node,
          matrix(st, wt, b),
          caption(doc, el(doc, 'div', opts.caption === false ? 'hc sr' : 'hc'), st, info, b, ''),
        );
        b++;
      } else if (node.className === 'scroll') {
        var t = node.firstChild,
          cap = t.caption;
        cap.replaceChildren();
        cap.className = opts.caption === false ? 'sr' : '';
        caption(doc, cap, st, info, b, '');
        fill(
          t,
          st,
          wt,
          info,
          b,
          {
            r0: 0,
            c0: 0,
            rows: t.tBodies[0].rows.length,
            cols: t.tBodies[0].rows[0].cells.length - 1,
          },
          textOf(st, opts),
        );
        var old = node.querySelector(':scope > .ck'),
          sc = st.shape.length && scale(matrix(st, wt, b), info),
          ck = sc && key(doc, sc);
        if (old && ck) old.replaceWith(ck);
        else if (old) old.remove();
        else if (ck) node.appendChild(ck);
        b++;
      } else if (node.classList.contains('nf')) node.textContent = nf;
      else if (node.className === 'after') node.textContent = afterText(st, wt);
      else if (node._update) node._update(st, wt); // anything else stage() adds (a drawing) updates itself
    });
    return true;
  }

  /** Hover/focus highlights a cell's row and column; click, Enter or Space picks it (onPick);
   *  arrow keys, Home and End move between the cells of a table (a roving tabindex). */
  function bind(root, onPick) {
    var lit = [];
    function light(cell) {
      lit.forEach(function (c) {
        c.classList.remove('hl');
      });
      lit = [];
      if (!cell) return;
      var tr = cell.parentNode,
        rows = tr.parentNode.parentNode.rows;
      for (var k = 0; k < rows.length; k++) lit.push(rows[k].cells[cell.cellIndex]);
      lit.push.apply(lit, tr.cells);
      lit.forEach(function (c) {
        c.classList.add('hl');
      });
    }
    function cellOf(e) {
      var c = e.target.closest && e.target.closest('td[data-col]');
      return c && root.contains(c) ? c : null;
    }
    // Only a mouse or keys light row and column: a tap would leave them lit (no pointer leaves).
    var touched = false;
    root.addEventListener('pointerdown', function (e) {
      touched = e.pointerType !== 'mouse';
    });
    root.addEventListener(
      'keydown',
      function () {
        touched = false;
      },
      true,
    );
    root.addEventListener('pointerover', function (e) {
      if (e.pointerType === 'mouse') light(cellOf(e));
    });
    if (CA.draw) CA.draw.bind(root);
    root.addEventListener('mouseleave', function () {
      light();
    });
    root.addEventListener('focusin', function (e) {
      light(touched ? null : cellOf(e));
    });
    root.addEventListener('click', function (e) {
      var c = cellOf(e);
      if (c) onPick(c);
    });
    root.addEventListener('keydown', function (e) {
      var cell = cellOf(e),
        key = e.key,
        row = cell && cell.parentNode,
        next,
        other;
      if (!cell) return;
      if (key === 'Enter' || key === ' ') next = cell;
      else if (key === 'ArrowRight') next = cell.nextElementSibling;
      else if (key === 'ArrowLeft') next = cell.previousElementSibling;
      else if (key === 'Home') next = row.cells[1];
      else if (key === 'End') next = row.cells[row.cells.length - 1];
      else if (key === 'ArrowDown' || key === 'ArrowUp')
        next =
          (other = row[key === 'ArrowUp' ? 'previousElementSibling' : 'nextElementSibling']) &&
          other.cells[cell.cellIndex];
      else return;
      e.preventDefault();
      if (next === cell) onPick(cell);
      else if (next && next.dataset.col) {
        // One tab stop per table: a clicked cell was not the stop, so clear whichever was.
        row.parentNode.parentNode.querySelectorAll('td[tabindex="0"]').forEach(function (c) {
          c.tabIndex = -1;
        });
        cell.tabIndex = -1;
        next.tabIndex = 0;
        next.focus();
      }
    });
  }

  /** A box whose table is wider than it says so: data-more names the edge(s) it continues past
   *  (the stylesheet fades them). hints(root) after a render or resize; watchHints(root) once. */
  function more(box) {
    var left = box.scrollLeft > 1,
      right = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
    return left && right ? 'both' : left ? 'left' : right ? 'right' : '';
  }
  function mark(box, side) {
    if (side) box.dataset.more = side;
    else delete box.dataset.more;
  }
  function hint(box) {
    mark(box, more(box));
  }
  // Every measure first, then every write: a write between two reads would force one layout
  // of the page per table.
  // keep(box), when given, picks the boxes to measure.
  function hints(root, keep) {
    var boxes = Array.prototype.filter.call(root.querySelectorAll('.scroll'), keep || Boolean),
      sides = boxes.map(more);
    boxes.forEach(function (b, k) {
      mark(b, sides[k]);
    });
  }
  function watchHints(root) {
    root.addEventListener(
      'scroll',
      function (e) {
        if (e.target.classList && e.target.classList.contains('scroll')) hint(e.target);
      },
      true,
    );
  }

  CA.render = {
    hints: hints,
    watchHints: watchHints,
    fmt: fmt,
    f32: f32,
    parseNumber: parseNumber,
    stage: stage,
    update: update,
    isBig: isBig,
    sliceName: sliceName,
    part: part,
    table: table,
    marks: marks,
    torchFormat: torchFormat,
    scale: scale,
    bind: bind,
    maxDiff: maxDiff,
    at: at,
    matrix: matrix,
    byId: byId,
  };
})(globalThis.CausalAttention || (globalThis.CausalAttention = {}));

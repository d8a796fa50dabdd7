// Per stage: the page section s (1-5), the note t shown under the title, the row and column
// axes r and c (tok: token labels, in/out: feature numbers, sum, '': the bias row) and the
// corner label k. The short property names are read by render.js and app.js.
(function (CA) {
  'use strict';
  var WEIGHTS = 'nn.Linear fills it with uniform random numbers in ±1/√d_in after the seed; row r makes output feature r.';
  var BIAS = 'The bias of that nn.Linear, added after the product.';
  var CLASS_WEIGHTS = 'The class draws its own nn.Linear weights after its own seed.';
  function note(section, text, rowAxis, colAxis) {
    var corner = rowAxis + colAxis === 'toktok' ? 'query \\ key' : (rowAxis === 'tok' ? 'token' : rowAxis || 'bias') + ' \\ ' + colAxis;
    return { s: section, t: text, r: rowAxis, c: colAxis, k: corner };
  }
  var byId = {
    inputs: note(1, 'One row per token: the embedding vector the attention layer reads.', 'tok', 'in'),
    W_query: note(1, WEIGHTS, 'out', 'in'),
    W_key: note(1, WEIGHTS, 'out', 'in'),
    W_value: note(1, WEIGHTS, 'out', 'in'),
    b_query: note(1, BIAS, '', 'out'),
    b_key: note(1, BIAS, '', 'out'),
    b_value: note(1, BIAS, '', 'out'),
    queries: note(1, 'Each token’s question: its embedding multiplied by the query weights.', 'tok', 'out'),
    keys: note(1, 'What each token offers to be matched against: embedding times key weights.', 'tok', 'out'),
    values: note(1, 'The content each token hands over once it is attended to.', 'tok', 'out'),
    attn_scores: note(1, 'Row i, column j: how well the query of token i matches the key of token j (a dot product).', 'tok', 'tok'),
    attn_weights: note(1, 'Softmax of each scaled row of scores: positive weights that sum to 1, future tokens included.', 'tok', 'tok'),
    context_vec: note(1, 'Each token’s new vector: all values mixed by its row of weights.', 'tok', 'out'),
    mask_simple: note(2, 'Lower triangle of ones: a token may look at itself and earlier tokens, never later ones.', 'tok', 'tok'),
    masked_simple: note(2, 'Multiplying by the mask zeroes the weights on later tokens. The rows no longer sum to 1.', 'tok', 'tok'),
    row_sums: note(2, 'What is left of each row after masking: the first row keeps only its own weight.', 'tok', 'sum'),
    masked_simple_norm: note(2, 'Dividing each row by its sum makes it a distribution again over the visible tokens only.', 'tok', 'tok'),
    mask: note(3, 'The opposite mask: ones mark the future cells to hide (strictly above the diagonal).', 'tok', 'tok'),
    masked: note(3, 'Future scores become −∞ before the softmax; e to the −∞ is 0, so they get no weight at all.', 'tok', 'tok'),
    attn_weights_causal: note(3, 'One softmax over the masked scores gives the same weights as the mask-then-renormalise route, in one step.', 'tok', 'tok'),
    dropout_example: note(4, 'Dropout on a matrix of ones shows its random pattern: each cell is zeroed with probability p, survivors are scaled by 1/(1−p).', 'tok', 'tok'),
    attn_weights_dropped: note(4, 'The same seed gives the same pattern on the causal weights: dropped weights become 0, kept ones are scaled up.', 'tok', 'tok'),
    batch: note(5, 'Two copies of the inputs stacked into one batch, the shape the class expects: (batch, tokens, d_in).', 'tok', 'in'),
    'ca.W_query': note(5, CLASS_WEIGHTS, 'out', 'in'),
    'ca.W_key': note(5, CLASS_WEIGHTS, 'out', 'in'),
    'ca.W_value': note(5, CLASS_WEIGHTS, 'out', 'in'),
    'ca.b_query': note(5, BIAS, '', 'out'),
    'ca.b_key': note(5, BIAS, '', 'out'),
    'ca.b_value': note(5, BIAS, '', 'out'),
    context_vecs: note(5, 'The class’s forward pass on each batch element: same inputs, same outputs.', 'tok', 'out')
  };
  CA.notes = {
    byId: byId, // heat: shaded tables; causal: hatched above the diagonal
    get: function (id) { return byId[id] || note(5, '', 'tok', 'out'); },
    heat: { attn_weights: 1, masked_simple: 1, masked_simple_norm: 1, attn_weights_causal: 1, attn_weights_dropped: 1 },
    causal: { mask_simple: 1, masked_simple: 1, masked_simple_norm: 1, mask: 1, masked: 1, attn_weights_causal: 1, attn_weights_dropped: 1 },
    rng: 'Why two dropout tables for one seed? PyTorch builds with Intel MKL (x86 Linux and Windows) take one number from the Mersenne Twister to seed MKL’s own generator, which draws the whole mask. Other builds (macOS, ARM, AMD, the book’s) draw each cell from the Mersenne Twister itself.'
  };
})(globalThis.CausalAttention || (globalThis.CausalAttention = {}));

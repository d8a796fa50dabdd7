// Per stage: section s, note t, row/col axes r/c (tok: token labels) and corner label k.
(function (CA) {
  'use strict';
  var W = 'nn.Linear fills it with uniform random numbers in ±1/√d_in after the seed; row r makes output feature r.';
  var B = 'The bias of that nn.Linear, added after the product.';
  var CW = 'The class draws its own nn.Linear weights after its own seed.';
  function n(s, t, r, c) {
    return { s: s, t: t, r: r, c: c, k: r + c === 'toktok' ? 'query \\ key' : (r === 'tok' ? 'token' : r || 'bias') + ' \\ ' + c };
  }
  var byId = {
    inputs: n(1, 'One row per token: the embedding vector the attention layer reads.', 'tok', 'in'),
    W_query: n(1, W, 'out', 'in'),
    W_key: n(1, W, 'out', 'in'),
    W_value: n(1, W, 'out', 'in'),
    b_query: n(1, B, '', 'out'),
    b_key: n(1, B, '', 'out'),
    b_value: n(1, B, '', 'out'),
    queries: n(1, 'Each token’s question: its embedding multiplied by the query weights.', 'tok', 'out'),
    keys: n(1, 'What each token offers to be matched against: embedding times key weights.', 'tok', 'out'),
    values: n(1, 'The content each token hands over once it is attended to.', 'tok', 'out'),
    attn_scores: n(1, 'Row i, column j: how well the query of token i matches the key of token j (a dot product).', 'tok', 'tok'),
    attn_weights: n(1, 'Softmax of each scaled row of scores: positive weights that sum to 1, future tokens included.', 'tok', 'tok'),
    context_vec: n(1, 'Each token’s new vector: all values mixed by its row of weights.', 'tok', 'out'),
    mask_simple: n(2, 'Lower triangle of ones: a token may look at itself and earlier tokens, never later ones.', 'tok', 'tok'),
    masked_simple: n(2, 'Multiplying by the mask zeroes the weights on later tokens. The rows no longer sum to 1.', 'tok', 'tok'),
    row_sums: n(2, 'What is left of each row after masking: the first row keeps only its own weight.', 'tok', 'sum'),
    masked_simple_norm: n(2, 'Dividing each row by its sum makes it a distribution again over the visible tokens only.', 'tok', 'tok'),
    mask: n(3, 'The opposite mask: ones mark the future cells to hide (strictly above the diagonal).', 'tok', 'tok'),
    masked: n(3, 'Future scores become −∞ before the softmax; e to the −∞ is 0, so they get no weight at all.', 'tok', 'tok'),
    attn_weights_causal: n(3, 'One softmax over the masked scores gives the same weights as the mask-then-renormalise route, in one step.', 'tok', 'tok'),
    dropout_example: n(4, 'Dropout on a matrix of ones shows its random pattern: each cell is zeroed with probability p, survivors are scaled by 1/(1−p).', 'tok', 'tok'),
    attn_weights_dropped: n(4, 'The same seed gives the same pattern on the causal weights: dropped weights become 0, kept ones are scaled up.', 'tok', 'tok'),
    batch: n(5, 'Two copies of the inputs stacked into one batch, the shape the class expects: (batch, tokens, d_in).', 'tok', 'in'),
    'ca.W_query': n(5, CW, 'out', 'in'),
    'ca.W_key': n(5, CW, 'out', 'in'),
    'ca.W_value': n(5, CW, 'out', 'in'),
    'ca.b_query': n(5, B, '', 'out'),
    'ca.b_key': n(5, B, '', 'out'),
    'ca.b_value': n(5, B, '', 'out'),
    context_vecs: n(5, 'The class’s forward pass on each batch element: same inputs, same outputs.', 'tok', 'out')
  };
  CA.notes = {
    byId: byId, // heat: shaded tables; causal: hatched above the diagonal
    get: function (id) { return byId[id] || n(5, '', 'tok', 'out'); },
    heat: { attn_weights: 1, masked_simple: 1, masked_simple_norm: 1, attn_weights_causal: 1, attn_weights_dropped: 1 },
    causal: { mask_simple: 1, masked_simple: 1, masked_simple_norm: 1, mask: 1, masked: 1, attn_weights_causal: 1, attn_weights_dropped: 1 },
    rng: 'Why two dropout tables for one seed? PyTorch builds with Intel MKL (x86 Linux and Windows) take one number from the Mersenne Twister to seed MKL’s own generator, which draws the whole mask. Other builds (macOS, ARM, AMD, the book’s) draw each cell from the Mersenne Twister itself.'
  };
})(globalThis.CausalAttention || (globalThis.CausalAttention = {}));

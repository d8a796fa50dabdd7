// Exercise 3.3's shards (page/pool.js asks for them, then puts the replies together). The batch
// is torch.stack((inputs, inputs)) and a pooled run draws no dropout (page/runner.js's plan), so
// batch element 2's every output is element 1's, bit for bit: the same rows, weights and sums.
// The Workers compute element 1 alone, its heads split among them; page/pool.js puts its rows
// in both.
export var B = 2, // the batch: torch.stack((inputs, inputs))
  PARAMETER = /^mha\.(W_|b_|out_proj)/;

/** The shards [0, 1, h0, h1] for n Workers: batch element 1's H heads in min(n, H) groups. */
export function shards(n, H) {
  var out = [],
    g = Math.max(1, Math.min(H, n));
  for (var k = 0; k < g; k++)
    out.push([0, 1, Math.floor((k * H) / g), Math.floor(((k + 1) * H) / g)]);
  return out;
}

// The shard of n that brings parameter id (mha.W_query, mha.b_key, ..., mha.out_proj.bias).
function dealt(id, n) {
  return n < 2 || /out_proj/.test(id)
    ? 0
    : 1 + (['query', 'key', 'value'].indexOf(id.slice(6)) % (n - 1)); // mha.W_query: 'query'
}

/** Plan p's shards ({c: the resolved config, ids: the stages asked for, n: the pool's size})
 *  asked for: ask(i, msg) is Worker i's reply to msg (page/runner.js's ask). Returns {list: the
 *  shards, runs: their replies (promises)}; with one shard, it projects its rows itself. */
export function askShards(ask, config, p) {
  var list = shards(p.n, p.c.num_heads),
    n = list.length,
    asks = new Set(p.ids), // the stages asked of the shards: those asked for, each once
    vecs = asks.has('mha.context_vecs');
  // out_proj's parameters too when its rows are projected in blocks (page/pool.js) by its weight
  // and bias, which the first shard brings, shown or not: no Worker draws the module's weights
  // again for them.
  if (n > 1 && vecs) asks.add('mha.out_proj.weight').add('mha.out_proj.bias');
  return {
    list: list,
    runs: list.map(function (sh, i) {
      // The parameters (2.4 MB each to copy out of the heap at GPT-2's size, into fresh memory)
      // dealt over the shards: out_proj's (mha.out_proj.*) with head 1's weights (4 MB), the
      // projections' (mha.W_query, mha.b_key, ...) over the others.
      var ids = Array.from(asks).filter(function (id) {
          return PARAMETER.test(id) && dealt(id, n) === i;
        }),
        options = { stages: ids, shard: sh };
      if (asks.has('mha.context_vec') || (vecs && n > 1)) ids.push('mha.context_vec');
      if (vecs && n < 2) ids.push('mha.context_vecs');
      // Head 1's weights (the head shown first; its title and code) with the first shard, which
      // keeps that head's alone (api.run's weightHeads); the others are computed again when a
      // reader asks.
      if (!i && asks.has('mha.attn_weights')) {
        ids.push('mha.attn_weights');
        options.weightHeads = 1;
      }
      return ask(i, { config: config, options: options });
    }),
  };
}

// Exercise 3.3's shards, posted to the pool as soon as the run is asked for (page/runner.js):
// the rest of the pool's steps (page/pool.js, in app-later.js) is needed only when the replies
// come. The batch is torch.stack((inputs, inputs)) and a pooled run draws no dropout
// (runner.js's plan), so batch element 2's every output is element 1's, bit for bit: the same
// rows, weights and sums. The Workers compute element 1 alone, its heads split among them;
// page/pool.js puts its rows in both.
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

// The shard of n that brings parameter id.
function carrier(id, n) {
  if (n === 1 || /^mha\.out_proj/.test(id)) return 0;
  return 1 + (['query', 'key', 'value'].indexOf(id.slice(6)) % (n - 1)); // mha.W_query: query
}

/** Plan p's shards ({c: the resolved config, ids: the stages asked for, n: the pool's size})
 *  posted at once: post(i, msg) is Worker i's reply to msg. Returns {list: the shards, runs:
 *  their replies (promises), every: whether each shard has every head (then it projects its
 *  rows itself)}. */
export function askShards(post, config, p) {
  var H = p.c.num_heads,
    list = shards(p.n, H),
    every = list.length === 1,
    want = {};
  p.ids.forEach(function (id) {
    want[id] = true;
  });
  // The weights: head 1 (the head shown first; its title and code) from the first shard, which
  // keeps that head's weights alone (api.run's weightHeads); the others are computed again
  // when a reader asks. The parameters (2.4 MB each to copy out of the heap at GPT-2's size,
  // into fresh memory) dealt over the shards: out_proj's with head 1's weights (4 MB), the
  // projections' over the others.
  var runs = list.map(function (sh, i) {
    var ids = p.ids.filter(function (id) {
        return PARAMETER.test(id) && carrier(id, list.length) === i;
      }),
      options = { stages: ids, shard: sh };
    if (want['mha.context_vec'] || (want['mha.context_vecs'] && !every))
      ids.push('mha.context_vec');
    if (want['mha.context_vecs'] && every) ids.push('mha.context_vecs');
    if (!i && want['mha.attn_weights']) {
      ids.push('mha.attn_weights');
      options.weightHeads = 1;
    }
    var run = post(i, { config: config, options: options });
    run.catch(function () {}); // page/pool.js reads it (the page's module may still be loading)
    return run;
  });
  return { list: list, runs: runs, every: every, want: want };
}

// The JS API of causal-attention.js: the book's chapter 3 walkthrough (§3.3 to §3.6) computed by the C++ core
// in WebAssembly. In a browser the script defines the global `CausalAttention`; in Node,
// `require('./causal-attention.js')` returns the same object.

/** Which PyTorch CPU implementation draws dropout's Bernoulli mask. */
export type DropoutRng = 'default' | 'mkl';

/** `{randn: [T, D], seed: S}` means `torch.manual_seed(S); torch.randn(T, D)`. */
export interface RandnInputs {
  randn: [number, number];
  seed?: Seed;
}

/** A torch.manual_seed argument in [-2^63, 2^64-1]; a bigint keeps seeds above 2^53 exact. */
export type Seed = number | bigint;

/** Every key is optional; the defaults are the book's (see docs/cli.md). */
export interface Config {
  /** T×d_in embeddings (default: the book's 6×3; rows may be typed arrays), or random ones. */
  inputs?: Array<number[] | ArrayLike<number>> | RandnInputs;
  /** T row labels (default: "Your journey starts with one step", then x7, x8, ...). */
  tokens?: string[];
  /** Width of queries, keys and values (default 2). */
  d_out?: number;
  /** §3.3/§3.4's query token, 0..T-1 (default 1, "journey"; 0 when T = 1). */
  query_token?: number;
  /** torch.manual_seed before SelfAttention_v1's torch.rand weights (default 123). */
  seed_v1?: Seed;
  /** Heads of §3.6's two multi-head modules, 1..128 (default 2). MultiHeadAttention's stages
   *  exist only when it divides d_out. */
  num_heads?: number;
  /** nn.Linear(..., bias=qkv_bias) (default false). */
  qkv_bias?: boolean;
  /** Divide scores by sqrt(d_k) before softmax (default true). */
  scale?: boolean;
  /** torch.manual_seed before SelfAttention_v2 (default 789). */
  seed_weights?: Seed;
  /** torch.manual_seed before each dropout stage (default 123). */
  seed_dropout?: Seed;
  /** Dropout probability of the dropout demo, in [0, 1] (default 0.5). */
  dropout?: number;
  /** torch.manual_seed before CausalAttention (default 123). */
  seed_class?: Seed;
  /** CausalAttention's own dropout, in [0, 1] (default 0). */
  class_dropout?: number;
  /** CausalAttention's mask buffer size, >= T (default T). */
  context_length?: number;
  /** Dropout's generator path (default 'default', the book's). */
  rng?: DropoutRng;
  /** Training mode; false = .eval(), dropout is the identity (default true). */
  train?: boolean;
}

/** A seed as the core resolved it: a number up to 2^53, a bigint beyond (exact). */
export type ResolvedSeed = number | bigint;

/** A Config with every key present, as the core resolved it (inputs as the float32 values
 *  used; seeds beyond 2^53 as bigint, so they are exact). */
export interface ResolvedConfig {
  inputs: number[][] | { randn: [number, number]; seed: ResolvedSeed };
  tokens: string[];
  d_out: number;
  query_token: number;
  seed_v1: ResolvedSeed;
  num_heads: number;
  qkv_bias: boolean;
  scale: boolean;
  seed_weights: ResolvedSeed;
  seed_dropout: ResolvedSeed;
  dropout: number;
  seed_class: ResolvedSeed;
  class_dropout: number;
  context_length: number;
  rng: DropoutRng;
  train: boolean;
}

/** One named tensor of the walkthrough. */
export interface Stage {
  /** The stage id, the same in the CLI, the JSON and the page, e.g. 'attn_weights_causal'. */
  id: string;
  /** A short human title. */
  title: string;
  /** The PyTorch line that computes it, with this configuration's values. */
  code: string;
  /** PyTorch's shape, e.g. [6, 6], [2, 6, 2], [2, 2, 6, 6] or [] for a 0-D scalar. */
  shape: number[];
  /** Row-major float32 values: a copy, owned by JS. */
  data: Float32Array;
}

export interface Walkthrough {
  config: ResolvedConfig;
  stages: Stage[];
}

/** What a stage's numbers are; the page picks its colours and drawings from it. */
export type StageKind = 'values' | 'weights' | 'scores' | 'probabilities' | 'mask';

/** The part of the program that computes a stage: asking for a stage runs its part only. */
export type Part =
  | 'inputs'
  | 'simple'
  | 'v1'
  | 'sa'
  | 'wrapper'
  | 'mha'
  | 'qkv'
  | 'einsum'
  | 'flash'
  | 'torchmha'
  | 'kv';

/** A stage that another reads: element [i, j] reads its row (`axis` 'row') or column ('col')
 *  number i or j (`index`); both '' when it is read whole (or in a way no row or column says:
 *  3-D and 4-D stages, the query token's row, a bias). */
export interface Operand {
  id: StageId;
  axis: 'row' | 'col' | '';
  index: 'i' | 'j' | '';
}

/** Every fact about a stage, from the core's one table (also `causal-attention --list-stages
 *  --format json`). */
export interface StageInfo {
  id: StageId;
  /** The id of its section (see `sections`). */
  section: string;
  part: Part;
  /** The stages it reads, all earlier in walkthrough order. */
  operands: Operand[];
  title: string;
  /** The PyTorch line, `{name}` standing for a configuration value. */
  code: string;
  /** Row and column axes: 'tok' token labels, 'in' | 'out' | 'dim' feature indices, 'hd'
   *  head_dim and 'hout' num_heads·d_out feature indices, 'head' one row per head, 'sum',
   *  'bias' (a bias's single row), '' (a single unlabelled row; both '' for a 0-D scalar).
   *  3-D stages have a leading batch dimension (the wrapper's stacked weights: a head), 4-D
   *  ones (batch, head). */
  rows: string;
  cols: string;
  kind: StageKind;
  /** Future cells (column after row) are masked. */
  causal: boolean;
  /** The output of a dropout: the id of the stage whose zeros mark its dropped cells (its own
   *  id: its zeros outside the mask), else ''. */
  dropout: string;
  /** Exists only when qkv_bias is set. */
  bias: boolean;
  /** One or two sentences on what it shows. */
  note: string;
}

export interface SectionInfo {
  /** The page's anchor, e.g. 's3'. */
  id: string;
  /** The book's section number, e.g. '3.5.1'. */
  number: string;
  title: string;
  intro: string;
}

export interface Limits {
  max_tokens: number;
  max_dim: number;
  /** Bytes of one token label. */
  max_token_length: number;
  /** Rows and columns a table shows; bigger stages are drawn as a heatmap. */
  max_shown: number;
}

/** How a setting's value is read: `inputs` (Config['inputs']), `strings` (one per token),
 *  `integer`, `seed` and `probability` (numbers within min..max), `boolean`, `choice` (one of
 *  `choices`). */
export type SettingType =
  | 'inputs'
  | 'strings'
  | 'integer'
  | 'seed'
  | 'probability'
  | 'boolean'
  | 'choice';

/** One configuration key, from the core's settings table (also `causal-attention
 *  --list-settings --format json`). */
export interface Setting {
  key: keyof Config;
  type: SettingType;
  /** The accepted range, both ends included (integer, seed, probability; else null); a seed's
   *  ends are bigints. query_token and context_length are also bounded by T. */
  min: number | bigint | null;
  max: number | bigint | null;
  /** The book's value, resolved (query_token 1, context_length 6, the six tokens). */
  default: ResolvedConfig[keyof ResolvedConfig];
  /** The default follows the inputs (query_token, context_length, tokens). */
  derived: boolean;
  /** Among the few the widget offers with controls="compact". */
  compact: boolean;
  /** A choice's options: the value and a label that starts with it. */
  choices: { value: string; label: string }[];
  /** The heading the page's form puts it under. */
  group: string;
  /** Its place in the page's form and the widget's controls (0 first). */
  order: number;
  label: string;
  help: string;
}

/** A named configuration of the core's table ('book', 'gpt2': exercise 3.3). */
export interface Preset {
  name: string;
  description: string;
  config: Config;
  /** The stages it shows when none are asked for ([]: every stage). */
  stages: string[];
}

/** Stage ids, in walkthrough order (bias stages only with qkv_bias; mha.* only when num_heads
 *  divides d_out). */
export type StageId =
  | 'inputs'
  | 'simple.attn_scores_q' | 'simple.attn_weights_q_tmp' | 'simple.attn_weights_q_naive'
  | 'simple.attn_weights_q' | 'simple.context_vec_q'
  | 'simple.attn_scores' | 'simple.attn_weights' | 'simple.all_context_vecs'
  | 'v1.W_query' | 'v1.W_key' | 'v1.W_value' | 'v1.query_q' | 'v1.keys' | 'v1.values'
  | 'v1.attn_score_qq' | 'v1.attn_scores_q' | 'v1.attn_weights_q' | 'v1.context_vec_q'
  | 'v1.context_vecs' | 'v1_from_v2.context_vecs'
  | 'W_query' | 'W_key' | 'W_value' | 'b_query' | 'b_key' | 'b_value'
  | 'queries' | 'keys' | 'values' | 'attn_scores' | 'attn_weights' | 'context_vec'
  | 'mask_simple' | 'masked_simple' | 'row_sums' | 'masked_simple_norm'
  | 'mask' | 'masked' | 'attn_weights_causal' | 'dropout_example' | 'attn_weights_dropped'
  | 'batch' | 'ca.W_query' | 'ca.W_key' | 'ca.W_value' | 'ca.b_query' | 'ca.b_key' | 'ca.b_value'
  | 'context_vecs'
  | 'mhaw.W_query' | 'mhaw.W_key' | 'mhaw.W_value' | 'mhaw.b_query' | 'mhaw.b_key' | 'mhaw.b_value'
  | 'mhaw.context_vecs'
  | 'mha.W_query' | 'mha.W_key' | 'mha.W_value' | 'mha.b_query' | 'mha.b_key' | 'mha.b_value'
  | 'mha.out_proj.weight' | 'mha.out_proj.bias' | 'mha.queries' | 'mha.keys' | 'mha.values'
  | 'mha.attn_scores' | 'mha.attn_weights' | 'mha.context_vec' | 'mha.context_vecs'
  | 'qkv.weight' | 'qkv.bias' | 'qkv.proj.weight' | 'qkv.proj.bias' | 'qkv.qkv'
  | 'qkv.context_vecs'
  | 'einsum.W_query' | 'einsum.W_key' | 'einsum.W_value' | 'einsum.bias_q' | 'einsum.bias_k'
  | 'einsum.bias_v' | 'einsum.out_proj.weight' | 'einsum.out_proj.bias' | 'einsum.scores'
  | 'einsum.context_vecs' | 'einsum.copied.context_vecs'
  | 'flash.running_max' | 'flash.running_sum' | 'flash.context_vec' | 'flash.context_vecs'
  | 'flash.difference'
  | 'torchmha.in_proj_weight' | 'torchmha.out_proj.weight' | 'torchmha.proj.weight'
  | 'torchmha.proj.bias' | 'torchmha.context_vecs' | 'torchmha.attn_weights'
  | 'torchmha.copied.context_vecs'
  | 'kv.queries' | 'kv.cache_k' | 'kv.cache_v' | 'kv.mask' | 'kv.attn_scores' | 'kv.attn_weights'
  | 'kv.context_vec' | 'kv.context_vecs';

export interface RunOptions {
  /** Compute only what these stages need and return only them (walkthrough order; [] returns
   *  the resolved configuration alone). An unknown id, or an mha.* stage when num_heads does
   *  not divide d_out, throws. */
  stages?: StageId[];
  /** Start from a preset's configuration (`config`'s keys win) and, without `stages`, show
   *  its stages. */
  preset?: string;
  /** [b0, b1, h0, h1]: MultiHeadAttention's stages for batch elements b0..b1-1 and heads
   *  h0..h1-1 alone, with the whole run's bits (e.g. mha.attn_weights (b1-b0, h1-h0, T, T));
   *  mha.context_vecs only when every head is in. Refused when the run draws dropout. */
  shard?: [number, number, number, number];
  /** With `shard` (or alone): mha.attn_weights of batch element b0's first n heads only,
   *  (1, n, T, T) with the whole run's bits, the shard's other heads computed without keeping
   *  their weights (a Worker's shard brings the head a page shows first). 1 to the shard's
   *  heads; refused when the run draws dropout. */
  weightHeads?: number;
}

/** What a run costs (the core's one cost model, ca::run_cost), without running it. */
export interface RunCost {
  /** Peak bytes of the run (a run needing more than 1 GiB is refused). */
  bytes: number;
  /** api.run's time in units of about 5.2 ns (Chromium, an idle 2-core x86-64), of the
   *  parts the stages asked for compute. */
  work: number;
  /** 4·T·(T + d_in)·d_out: the passes' products. */
  multiply_adds: number;
}

export interface Api {
  /** Every stage's facts, in walkthrough order. */
  readonly stages: readonly StageInfo[];
  /** The sections the stages belong to, in order. */
  readonly sections: readonly SectionInfo[];
  readonly limits: Limits;
  /** What a control shows before the reader picks a value. */
  readonly defaults: { randn_seed: number };
  /** Every configuration key in the order of ResolvedConfig: type, range, default, label. */
  readonly settings: readonly Setting[];
  /** The row labels of n tokens when none are given. */
  defaultTokens(n: number): string[];
  /** Runs the walkthrough. Throws an Error with the CLI's message for an invalid config, and
   *  for one that cannot be read (a getter that throws) or exceeds the reader's limits (nested
   *  deeper than 8 levels, arrays of more than 1024 elements, 4160 other elements and keys in
   *  all, 1024 × 1024 numbers, 106,496 bytes of strings): a cyclic or huge object is refused
   *  within milliseconds. */
  run(config?: Config, options?: RunOptions): Walkthrough;
  /** The configuration as a Jupyter notebook (.ipynb JSON text, nbformat 4): the book's
   *  classes, then every stage as a code cell that prints it, in walkthrough order, each with
   *  metadata {stage: id}, under a Markdown cell per section. The CLI's --format ipynb. Throws
   *  like run() for an invalid config. */
  notebook(config?: Config): string;
  /** What run(config, options) would cost: the parts of the program the stages asked for
   *  need (every stage without options). Throws like run() for an invalid config, options or
   *  stage id; a run too big to compute still has a cost. */
  cost(config?: Config, options?: RunOptions): RunCost;
  /** Stage mha.context_vecs, (n, d_out), for n rows of the configuration's mha.context_vec
   *  (n × d_out values): out_proj on them by its weight (d_out × d_out) and bias (d_out), the
   *  data of stages mha.out_proj.weight and mha.out_proj.bias, mha.context_vecs' rows bit for
   *  bit (with `shard`, how the page splits exercise 3.3 over Workers). */
  project(config: Config, rows: Float32Array, weight: Float32Array, bias: Float32Array): Stage;
  /** The core's presets by name. */
  readonly presets: Readonly<Record<string, Preset>>;
  /** Every stage id in walkthrough order, bias stages included. */
  readonly stageIds: readonly string[];
  /** Bytes of the WebAssembly heap in use by malloc (for leak checks). */
  heapInUse(): number;
  /** Size of the WebAssembly memory in bytes. */
  memoryBytes(): number;
}

/** Loads the module once; every call returns the same promise. */
export function load(): Promise<Api>;

/** `<causal-attention-demo>`, defined when the script runs in a browser. Its attributes:
 *  `stages` (ids, comma-separated), `preset` ("book"), `config` (JSON of a Config), `controls`
 *  ("none" | "compact" | "full"), `theme` ("inherit", the default: the host's font and colours;
 *  "auto" | "light" | "dark"), `caption` ("on" | "off"). Styled from outside through the
 *  --ca-font, --ca-font-size, --ca-fg, --ca-bg, --ca-accent and --ca-border properties and
 *  ::part(table), ::part(caption), ::part(controls). Fires `ca-render` and `ca-export`. */
export type Theme = 'inherit' | 'auto' | 'light' | 'dark';
declare global {
  interface HTMLElementTagNameMap {
    'causal-attention-demo': HTMLElement;
  }
}
/** JSON with integers beyond 2^53 as bigint: what the page, the widget's `config` and
 *  embed.html use, so that big seeds stay exact. */
export const json: {
  parse(text: string): unknown;
  stringify(value: unknown): string;
};

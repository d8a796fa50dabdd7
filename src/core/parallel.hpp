// Work split over threads without changing a bit: every output is computed by one thread, in
// the order it is computed alone, so the split only changes who computes it. A small pool of
// std::threads, started on first use; the WebAssembly build has no threads (the module ships
// without pthreads) and runs every loop inline.
#pragma once

#include <cstddef>
#include <type_traits>

namespace ca {

// The threads a run may use: natively all the cores unless set (like torch.set_num_threads),
// always 1 in WebAssembly. set_num_threads(0) restores the default; n is capped at 256.
int num_threads();
void set_num_threads(int n);

// How many workers a loop of n items may use: min(num_threads(), n), or 1 inside a
// parallel_for (nested loops run inline).
int parallel_workers(std::size_t n);

// For benchmarks (native): while a profile is set, each loop the pool runs adds its slowest
// worker's CPU time in its items to `critical_ms` and every worker's to `busy_ms` (loops run
// inline add nothing): a run's CPU time minus busy_ms, plus critical_ms, is its wall time on
// idle cores with no wake-up cost. `wake_ms`: the wall time from each loop's start to the last
// joining worker's (0 when none joined: the caller claimed every item first). nullptr stops.
struct LoopProfile {
  double critical_ms = 0, busy_ms = 0, wake_ms = 0;
  long loops = 0;
};
void profile_loops(LoopProfile* profile);

namespace detail {
// One item of a loop: calls the loop's function object `f` on item i.
using Item = void (*)(void* f, std::size_t i, int worker);
void parallel_for(std::size_t n, int workers, Item item, void* f);
}  // namespace detail

// Calls f(i, worker) once for each i in [0, n), on at most `workers` threads (the caller's is
// worker 0; worker < workers indexes per-worker scratch), and returns when all are done. Items
// are claimed in order, one at a time. Inline when workers <= 1, when nested, or while another
// thread's loop has the pool. The first exception f throws is rethrown here once every worker
// has stopped. A template, so that WebAssembly compiles each loop to a plain loop.
template <class F>
void parallel_for(std::size_t n, int workers, F&& f) {
#ifdef __EMSCRIPTEN__
  (void)workers;
  for (std::size_t i = 0; i < n; ++i) f(i, 0);
#else
  using Fn = std::remove_reference_t<F>;
  detail::parallel_for(
      n, workers, [](void* p, std::size_t i, int worker) { (*static_cast<Fn*>(p))(i, worker); },
      const_cast<void*>(static_cast<const void*>(&f)));
#endif
}
// The same on parallel_workers(n) workers.
template <class F>
void parallel_for(std::size_t n, F&& f) {
  parallel_for(n, parallel_workers(n), f);
}

}  // namespace ca

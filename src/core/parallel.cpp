#include "parallel.hpp"

#include <algorithm>
#include <atomic>
#include <ctime>

#ifndef __EMSCRIPTEN__
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace ca {

#ifdef __EMSCRIPTEN__

int num_threads() { return 1; }
void set_num_threads(int) {}
int parallel_workers(std::size_t) { return 1; }
void profile_loops(LoopProfile*) {}

#else

namespace {

constexpr int kMaxThreads = 256;
std::atomic<int> g_threads{0};       // 0: the hardware's count
thread_local bool t_inside = false;  // this thread is running a parallel_for's items
std::atomic<LoopProfile*> g_profile{nullptr};

double clock_ms(clockid_t clock) {
  timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// Threads that wait for a loop, run its items with the caller, and wait again. One loop at a
// time: `busy_` is held by the caller for its duration.
class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    start_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  // false (nothing run) when another thread's loop has the pool.
  bool run(std::size_t n, int workers, detail::Item item, void* f) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy) return false;
    while (static_cast<int>(threads_.size()) < workers - 1) {
      const int index = static_cast<int>(threads_.size()) + 1;
      threads_.emplace_back([this, index] { serve(index); });
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      item_ = item;
      f_ = f;
      n_ = n;
      next_ = 0;
      workers_ = workers;
      profile_ = g_profile;
      if (profile_) {
        cpu_.assign(workers, 0.0);
        woke_.assign(workers, 0.0);
        opened_ = clock_ms(CLOCK_MONOTONIC);
      }
      open_ = true;
      error_ = nullptr;
      ++generation_;
    }
    start_.notify_all();
    items(0);
    // Every item is claimed: a worker not yet awake (a busy machine) is not waited for, only
    // those still running an item.
    std::unique_lock<std::mutex> lock(mutex_);
    open_ = false;
    done_.wait(lock, [this] { return active_ == 0; });
    if (LoopProfile* p = profile_) {
      double critical = 0, wake = 0;
      for (int w = 0; w < workers; ++w) {
        critical = std::max(critical, cpu_[w]);
        wake = std::max(wake, woke_[w]);
        p->busy_ms += cpu_[w];
      }
      p->critical_ms += critical;
      p->wake_ms += wake;
      ++p->loops;
    }
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
  // Claims items until none is left; the first exception stops the others' claims too.
  void items(int worker) {
    double t0 = 0;
    if (profile_) {
      t0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
      if (worker > 0) woke_[worker] = clock_ms(CLOCK_MONOTONIC) - opened_;
    }
    t_inside = true;
    for (std::size_t i; (i = next_.fetch_add(1)) < n_;) {
      try {
        item_(f_, i, worker);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
        next_ = n_;
      }
    }
    t_inside = false;
    if (profile_) cpu_[worker] = clock_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
  }

  void serve(int index) {
    unsigned seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (!open_ || index >= workers_) continue;  // over, or a smaller loop: not one of its workers
      ++active_;
      lock.unlock();
      items(index);
      lock.lock();
      if (--active_ == 0) done_.notify_one();
    }
  }

  std::mutex busy_, mutex_;
  std::condition_variable start_, done_;
  std::vector<std::thread> threads_;
  detail::Item item_ = nullptr;
  void* f_ = nullptr;
  std::size_t n_ = 0;
  std::atomic<std::size_t> next_{0};
  int workers_ = 0, active_ = 0;  // active_: workers inside the loop
  bool open_ = false;             // the loop takes workers in
  unsigned generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  LoopProfile* profile_ = nullptr;  // g_profile when the loop started
  std::vector<double> cpu_, woke_;  // each worker's CPU time in the loop's items, its start
  double opened_ = 0;               // the loop's start (monotonic ms)
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

int num_threads() {
  const int n = g_threads;
  if (n > 0) return n;
  return std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kMaxThreads);
}

void set_num_threads(int n) { g_threads = std::clamp(n, 0, kMaxThreads); }

void profile_loops(LoopProfile* profile) { g_profile = profile; }

int parallel_workers(std::size_t n) {
  if (t_inside) return 1;
  return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(num_threads()), n));
}

void detail::parallel_for(std::size_t n, int workers, Item item, void* f) {
  workers =
      static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(workers, 1)), n));
  if (workers > 1 && !t_inside && pool().run(n, workers, item, f)) return;
  for (std::size_t i = 0; i < n; ++i) item(f, i, 0);  // what f calls may still split its own work
}

#endif

}  // namespace ca

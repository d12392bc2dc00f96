#include "ThreadPool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <string>

#include <unistd.h>

namespace npc {

namespace {
// Set while a thread runs chunks, so nested parallel_for runs inline instead of
// waiting on workers that are busy with the outer loop (deadlock).
thread_local bool t_in_parallel = false;

// Several chunks per thread let fast threads pick up slack from slow ones (the
// machine is shared); more would only add scheduling overhead.
constexpr int64_t kChunksPerThread = 4;

// How long a worker polls for the next loop, and the caller for the last chunk, before
// blocking: a sleeping thread costs a futex wake-up (tens of microseconds with 16
// workers), which is most of a short kernel's time when calls come back to back.
constexpr auto kSpin = std::chrono::microseconds(50);

template <typename Ready> bool spin_until(Ready ready) {
  auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (ready())
      return true;
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > until)
      return false;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

int env_threads() {
  if (const char* s = std::getenv("NPC_NUM_THREADS")) {
    char* end = nullptr;
    long v = std::strtol(s, &end, 10);
    if (end != s && v > 0)
      return static_cast<int>(std::min<long>(v, 1024));
  }
  unsigned hc = std::thread::hardware_concurrency();
  return hc == 0 ? 1 : static_cast<int>(hc);
}
} // namespace

struct ThreadPool::Job {
  const Body* body = nullptr;
  int64_t n = 0, grain = 1, nchunks = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::exception_ptr error;
  std::mutex done_mutex;
  std::condition_variable done_cv;
};

ThreadPool::ThreadPool(int num_threads) { start_workers(std::max(1, num_threads)); }

ThreadPool::~ThreadPool() {
  if (forked())
    abandon_workers();
  else
    stop_workers();
}

bool ThreadPool::forked() const { return static_cast<long>(getpid()) != owner_; }

void ThreadPool::abandon_workers() {
  // A child of fork() inherits the thread objects but not the threads: joining them
  // would wait forever, and destroying a joinable std::thread terminates. They are
  // moved to a vector that is never destroyed.
  new std::vector<std::thread>(std::move(workers_));
  workers_.clear();
}

ThreadPool& ThreadPool::global() {
  // Never destroyed: at exit the workers are waiting on wake_, and in a child of fork()
  // (which has the condition variable's waiters but not their threads) destroying it
  // waits for them forever. The process's end takes the threads.
  static ThreadPool* pool = new ThreadPool(env_threads());
  return *pool;
}

void ThreadPool::set_num_threads(int n) {
  if (forked()) { // the parent's locks may be held by threads this process lacks
    abandon_workers();
    start_workers(std::max(1, n));
    return;
  }
  std::lock_guard<std::mutex> run(run_mutex_);
  stop_workers();
  start_workers(std::max(1, n));
}

void ThreadPool::start_workers(int n) {
  owner_ = static_cast<long>(getpid());
  num_threads_.store(n);
  stop_ = false;
  workers_.reserve(n - 1);
  for (int i = 0; i + 1 < n; ++i)
    workers_.emplace_back([this] { worker_loop(); });
}

void ThreadPool::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_)
    t.join();
  workers_.clear();
}

int64_t ThreadPool::num_chunks(int64_t n, int64_t grain, int threads) {
  if (n <= 0)
    return 0;
  grain = std::max<int64_t>(grain, 1);
  int64_t units = n / grain + (n % grain != 0);
  return std::max<int64_t>(1, std::min<int64_t>(units, kChunksPerThread * std::max(threads, 1)));
}

void ThreadPool::chunk_range(int64_t n, int64_t grain, int64_t nchunks, int64_t c, int64_t& begin,
                             int64_t& end) {
  grain = std::max<int64_t>(grain, 1);
  int64_t units = n / grain + (n % grain != 0);
  // Units spread evenly over chunks; 128-bit product so huge n cannot overflow.
  auto split = [&](int64_t i) {
    return static_cast<int64_t>(static_cast<__int128>(units) * i / nchunks) * grain;
  };
  begin = std::min(split(c), n);
  end = std::min(split(c + 1), n);
}

void ThreadPool::run_chunks(Job& job) {
  bool was = t_in_parallel;
  t_in_parallel = true;
  for (;;) {
    int64_t c = job.next.fetch_add(1, std::memory_order_relaxed);
    if (c >= job.nchunks)
      break;
    if (!job.failed.load(std::memory_order_relaxed)) {
      try {
        int64_t b, e;
        chunk_range(job.n, job.grain, job.nchunks, c, b, e);
        (*job.body)(b, e, static_cast<int>(c));
      } catch (...) {
        std::lock_guard<std::mutex> lock(job.error_mutex);
        if (!job.error)
          job.error = std::current_exception();
        job.failed.store(true, std::memory_order_relaxed);
      }
    }
    if (job.done.fetch_add(1, std::memory_order_acq_rel) + 1 == job.nchunks) {
      std::lock_guard<std::mutex> lock(job.done_mutex);
      job.done_cv.notify_all();
    }
  }
  t_in_parallel = was;
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!stop_ && generation_ == seen) {
        lock.unlock();
        spin_until([&] { return published_.load(std::memory_order_acquire) != seen; });
        lock.lock();
      }
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_)
        return;
      seen = generation_;
      job = job_; // shared: the job outlives the caller's wait if we are late
    }
    if (job)
      run_chunks(*job);
  }
}

void ThreadPool::parallel_for(int64_t n, int64_t grain, const Body& body) {
  if (n <= 0)
    return;
  if (t_in_parallel || num_threads() == 1 || num_chunks(n, grain) == 1 || forked()) {
    // Same chunks as the parallel path, in order, on this thread.
    int64_t nchunks = num_chunks(n, grain);
    bool was = t_in_parallel;
    t_in_parallel = true;
    struct Restore {
      bool v;
      ~Restore() { t_in_parallel = v; }
    } restore{was};
    for (int64_t c = 0; c < nchunks; ++c) {
      int64_t b, e;
      chunk_range(n, grain, nchunks, c, b, e);
      body(b, e, static_cast<int>(c));
    }
    return;
  }
  std::lock_guard<std::mutex> run(run_mutex_);
  auto job = std::make_shared<Job>();
  job->body = &body;
  job->n = n;
  job->grain = grain;
  job->nchunks = num_chunks(n, grain);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = job;
    ++generation_;
    published_.store(generation_, std::memory_order_release);
  }
  wake_.notify_all();
  run_chunks(*job);
  {
    spin_until([&] { return job->done.load(std::memory_order_acquire) == job->nchunks; });
    std::unique_lock<std::mutex> lock(job->done_mutex);
    job->done_cv.wait(lock,
                      [&] { return job->done.load(std::memory_order_acquire) == job->nchunks; });
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_.reset(); // workers still holding it see next >= nchunks and drop it
  }
  if (job->error)
    std::rethrow_exception(job->error);
}

} // namespace npc

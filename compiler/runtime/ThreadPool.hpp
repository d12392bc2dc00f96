#pragma once
// A persistent pool of workers for data-parallel loops. The caller takes part in
// every loop, chunk boundaries are a pure function of (n, grain, thread count) so
// per-chunk partial results (reductions) are reproducible run to run.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace npc {

class ThreadPool {
public:
  using Body = std::function<void(int64_t begin, int64_t end, int chunk)>;

  // num_threads counts the caller: a pool of N starts N-1 workers.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Sized by NPC_NUM_THREADS, else std::thread::hardware_concurrency().
  static ThreadPool& global();

  int num_threads() const { return num_threads_.load(std::memory_order_relaxed); }
  // Joins the workers and starts new ones; waits for a running loop to finish.
  void set_num_threads(int n);

  // Number of chunks parallel_for(n, grain, ...) uses with this pool's size.
  int64_t num_chunks(int64_t n, int64_t grain) const { return num_chunks(n, grain, num_threads()); }
  static int64_t num_chunks(int64_t n, int64_t grain, int threads);
  // [begin, end) of chunk c; boundaries are multiples of grain (alignment for kernels).
  static void chunk_range(int64_t n, int64_t grain, int64_t nchunks, int64_t c, int64_t& begin,
                          int64_t& end);

  // Runs body over [0, n) split into num_chunks(n, grain) chunks, on the workers
  // and the caller. The first exception thrown by a chunk is rethrown here (later
  // chunks are skipped). A call from inside a body runs inline on that thread,
  // with the same chunks; calls from several outside threads take turns.
  void parallel_for(int64_t n, int64_t grain, const Body& body);

private:
  struct Job;
  void start_workers(int n);
  void stop_workers();
  void worker_loop();
  static void run_chunks(Job& job);

  std::atomic<int> num_threads_{1}; // read without run_mutex_ by parallel_for
  std::mutex run_mutex_;            // one loop at a time on this pool
  std::mutex mutex_;                // guards job_, generation_, stop_
  std::condition_variable wake_;
  std::shared_ptr<Job> job_;
  uint64_t generation_ = 0;
  // generation_, readable without the lock: workers poll it for a few microseconds
  // before sleeping, so back-to-back kernels do not pay a futex wake-up per worker
  std::atomic<uint64_t> published_{0};
  bool stop_ = false;
  std::vector<std::thread> workers_;
  // the process whose workers these are: a fork()ed child (multiprocessing) has none of
  // them, and runs every loop on its one thread
  long owner_ = 0;
  bool forked() const;
  void abandon_workers();
};

} // namespace npc

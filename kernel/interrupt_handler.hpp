#pragma once

#include <pthread.h>

#include <atomic>
#include <mutex>
#include <thread>

namespace npc {
// Turns SIGINT (what Jupyter sends to interrupt a kernel) into a Python
// KeyboardInterrupt in the cell that is running, and into nothing when idle.
// xeus runs the shell on the main thread alongside threads of its own, so
// SIGINT is blocked everywhere and taken by a sigwait thread instead.
class interrupt_handler {
public:
  // Must run before any other thread starts, so that every thread inherits
  // the blocked SIGINT.
  static void block_sigint();

  interrupt_handler();
  ~interrupt_handler();
  interrupt_handler(const interrupt_handler&) = delete;
  interrupt_handler& operator=(const interrupt_handler&) = delete;

  // Called on the main thread around the execution of a cell.
  void begin_cell();
  void end_cell();

  // npcompile's flag that stops a running compiled kernel (its CPU runtime's
  // interrupt_requested()): raised with each interrupt, since SIGINT never reaches the
  // handler npcompile chains in front of Python's here.
  void set_kernel_stop_flag(std::atomic<bool>* flag) { m_stop_flag.store(flag); }

private:
  void run();

  pthread_t m_main_thread;
  std::mutex m_mutex;
  bool m_busy = false;
  bool m_stop = false;
  std::thread m_thread;
  std::atomic<std::atomic<bool>*> m_stop_flag{nullptr};
};
} // namespace npc

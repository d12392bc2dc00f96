#include "interrupt_handler.hpp"

#include <signal.h>

#include <cstring>

#include "Python.h"

namespace npc {
namespace {
// Only there to interrupt the main thread's blocking system calls
// (time.sleep, select, ...) so that Python looks at its pending signals.
void wake_up(int) {}

// Children forked from the kernel should get a normal SIGINT back.
void unblock_sigint_in_child() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}
} // namespace

void interrupt_handler::block_sigint() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  pthread_atfork(nullptr, nullptr, unblock_sigint_in_child);
}

interrupt_handler::interrupt_handler() : m_main_thread(pthread_self()) {
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = wake_up;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0; // no SA_RESTART: the interrupted call must return EINTR
  sigaction(SIGUSR2, &action, nullptr);
  m_thread = std::thread([this] { run(); });
}

interrupt_handler::~interrupt_handler() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  pthread_kill(m_thread.native_handle(), SIGINT);
  m_thread.join();
}

// A stop flag left raised by an interrupt that Python's own signal handled (a cell in
// plain Python) would stop the first compiled loop of a later cell that nobody
// interrupted: each cell starts with it down.
void interrupt_handler::begin_cell() {
  std::lock_guard lock(m_mutex);
  m_busy = true;
  if (auto* flag = m_stop_flag.load())
    flag->store(false);
}

// Once this returns no wake-up signal can be on its way any more: the
// signal is sent under the lock, and is delivered when this thread leaves
// the lock's wait. A KeyboardInterrupt that arrived too late to be raised
// in the cell may still be pending in Python; the caller drains it.
void interrupt_handler::end_cell() {
  std::lock_guard lock(m_mutex);
  m_busy = false;
}

void interrupt_handler::run() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  while (true) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) {
      continue;
    }
    {
      std::lock_guard lock(m_mutex);
      if (m_stop) {
        return;
      }
      if (!m_busy) {
        continue; // idle: nothing to interrupt
      }
      PyErr_SetInterrupt(); // async-signal-safe, needs no GIL
      if (auto* flag = m_stop_flag.load())
        flag->store(true); // a compiled kernel running with the GIL released stops too
      pthread_kill(m_main_thread, SIGUSR2);
    }
    // Tripped from a thread other than the main one, the signal does not set
    // Python's eval breaker (CPython 3.11 only recomputes it in the main thread,
    // when that thread takes the GIL back). Taking the GIL here makes a busy main
    // thread hand it over and recompute, so a pure-Python loop sees the
    // KeyboardInterrupt at once. Outside the lock: this may wait for the GIL.
    PyGILState_STATE state = PyGILState_Ensure();
    PyGILState_Release(state);
  }
}
} // namespace npc

#include "Interrupt.hpp"

#include <csignal>
#include <mutex>

namespace npc {

namespace {
std::atomic<bool> g_requested{false};
std::atomic<int> g_watchers{0};
std::mutex g_mutex; // installs and restores, never in the handler
struct sigaction g_previous;

extern "C" void on_sigint(int sig, siginfo_t* info, void* ctx) {
  g_requested.store(true, std::memory_order_relaxed);
  // then the handler we replaced (Python's: it marks the signal for the interpreter)
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction)
      g_previous.sa_sigaction(sig, info, ctx);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
  }
}
} // namespace

std::atomic<bool>& interrupt_requested() { return g_requested; }

bool interrupt_watched() { return g_watchers.load(std::memory_order_relaxed) > 0; }

InterruptWatch::InterruptWatch() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_watchers.load() == 0) {
    struct sigaction current;
    if (sigaction(SIGINT, nullptr, &current) != 0)
      return;
    // only in front of a handler someone installed: the default action (terminate) or
    // an ignored SIGINT stays as it is
    const bool handled = (current.sa_flags & SA_SIGINFO) ||
                         (current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN);
    if (!handled)
      return;
    g_previous = current;
    struct sigaction mine {};
    mine.sa_sigaction = on_sigint;
    mine.sa_flags = SA_SIGINFO | (current.sa_flags & SA_RESTART);
    sigemptyset(&mine.sa_mask);
    g_requested.store(false);
    if (sigaction(SIGINT, &mine, nullptr) != 0)
      return;
  }
  g_watchers.fetch_add(1);
  active_ = true;
}

InterruptWatch::~InterruptWatch() {
  if (!active_)
    return;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_watchers.fetch_sub(1) == 1)
    sigaction(SIGINT, &g_previous, nullptr);
}

} // namespace npc

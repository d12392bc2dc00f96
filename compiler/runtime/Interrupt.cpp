#include "Interrupt.hpp"

#include <csignal>
#include <mutex>

namespace npc {

namespace {
std::atomic<bool> g_requested{false};
std::atomic<int> g_watchers{0};
std::mutex g_mutex; // installs and restores, never in the handler
struct sigaction g_previous;
bool g_installed = false; // our handler is in place (g_previous restored at the end)

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
    g_requested.store(false);
    g_installed = false;
    struct sigaction current;
    // only in front of a handler someone installed: the default action (terminate) or
    // an ignored SIGINT stays as it is. A host that takes SIGINT itself (the Jupyter
    // kernel's sigwait thread) raises the flag directly.
    if (sigaction(SIGINT, nullptr, &current) == 0 &&
        ((current.sa_flags & SA_SIGINFO) ||
         (current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN))) {
      g_previous = current;
      struct sigaction mine {};
      mine.sa_sigaction = on_sigint;
      mine.sa_flags = SA_SIGINFO | (current.sa_flags & SA_RESTART);
      sigemptyset(&mine.sa_mask);
      g_installed = sigaction(SIGINT, &mine, nullptr) == 0;
    }
  }
  g_watchers.fetch_add(1);
  active_ = true;
}

InterruptWatch::~InterruptWatch() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_watchers.fetch_sub(1) == 1 && g_installed) {
    sigaction(SIGINT, &g_previous, nullptr);
    g_installed = false;
  }
}

} // namespace npc

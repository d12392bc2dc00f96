#pragma once
// Ctrl-C during a long compiled kernel (issue 16: a fused kernel over 10^10 elements ran
// ten minutes through SIGINT). While an InterruptWatch lives, SIGINT also raises a flag
// that the kernel launcher reads between slices of rows, so the kernel stops within
// milliseconds; the handler that was installed (Python's, which makes the
// KeyboardInterrupt) still runs. No Python here: the bindings turn a stop into the
// Python exception.
#include <atomic>

namespace npc {

// Set by SIGINT while a watch is active; the one who acts on it clears it.
std::atomic<bool>& interrupt_requested();
// Whether a watch is active (the launcher slices rows only then).
bool interrupt_watched();

class InterruptWatch {
public:
  InterruptWatch();   // installs the chaining handler (first watch only)
  ~InterruptWatch();  // restores the previous one (last watch only)
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;
  bool active() const { return active_; }

private:
  bool active_ = false;
};

} // namespace npc

#pragma once
// The CUDA events that time launches, and the times read from them. Direct launches
// (Launcher.cpp) and launch graphs (LaunchGraph.cpp) both record a (start, stop) pair per
// kernel here, in stream order; the times come back in that order.
#include <cuda.h>

#include <mutex>
#include <vector>

namespace npc::cuda {

class KernelTimes {
 public:
  static KernelTimes& get();

  // Everything below expects `mu` held by the caller.
  std::mutex mu;

  CUevent take_event();  // a spare event, or a new one
  // recycle: the pair goes back to the spares once read (a launch graph keeps its own)
  void add_pending(CUevent start, CUevent stop, bool recycle);
  // Moves finished pending pairs to the times read (all of them, waiting, when wait).
  void drain(bool wait);
  std::vector<double> take(bool wait);  // drain, then hand over the times read
  // Is this event in a pair whose time is not read yet?
  bool pending(CUevent e) const;
  // The owner of a pending pair lets it go: its events become spares once read.
  void recycle_when_read(CUevent e);
  void give_back(CUevent e) { spare_.push_back(e); }

 private:
  struct Pending {
    CUevent start, stop;
    bool recycle;
  };
  std::vector<Pending> pending_;
  std::vector<CUevent> spare_;
  std::vector<double> read_;  // drained, not yet taken
};

} // namespace npc::cuda

#pragma once
// A run of kernels launched as one CUDA graph. Why: the host submits the whole run in
// one cuGraphLaunch instead of one cuLaunchKernel (plus two event records) per kernel,
// so the GPU runs the kernels back to back instead of waiting on the host between them;
// and each kernel's start event is recorded inside the graph, so its time no longer
// includes the host's launch latency (on an idle GPU a start event recorded before a
// direct launch fires at once, and the kernel's time would include the launch itself).
#include "Launcher.hpp"

#include <memory>
#include <vector>

namespace npc::cuda {

struct GraphKernel {
  CUfunction function = nullptr;
  unsigned grid = 1, block = 1;
  std::vector<uint64_t> pointers;
  std::vector<int64_t> params;
};

class LaunchGraph {
 public:
  // Builds and instantiates the graph (throws CudaError when the driver refuses).
  LaunchGraph(const std::vector<GraphKernel>& kernels, bool timed);
  ~LaunchGraph();
  LaunchGraph(const LaunchGraph&) = delete;
  LaunchGraph& operator=(const LaunchGraph&) = delete;

  // Launches every kernel with this call's buffers and parameter blocks (one list per
  // kernel, in order); only kernels whose arguments changed are updated in the graph.
  void launch(const std::vector<std::vector<uint64_t>>& pointers,
              const std::vector<std::vector<int64_t>>& params);

  size_t size() const { return nodes_.size(); }
  size_t updates() const { return updates_; }  // kernel nodes re-pointed so far

 private:
  void fresh_events();  // the graph's last times are unread: record into new events

  std::vector<GraphKernel> kernels_;
  std::vector<CUgraphNode> nodes_;
  std::vector<std::pair<CUgraphNode, CUgraphNode>> event_nodes_;
  std::vector<std::pair<CUevent, CUevent>> events_;
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
  bool timed_;
  size_t updates_ = 0;
};

} // namespace npc::cuda

#include "LaunchGraph.hpp"

#include "Device.hpp"
#include "KernelTimes.hpp"

#include <stdexcept>

namespace npc::cuda {
namespace {

CUDA_KERNEL_NODE_PARAMS node_params(const GraphKernel& k, KernelArgs& args) {
  CUDA_KERNEL_NODE_PARAMS p{};
  p.func = k.function;
  p.gridDimX = k.grid;
  p.gridDimY = p.gridDimZ = 1;
  p.blockDimX = k.block;
  p.blockDimY = p.blockDimZ = 1;
  p.kernelParams = args.slots.data();  // the driver copies the values
  return p;
}

} // namespace

LaunchGraph::LaunchGraph(const std::vector<GraphKernel>& kernels, bool timed)
    : kernels_(kernels), timed_(timed) {
  Device& dev = Device::get();
  dev.make_current();
  const auto& a = dev.api;
  KernelTimes& t = KernelTimes::get();
  std::lock_guard<std::mutex> lock(t.mu);
  try {
    a.check(a.cuGraphCreate(&graph_, 0), "cuGraphCreate");
    CUgraphNode last = nullptr;
    auto add_event = [&](CUevent e) {
      CUgraphNode n = nullptr;
      a.check(a.cuGraphAddEventRecordNode(&n, graph_, last ? &last : nullptr, last ? 1 : 0, e),
              "cuGraphAddEventRecordNode");
      last = n;
      return n;
    };
    for (const GraphKernel& k : kernels_) {
      CUgraphNode start_node = nullptr;
      if (timed_) {
        events_.emplace_back(t.take_event(), t.take_event());
        start_node = add_event(events_.back().first);
      }
      KernelArgs args(k.pointers, k.params);
      CUDA_KERNEL_NODE_PARAMS p = node_params(k, args);
      CUgraphNode n = nullptr;
      a.check(a.cuGraphAddKernelNode(&n, graph_, last ? &last : nullptr, last ? 1 : 0, &p),
              "cuGraphAddKernelNode");
      last = n;
      nodes_.push_back(n);
      if (timed_)
        event_nodes_.emplace_back(start_node, add_event(events_.back().second));
    }
    a.check(a.cuGraphInstantiate(&exec_, graph_, 0), "cuGraphInstantiate");
  } catch (...) {
    for (auto& [s, e] : events_) {
      t.give_back(s);
      t.give_back(e);
    }
    events_.clear();
    if (exec_)
      a.cuGraphExecDestroy(exec_);
    if (graph_)
      a.cuGraphDestroy(graph_);
    throw;
  }
}

LaunchGraph::~LaunchGraph() {
  try {
    Device& dev = Device::get();
    dev.make_current();
    const auto& a = dev.api;
    KernelTimes& t = KernelTimes::get();
    std::lock_guard<std::mutex> lock(t.mu);
    // events whose times are unread go back to the spares once read
    for (auto& [s, e] : events_) {
      if (t.pending(s)) {
        t.recycle_when_read(s);
      } else {
        t.give_back(s);
        t.give_back(e);
      }
    }
    // a launched graph may still run: the driver defers the destruction until it ends
    a.cuGraphExecDestroy(exec_);
    a.cuGraphDestroy(graph_);
  } catch (...) {
    // no device any more (process exit): nothing to give back to
  }
}

void LaunchGraph::fresh_events() {
  const auto& a = Device::get().api;
  KernelTimes& t = KernelTimes::get();
  for (size_t i = 0; i < events_.size(); ++i) {
    t.recycle_when_read(events_[i].first);
    events_[i] = {t.take_event(), t.take_event()};
    a.check(a.cuGraphExecEventRecordNodeSetEvent(exec_, event_nodes_[i].first, events_[i].first),
            "cuGraphExecEventRecordNodeSetEvent");
    a.check(a.cuGraphExecEventRecordNodeSetEvent(exec_, event_nodes_[i].second, events_[i].second),
            "cuGraphExecEventRecordNodeSetEvent");
  }
}

void LaunchGraph::launch(const std::vector<std::vector<uint64_t>>& pointers,
                         const std::vector<std::vector<int64_t>>& params) {
  if (pointers.size() != kernels_.size() || params.size() != kernels_.size())
    throw std::invalid_argument("LaunchGraph.launch: one pointer and one parameter list per kernel");
  Device& dev = Device::get();
  dev.make_current();
  const auto& a = dev.api;
  KernelTimes& t = KernelTimes::get();
  std::lock_guard<std::mutex> lock(t.mu);
  for (size_t i = 0; i < kernels_.size(); ++i) {
    GraphKernel& k = kernels_[i];
    if (pointers[i] == k.pointers && params[i] == k.params)
      continue;
    KernelArgs args(pointers[i], params[i]);
    CUDA_KERNEL_NODE_PARAMS p = node_params(k, args);
    a.check(a.cuGraphExecKernelNodeSetParams(exec_, nodes_[i], &p), "cuGraphExecKernelNodeSetParams");
    k.pointers = pointers[i];
    k.params = params[i];
    ++updates_;
  }
  if (timed_) {
    t.drain(false);  // the last launch's times, when it has finished
    if (!events_.empty() && t.pending(events_.front().first))
      fresh_events();  // still running (calls pipelined): keep its events for its times
  }
  dev.queued();
  a.check(a.cuGraphLaunch(exec_, dev.stream), "cuGraphLaunch");
  for (auto& [s, e] : events_)
    t.add_pending(s, e, false);
}

} // namespace npc::cuda

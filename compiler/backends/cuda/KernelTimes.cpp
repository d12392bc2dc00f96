#include "KernelTimes.hpp"

#include "Device.hpp"

namespace npc::cuda {

KernelTimes& KernelTimes::get() {
  static KernelTimes* t = new KernelTimes; // leaked: events live as long as the process
  return *t;
}

CUevent KernelTimes::take_event() {
  if (!spare_.empty()) {
    CUevent e = spare_.back();
    spare_.pop_back();
    return e;
  }
  const auto& a = Device::get().api;
  CUevent e = nullptr;
  a.check(a.cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  return e;
}

void KernelTimes::add_pending(CUevent start, CUevent stop, bool recycle) {
  pending_.push_back({start, stop, recycle});
}

// Launches finish in stream order: the first pair not done ends a non-waiting drain.
void KernelTimes::drain(bool wait) {
  if (pending_.empty())
    return;
  const Device& dev = Device::get();
  dev.make_current();
  const auto& a = dev.api;
  size_t done = 0;
  for (const Pending& p : pending_) {
    if (wait) {
      a.check(a.cuEventSynchronize(p.stop), "cuEventSynchronize");
    } else {
      CUresult r = a.cuEventQuery(p.stop);
      if (r == CUDA_ERROR_NOT_READY)
        break;
      a.check(r, "cuEventQuery");
    }
    float ms = 0.f;
    a.check(a.cuEventElapsedTime(&ms, p.start, p.stop), "cuEventElapsedTime");
    read_.push_back(ms);
    if (p.recycle) {
      spare_.push_back(p.start);
      spare_.push_back(p.stop);
    }
    ++done;
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(done));
}

std::vector<double> KernelTimes::take(bool wait) {
  drain(wait);
  std::vector<double> out;
  out.swap(read_);
  return out;
}

bool KernelTimes::pending(CUevent e) const {
  for (const Pending& p : pending_)
    if (p.start == e || p.stop == e)
      return true;
  return false;
}

void KernelTimes::recycle_when_read(CUevent e) {
  for (Pending& p : pending_)
    if (p.start == e || p.stop == e)
      p.recycle = true;
}

} // namespace npc::cuda

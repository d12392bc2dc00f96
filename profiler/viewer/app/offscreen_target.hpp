#pragma once
// A framebuffer object of a fixed size to render a screenshot into: the window itself may be
// hidden, smaller than the picture, or on a virtual display.
#include <cstdint>
#include <vector>

namespace npc::viewer {
class OffscreenTarget {
public:
  // Needs a current OpenGL 3 context; throws std::runtime_error if the FBO is incomplete.
  OffscreenTarget(int width, int height);
  ~OffscreenTarget();
  OffscreenTarget(const OffscreenTarget&) = delete;
  OffscreenTarget& operator=(const OffscreenTarget&) = delete;

  void bind() const;
  // RGBA, rows top to bottom (OpenGL reads bottom up).
  std::vector<std::uint8_t> read_rgba() const;

private:
  int width_, height_;
  unsigned fbo_ = 0, colour_ = 0;
};
} // namespace npc::viewer

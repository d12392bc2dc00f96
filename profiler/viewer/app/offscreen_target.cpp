#include "offscreen_target.hpp"

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>
#include <algorithm>
#include <stdexcept>

namespace npc::viewer {
OffscreenTarget::OffscreenTarget(int width, int height) : width_(width), height_(height) {
  glGenFramebuffers(1, &fbo_);
  glGenRenderbuffers(1, &colour_);
  glBindRenderbuffer(GL_RENDERBUFFER, colour_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour_);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    throw std::runtime_error("offscreen framebuffer is incomplete");
}

OffscreenTarget::~OffscreenTarget() {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteFramebuffers(1, &fbo_);
  glDeleteRenderbuffers(1, &colour_);
}

void OffscreenTarget::bind() const { glBindFramebuffer(GL_FRAMEBUFFER, fbo_); }

std::vector<std::uint8_t> OffscreenTarget::read_rgba() const {
  const auto row = static_cast<std::size_t>(width_) * 4;
  std::vector<std::uint8_t> px(row * static_cast<std::size_t>(height_));
  bind();
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  for (int y = 0; y < height_ / 2; ++y) // flip: OpenGL's first row is the bottom one
    std::swap_ranges(px.begin() + static_cast<std::ptrdiff_t>(row * y),
                     px.begin() + static_cast<std::ptrdiff_t>(row * (y + 1)),
                     px.begin() + static_cast<std::ptrdiff_t>(row * (height_ - 1 - y)));
  return px;
}
} // namespace npc::viewer

#pragma once
// glibc's allocator, tuned once for array programs (see MallocTuning.cpp).
namespace npc {
// Called when the native module loads; NPC_MALLOC_TUNING=0 leaves glibc's defaults.
// Returns whether anything was changed.
bool tune_malloc();
} // namespace npc

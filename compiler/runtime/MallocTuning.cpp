#include "MallocTuning.hpp"

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace npc {

// Arrays of a few hundred KB made and freed per step (the NumPy steps of a compiled loop
// body: np.roll's concatenates, 400 KB each) went through glibc's dynamic thresholds:
// freeing two at the top of the heap passed the trim threshold, the memory went back to
// the OS, and the next step faulted it in again. One call in two of a 100-step stencil
// took 16,400 page faults and 33 ms instead of 8 ms (eager NumPy showed the same
// alternation, 8 and 29 ms). Up to 32 MiB now comes from the heap, and the heap keeps up
// to 256 MiB of free top before giving it back.
bool tune_malloc() {
#if defined(__GLIBC__)
  const char* env = std::getenv("NPC_MALLOC_TUNING");
  if (env != nullptr && std::strcmp(env, "0") == 0)
    return false;
  const bool a = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1;
  const bool b = mallopt(M_TRIM_THRESHOLD, 256 << 20) == 1;
  return a && b;
#else
  return false;
#endif
}

} // namespace npc
